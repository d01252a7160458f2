/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A session table in the style of small daemons: the unlock's result is
   the function's result (return pthread_mutex_unlock(&t->lock);), calls
   are cast to void to please lint, and a void function leaves through
   return (void)pthread_mutex_unlock(...). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NSESS 8
#define NT 4
#define IT 5000

struct sess_table {
	pthread_mutex_t lock;
	int refs[NSESS];
	unsigned long opens, closes, busy, resets;
};

static struct sess_table tab = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int sess_open(struct sess_table *t, int id)
{
	(void)pthread_mutex_lock(&t->lock);
	if (id < 0 || id >= NSESS)
		return pthread_mutex_unlock(&t->lock);
	if (t->refs[id] > 100000) {
		t->busy++;
		return pthread_mutex_unlock(&t->lock);
	}
	t->refs[id]++;
	t->opens++;
	return pthread_mutex_unlock(&t->lock);
}

static void sess_close(struct sess_table *t, int id)
{
	(void)pthread_mutex_lock(&t->lock);
	if (t->refs[id] == 0)
		return (void)pthread_mutex_unlock(&t->lock);
	t->refs[id]--;
	t->closes++;
	(void)pthread_mutex_unlock(&t->lock);
}

static long sess_reset(struct sess_table *t)
{
	pthread_mutex_lock(&t->lock);
	memset(t->refs, 0, sizeof(t->refs));
	t->resets++;
	return pthread_mutex_unlock(&t->lock);
}

static void *client(void *arg)
{
	long me = (long)arg;
	int i, bad = 0;

	for (i = 0; i < IT; i++) {
		int id = (int)((me * 7 + i) % (NSESS + 1)) - (i % 5 == 0);

		bad += sess_open(&tab, id) != 0;
		if (id >= 0 && id < NSESS && i % 3)
			sess_close(&tab, id);
	}
	return (void *)(long)bad;
}

int main(void)
{
	pthread_t th[NT];
	unsigned long left = 0;
	long bad = 0;
	void *r;
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, client, (void *)(long)i);
	for (i = 0; i < NT; i++) {
		pthread_join(th[i], &r);
		bad += (long)r;
	}
	for (i = 0; i < NSESS; i++)
		left += tab.refs[i];
	printf("opens %lu closes %lu busy %lu left %lu bad %ld\n", tab.opens,
	       tab.closes, tab.busy, left, bad);
	if (tab.opens - tab.closes != left || bad)
		return 1;
	tab.refs[2] = 100001;
	bad = sess_open(&tab, 2) + sess_open(&tab, NSESS);
	printf("busy %lu refs %d\n", tab.busy, tab.refs[2]);
	bad += sess_reset(&tab);
	printf("reset %lu %ld %d\n", tab.resets, bad, tab.refs[3]);
	return 0;
}
