/* SPDX-License-Identifier: MIT */
/* Each lock and unlock call in its own #if block, as libmicrohttpd does
   around every response and connection mutex (#if
   defined(MHD_USE_POSIX_THREADS) ... #endif), with an early unlock and
   return when the count does not drop to zero.  The condition is
   defined in the file itself.  The section is held: extracted, its body
   would run only where USE_POSIX_THREADS is defined, whereas the
   original runs it in every build. */
/* expect: held the lock call is alone in its own #if block */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500
#define USE_POSIX_THREADS 1

static pthread_mutex_t refs_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned int refs = NT * IT;
static unsigned int destroyed;

static void response_release(void)
{
#if defined(USE_POSIX_THREADS)
	pthread_mutex_lock(&refs_mutex);
#endif
	if (0 != --refs) {
#if defined(USE_POSIX_THREADS)
		pthread_mutex_unlock(&refs_mutex);
#endif
		return;
	}
	destroyed++;
#if defined(USE_POSIX_THREADS)
	pthread_mutex_unlock(&refs_mutex);
#endif
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		response_release();
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("refs %u destroyed %u\n", refs, destroyed);
	return refs == 0 && destroyed == 1 ? 0 : 1;
}
