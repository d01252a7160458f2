/* SPDX-License-Identifier: MIT */
/* expect: refused where the tool does not follow it */
/* Workers hand their pointer field (`w->gate`, set to the address of
   one mutex) to a helper whose parameter also goes into a global
   `void *` the tool does not follow (a "last lock used" note for a
   debugger).  The parameter keeps pthread's type, so the pointer and
   the mutex it points to stay POSIX with it. */
#include <pthread.h>
#include <stdio.h>

#define NW 3
#define LOOPS 3000

struct worker {
	pthread_mutex_t *gate;
	long *count;
};

static void *last_gate;

static void pass_gate(pthread_mutex_t *g, long *count)
{
	pthread_mutex_lock(g);
	last_gate = g;
	(*count)++;
	pthread_mutex_unlock(g);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < LOOPS; i++) {
		if (i & 1) {
			pass_gate(w->gate, w->count);
		} else {
			pthread_mutex_lock(w->gate);
			*w->count += 2;
			pthread_mutex_unlock(w->gate);
		}
	}
	return NULL;
}

int main(void)
{
	static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
	long count = 0;
	struct worker ws[NW];
	pthread_t tid[NW];

	for (int i = 0; i < NW; i++) {
		ws[i].gate = &gate_mu;
		ws[i].count = &count;
		pthread_create(&tid[i], NULL, worker_main, &ws[i]);
	}
	for (int i = 0; i < NW; i++)
		pthread_join(tid[i], NULL);
	printf("count %ld, last gate %s\n", count,
	       last_gate == (void *)&gate_mu ? "the shared one" : "another");
	return 0;
}
