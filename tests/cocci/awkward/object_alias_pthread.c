/* SPDX-License-Identifier: MIT */
/* x264's common/osdep.h: object-like aliases of the pthread functions
   (`#define x264_pthread_mutex_lock pthread_mutex_lock`, of the condition
   calls too), and empty function-like ones in the #if branch for builds
   without threads.  A use, `my_mutex_lock(&c.mutex)`, is a call of the
   function the alias names.  Every lock of x264 was refused ("lock macro
   ... is not understood"). */
/* expect: transformed */
#include <stdio.h>
#define HAVE_POSIXTHREAD 1
#if HAVE_POSIXTHREAD
#include <pthread.h>
#define my_mutex_t pthread_mutex_t
#define my_cond_t pthread_cond_t
#define my_mutex_lock pthread_mutex_lock
#define my_mutex_unlock (pthread_mutex_unlock)
#define my_mutex_init pthread_mutex_init
#define my_cond_init pthread_cond_init
#define my_cond_wait pthread_cond_wait
#define my_cond_broadcast pthread_cond_broadcast
#endif
#if !HAVE_POSIXTHREAD
#define my_mutex_t int
#define my_cond_t int
#define my_mutex_lock(m)
#define my_mutex_unlock(m)
#define my_mutex_init(m, f) 0
#define my_cond_init(c, f) 0
#define my_cond_wait(c, m)
#define my_cond_broadcast(c)
#endif

struct counter {
	my_mutex_t mutex;
	my_cond_t done;
	long n;
	int finished;
};
static struct counter c;

static void *work(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		my_mutex_lock(&c.mutex);
		c.n++;
		my_mutex_unlock(&c.mutex);
	}
	my_mutex_lock(&c.mutex);
	c.finished++;
	my_cond_broadcast(&c.done);
	my_mutex_unlock(&c.mutex);
	return arg;
}

int main(void)
{
	pthread_t t[4];
	long n;

	if (my_mutex_init(&c.mutex, NULL) || my_cond_init(&c.done, NULL))
		return 1;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, NULL);
	my_mutex_lock(&c.mutex);
	while (c.finished < 4)
		my_cond_wait(&c.done, &c.mutex);
	n = c.n;
	my_mutex_unlock(&c.mutex);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", n);
	return 0;
}
