/* SPDX-License-Identifier: MIT */
/* Two structs with a field called lock: the submit worker's is a
   pthread mutex taken around its counters; the connection's is a
   semaphore-like struct of another type, whose address is passed to a
   function.  fio has both (struct submit_worker's pthread_mutex_t lock
   in workqueue.h, struct sk_out's struct fio_sem lock in server.h,
   fio_sem_down(&sk_out->lock) in server.c).  Only the first is a mutex,
   and it is used by lock, unlock and init calls only. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

struct sem {
	int value;
};

struct submit_worker {
	pthread_mutex_t lock;
	long seq;
	long done;
};

struct conn {
	int refs;
	struct sem lock;
};

static struct submit_worker sw;
static struct conn conn = { 1, { 1 } };

static void sem_down(struct sem *s)
{
	s->value--;
}

static void conn_lock(struct conn *c)
{
	sem_down(&c->lock);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&sw.lock);
		sw.seq++;
		sw.done += 2;
		pthread_mutex_unlock(&sw.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	if (pthread_mutex_init(&sw.lock, NULL) != 0)
		return 2;
	conn_lock(&conn);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("seq %ld done %ld sem %d\n", sw.seq, sw.done, conn.lock.value);
	if (sw.seq != NT * IT || sw.done != 2 * NT * IT)
		return 1;
	return conn.lock.value == 0 ? 0 : 1;
}
