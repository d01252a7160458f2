/* SPDX-License-Identifier: MIT */
/* Objects reset by assigning a compound literal with a static
   initialiser, `*o = (struct obj){ .mu = PTHREAD_MUTEX_INITIALIZER }`.
   The tool did not read that initialiser: the field became a liblock
   lock, the literal kept pthread's braces, and the compile check wrote
   nothing ("braces around scalar initializer").  A pool reset that way
   for every generation, never destroying the mutexes, leaks a liblock
   lock per reset: its lock stays POSIX.  The connection, destroyed
   before it is freed, is converted. */
/* expect: refused initialised again by a compound literal */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define NS 16
#define GEN 50

struct session {
	pthread_mutex_t mu;
	long bytes;
	int id;
};

struct conn {
	pthread_mutex_t lock;
	long sent;
};

static struct session sess[NS];
static struct conn *conn;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < NS; i++) {
		struct session *s = &sess[(i + id) % NS];

		pthread_mutex_lock(&s->mu);
		s->bytes += s->id + id;
		pthread_mutex_unlock(&s->mu);
		pthread_mutex_lock(&conn->lock);
		conn->sent++;
		pthread_mutex_unlock(&conn->lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long sum = 0, sent = 0;

	for (int g = 0; g < GEN; g++) {
		conn = malloc(sizeof(*conn));
		if (conn == NULL)
			return 1;
		*conn = (struct conn){ .lock = PTHREAD_MUTEX_INITIALIZER };
		for (int i = 0; i < NS; i++)
			sess[i] = (struct session){ PTHREAD_MUTEX_INITIALIZER, 0,
						    i };
		for (long i = 0; i < NT; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		for (int i = 0; i < NT; i++)
			pthread_join(t[i], NULL);
		for (int i = 0; i < NS; i++)
			sum += sess[i].bytes;
		sent += conn->sent;
		pthread_mutex_destroy(&conn->lock);
		free(conn);
	}
	printf("sum %ld sent %ld\n", sum, sent);
	return 0;
}
