/* SPDX-License-Identifier: MIT */
/* c-blosc's thread barrier: a macro defined twice, with POSIX barriers
   where <unistd.h> says the system has them and with a mutex, a counter
   and a condition variable otherwise; the structure declares the members
   of one branch only.  The compiler reads the barrier branch (glibc
   defines _POSIX_BARRIERS), so the macro's calls take no lock: nothing
   about them is refused, and the counter mutex every round takes is
   converted. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NT 4
#define ROUNDS 200

#if defined(_POSIX_BARRIERS) && _POSIX_BARRIERS > 0
#define HAVE_BARRIERS
#endif

struct team {
	pthread_mutex_t count_mutex;
	long done;
#ifdef HAVE_BARRIERS
	pthread_barrier_t barr;
#else
	int waiting;
	pthread_mutex_t wait_mutex;
	pthread_cond_t wait_cv;
#endif
};

#ifdef HAVE_BARRIERS
#define TEAM_WAIT(T)                                                           \
	rc = pthread_barrier_wait(&(T)->barr);                                 \
	if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD) {                  \
		printf("barrier: %d\n", rc);                                   \
		return NULL;                                                   \
	}
#else
#define TEAM_WAIT(T)                                                           \
	pthread_mutex_lock(&(T)->wait_mutex);                                  \
	if (++(T)->waiting < NT) {                                             \
		pthread_cond_wait(&(T)->wait_cv, &(T)->wait_mutex);            \
	} else {                                                               \
		(T)->waiting = 0;                                              \
		pthread_cond_broadcast(&(T)->wait_cv);                         \
	}                                                                      \
	pthread_mutex_unlock(&(T)->wait_mutex);
#endif

static struct team team;

static void *member(void *arg)
{
	struct team *t = arg;
	int r, rc = 0;

	(void)rc;
	for (r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&t->count_mutex);
		t->done++;
		pthread_mutex_unlock(&t->count_mutex);
		TEAM_WAIT(t);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	int i;

	pthread_mutex_init(&team.count_mutex, NULL);
#ifdef HAVE_BARRIERS
	pthread_barrier_init(&team.barr, NULL, NT);
#else
	pthread_mutex_init(&team.wait_mutex, NULL);
	pthread_cond_init(&team.wait_cv, NULL);
#endif
	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, member, &team);
	for (i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("done %ld (want %d)\n", team.done, NT * ROUNDS);
	return team.done == NT * ROUNDS ? 0 : 1;
}
