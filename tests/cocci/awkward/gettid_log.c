/* SPDX-License-Identifier: MIT */
/* A log ring whose entries record the kernel thread id of the writer,
   read the way many programs do without a gettid() wrapper:
   syscall(SYS_gettid).  On the server thread the id would be the
   server's.  Held. */
/* expect: held gettid() */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NT 4
#define IT 250
#define RING 64

struct entry {
	long tid;
	int seq;
};

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry ring[RING];
static int head;

/* Returns the entry's sequence number. */
static int log_event(void)
{
	int seq;

	pthread_mutex_lock(&ring_lock);
	seq = ++head;
	ring[seq % RING].tid = (long)syscall(SYS_gettid);
	ring[seq % RING].seq = seq;
	pthread_mutex_unlock(&ring_lock);
	return seq;
}

static void *worker(void *arg)
{
	long me = (long)syscall(SYS_gettid), bad = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		int seq = log_event();

		/* ours, unless overwritten since by a newer entry */
		pthread_mutex_lock(&ring_lock);
		if (ring[seq % RING].seq == seq && ring[seq % RING].tid != me)
			bad++;
		pthread_mutex_unlock(&ring_lock);
	}
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("entries %d, foreign %ld\n", head, bad);
	return bad == 0 ? 0 : 1;
}
