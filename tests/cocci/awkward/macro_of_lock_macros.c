/* SPDX-License-Identifier: MIT */
/* expect: held locked and unlocked in the body of macro WITH_LOCK */
/* lock macros defined in a header-like section, used on different structs */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- "locks.h" ---- */
#define LOCK(x) pthread_mutex_lock(&(x)->mtx)
#define UNLOCK(x) pthread_mutex_unlock(&(x)->mtx)
#define LOCK_OWNED(x) do { pthread_mutex_lock(&(x)->mtx); (x)->owner = pthread_self(); (x)->nlocks++; } while (0)
#define UNLOCK_OWNED(x) do { (x)->owner = 0; pthread_mutex_unlock(&(x)->mtx); } while (0)
#define WITH_LOCK(x, stmt) do { LOCK(x); stmt; UNLOCK(x); } while (0)
/* ---- end ---- */

struct queue {
	pthread_mutex_t mtx;
	int items[64];
	int head, tail;
};

struct counter {
	pthread_mutex_t mtx;
	long value;
};

struct session {
	pthread_mutex_t mtx;
	pthread_t owner;
	long nlocks;
	long bytes;
};

static struct queue q = { .mtx = PTHREAD_MUTEX_INITIALIZER };
static struct counter pushed = { PTHREAD_MUTEX_INITIALIZER, 0 };
static struct counter popped = { PTHREAD_MUTEX_INITIALIZER, 0 };
static struct session sess = { .mtx = PTHREAD_MUTEX_INITIALIZER };

static int q_push(struct queue *qq, int v)
{
	LOCK(qq);
	if (qq->tail - qq->head == 64) {
		UNLOCK(qq);
		return -1;
	}
	qq->items[qq->tail++ % 64] = v;
	UNLOCK(qq);
	WITH_LOCK(&pushed, pushed.value++);
	return 0;
}

static int q_pop(struct queue *qq, int *v)
{
	int ok = 0;
	LOCK(qq);
	if (qq->head != qq->tail) {
		*v = qq->items[qq->head++ % 64];
		ok = 1;
	}
	UNLOCK(qq);
	if (ok) {
		LOCK(&popped);
		popped.value++;
		UNLOCK(&popped);
	}
	return ok;
}

static void sess_add(struct session *s, long n)
{
	LOCK_OWNED(s);
	s->bytes += n;
	UNLOCK_OWNED(s);
}

static void *producer(void *arg)
{
	int i;
	(void)arg;
	for (i = 0; i < 3000; i++) {
		while (q_push(&q, i) < 0)
			;
		sess_add(&sess, 2);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;
	int v, n = 0;
	(void)arg;
	while (n < 3000) {
		if (q_pop(&q, &v)) {
			sum += v;
			n++;
			sess_add(&sess, 1);
		}
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t p, c;
	void *r;
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &r);
	printf("sum=%ld pushed=%ld popped=%ld bytes=%ld nlocks=%ld\n", (long)r, pushed.value,
	       popped.value, sess.bytes, sess.nlocks);
	return (long)r == 4498500L && sess.bytes == 9000 ? 0 : 1;
}
