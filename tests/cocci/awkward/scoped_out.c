/* SPDX-License-Identifier: MIT */
/* LOCKED(m) { ... } computes a value under the lock that the code after
   the block uses; the macro goes through a helper that pastes
   __LINE__ into the names of its loop variables. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define N_THREADS 4
#define N_TAKES 300

#define LOCKED(l) LOCKED_(l, __LINE__)
#define LOCKED_(l, ln) LOCKED__(l, ln)
#define LOCKED__(l, ln) \
	for (int enter_##ln = (pthread_mutex_lock(&(l)), 0); !enter_##ln; \
	     enter_##ln = 1) \
		for (int leave_##ln = 0; leave_##ln < 1; \
		     leave_##ln = (pthread_mutex_unlock(&(l)), 1))

struct ticketer {
	pthread_mutex_t lock;
	int next;
};

static struct ticketer tk = { PTHREAD_MUTEX_INITIALIZER, 0 };
static long sums[N_THREADS];

static void *take(void *arg)
{
	long me = (long)arg;
	int n;

	for (n = 0; n < N_TAKES; n++) {
		int mine;

		LOCKED(tk.lock) {
			mine = tk.next;
			tk.next = mine + 1;
		}
		sums[me] += mine;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[N_THREADS];
	long i, all = 0, n = (long)N_THREADS * N_TAKES;

	for (i = 0; i < N_THREADS; i++)
		pthread_create(&th[i], NULL, take, (void *)i);
	for (i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < N_THREADS; i++)
		all += sums[i];
	printf("%s\n", all == n * (n - 1) / 2 ? "tickets unique" : "WRONG");
	return all == n * (n - 1) / 2 ? 0 : 1;
}
