/* SPDX-License-Identifier: MIT */
/* Two lock getters returning void * handles, and one release helper for
   both: its parameter may carry the address of either lock.  Both stayed
   POSIX; they are now converted together (one would stay POSIX with the
   other), and the sections through the handles are held, on whichever
   lock the handle carries. */
/* expect: held unlock in another function */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 3000

static pthread_mutex_t reads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t writes_lock = PTHREAD_MUTEX_INITIALIZER;
static long reads, writes;
/* Counted per thread: the two locks do not protect one shared counter. */
static __thread long releases;

static void release(void *h)
{
	releases++;
	pthread_mutex_unlock(h);
}

static void *reads_handle(void)
{
	return &reads_lock;
}

static void *writes_handle(void)
{
	return &writes_lock;
}

static void count_read(void)
{
	void *h = reads_handle();

	pthread_mutex_lock(h);
	reads++;
	release(h);
}

static void count_write(void)
{
	void *h = writes_handle();

	pthread_mutex_lock(h);
	writes++;
	release(h);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		count_read();
		if (i % 3 == 0)
			count_write();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("reads %ld writes %ld\n", reads, writes);
	return reads == NT * IT && writes == NT * (IT / 3) ? 0 : 1;
}
