/* SPDX-License-Identifier: MIT */
/* A portability layer of macros over a small structure that holds the
   mutex, as C code ported from other systems writes it: the enter,
   leave and delete macros take the structure and name its field
   themselves (`pthread_mutex_destroy(&((cs)->mtx))`), and a second
   structure, an event, has a mutex field of the same name, locked
   directly, and a wait macro that names its condition field.  The
   init, delete and wait macros are rewritten around their arguments
   (the wait inside an extracted section); the event's mutex field,
   which the critical-section macros name too, is converted on its own. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef struct {
	pthread_mutex_t mtx;
} crit_sec;

#define CS_INIT(cs) pthread_mutex_init(&((cs)->mtx), NULL)
#define CS_ENTER(cs) pthread_mutex_lock(&((cs)->mtx))
#define CS_LEAVE(cs) pthread_mutex_unlock(&((cs)->mtx))
#define CS_DELETE(cs) pthread_mutex_destroy(&((cs)->mtx))
#define EV_WAIT(ev, m) pthread_cond_wait(&(ev)->cv, m)

struct event {
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	int set;
};

#define NT 4
#define IT 1000

struct shared {
	crit_sec cs;
	long total;
	struct event done;
	int finished;
};

static void event_init(struct event *e)
{
	pthread_mutex_init(&e->mtx, NULL);
	pthread_cond_init(&e->cv, NULL);
	e->set = 0;
}

static void event_set(struct event *e)
{
	pthread_mutex_lock(&e->mtx);
	e->set = 1;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mtx);
}

static void event_wait(struct event *e)
{
	pthread_mutex_lock(&e->mtx);
	while (!e->set)
		EV_WAIT(e, &e->mtx);
	pthread_mutex_unlock(&e->mtx);
}

static void event_close(struct event *e)
{
	pthread_mutex_destroy(&e->mtx);
	pthread_cond_destroy(&e->cv);
}

static void *worker(void *p)
{
	struct shared *sh = p;
	int i, last = 0;

	for (i = 0; i < IT; i++) {
		CS_ENTER(&sh->cs);
		sh->total += i;
		if (i == IT - 1 && ++sh->finished == NT)
			last = 1;
		CS_LEAVE(&sh->cs);
	}
	if (last)
		event_set(&sh->done);
	return NULL;
}

int main(void)
{
	static struct shared sh;
	pthread_t t[NT];
	int i;

	if (CS_INIT(&sh.cs) != 0)
		return 2;
	event_init(&sh.done);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &sh);
	event_wait(&sh.done);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	CS_DELETE(&sh.cs);
	event_close(&sh.done);
	printf("total %ld finished %d\n", sh.total, sh.finished);
	return sh.total == (long)NT * IT * (IT - 1) / 2 && sh.finished == NT ?
		       0 :
		       1;
}
