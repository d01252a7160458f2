/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Mailboxes whose mutex and condition variable are set up by the static
   brace initialiser, by position for one and by designators for an array
   of them, as small servers write it. */
#include <pthread.h>
#include <stdio.h>

struct mailbox {
	pthread_mutex_t mu;
	pthread_cond_t ready;
	int msgs[16];
	int count;
	long delivered;
};

static struct mailbox inbox = { PTHREAD_MUTEX_INITIALIZER,
				PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };
static struct mailbox lanes[2] = {
	{ .mu = PTHREAD_MUTEX_INITIALIZER, .ready = PTHREAD_COND_INITIALIZER },
	{ .mu = PTHREAD_MUTEX_INITIALIZER, .ready = PTHREAD_COND_INITIALIZER },
};

static void post(struct mailbox *mb, int v)
{
	pthread_mutex_lock(&mb->mu);
	while (mb->count == 16)
		pthread_cond_wait(&mb->ready, &mb->mu);
	mb->msgs[mb->count++] = v;
	pthread_cond_broadcast(&mb->ready);
	pthread_mutex_unlock(&mb->mu);
}

static int fetch(struct mailbox *mb)
{
	int v;

	pthread_mutex_lock(&mb->mu);
	while (mb->count == 0)
		pthread_cond_wait(&mb->ready, &mb->mu);
	v = mb->msgs[--mb->count];
	mb->delivered++;
	pthread_cond_broadcast(&mb->ready);
	pthread_mutex_unlock(&mb->mu);
	return v;
}

static void *sender(void *arg)
{
	struct mailbox *mb = arg;
	int i;

	for (i = 1; i <= 3000; i++)
		post(mb, i);
	return NULL;
}

static void *receiver(void *arg)
{
	struct mailbox *mb = arg;
	long sum = 0;
	int i;

	for (i = 0; i < 3000; i++)
		sum += fetch(mb);
	return (void *)sum;
}

int main(void)
{
	struct mailbox *boxes[3] = { &inbox, &lanes[0], &lanes[1] };
	pthread_t s[3], r[3];
	void *sum;
	long total = 0;
	int i;

	for (i = 0; i < 3; i++) {
		pthread_create(&s[i], NULL, sender, boxes[i]);
		pthread_create(&r[i], NULL, receiver, boxes[i]);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(s[i], NULL);
		pthread_join(r[i], &sum);
		total += (long)sum;
	}
	printf("delivered %ld %ld %ld sum %ld\n", inbox.delivered,
	       lanes[0].delivered, lanes[1].delivered, total);
	return total == 3L * 3000 * 3001 / 2 ? 0 : 1;
}
