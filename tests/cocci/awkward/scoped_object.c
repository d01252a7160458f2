/* SPDX-License-Identifier: MIT */
/* collectd's ovs_events.c shape: an object-like scoped lock macro, `CTX_LOCK
   { ... }`, a for statement whose head calls a lock function that
   returns 1 and an unlock function that returns 0, on a mutex field of a
   global initialised by designator.  Each use is the section `ctx_lock();
   { ... } ctx_unlock();` of ctx.mutex, and is delegated. */
/* expect: transformed */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 500

#define CTX_LOCK \
	for (int ctx_i_ = ctx_lock(); ctx_i_ != 0; ctx_i_ = ctx_unlock())

static struct {
	pthread_mutex_t mutex;
	bool available;
	long events;
} ctx = { .mutex = PTHREAD_MUTEX_INITIALIZER };

/* Used only by CTX_LOCK: always 1 once the context is locked. */
static int ctx_lock(void)
{
	pthread_mutex_lock(&ctx.mutex);
	return 1;
}

/* Used only by CTX_LOCK: always 0 once it is unlocked. */
static int ctx_unlock(void)
{
	pthread_mutex_unlock(&ctx.mutex);
	return 0;
}

static void *worker(void *arg)
{
	long n = (long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		CTX_LOCK { ctx.events += n; ctx.available = true; }
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	long k, events = 0;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)(k + 1));
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	CTX_LOCK { events = ctx.events; }
	printf("events %ld\n", events);
	return events == 6 * ROUNDS ? 0 : 1;
}
