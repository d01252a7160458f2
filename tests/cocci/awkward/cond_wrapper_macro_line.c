/* SPDX-License-Identifier: MIT */
/* A thread layer whose condition type is a structure holding the
   condition and its mutex, with signal and broadcast functions that take
   the caller's line and file for debugging, called through macros that
   add them.  The functions change the structure's condition field only:
   whoever calls them, through whatever macro, passes that structure, so
   their bodies call liblock's and the calls stay.  (Only a wait wrapper,
   which is given the mutex, needs every call site read.) */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int open;
	int passed;
} gate_t;

void gate_broadcast_c(gate_t *g, int line, const char *file);
void gate_signal_c(gate_t *g, int line, const char *file);
#define gate_broadcast(g) gate_broadcast_c(g, __LINE__, __FILE__)
#define gate_signal(g) gate_signal_c(g, __LINE__, __FILE__)

void gate_broadcast_c(gate_t *g, int line, const char *file)
{
	(void)line;
	(void)file;
	pthread_cond_broadcast(&g->cv);
}

void gate_signal_c(gate_t *g, int line, const char *file)
{
	(void)line;
	(void)file;
	pthread_cond_signal(&g->cv);
}

static gate_t gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
		       0, 0 };

#define NT 4

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate.mu);
	while (!gate.open)
		pthread_cond_wait(&gate.cv, &gate.mu);
	gate.passed++;
	gate_signal(&gate);
	pthread_mutex_unlock(&gate.mu);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i, passed;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, waiter, NULL);
	pthread_mutex_lock(&gate.mu);
	gate.open = 1;
	pthread_mutex_unlock(&gate.mu);
	gate_broadcast(&gate);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_lock(&gate.mu);
	passed = gate.passed;
	pthread_mutex_unlock(&gate.mu);
	printf("passed %d\n", passed);
	return passed == NT ? 0 : 1;
}
