/* SPDX-License-Identifier: MIT */
/* The mutex initialised through a macro that turns pthread's error
   code into a success flag, as libmicrohttpd's mhd_locks.h does
   (MHD_mutex_init_(m) is (! (pthread_mutex_init ((m), NULL)))), and the
   flag tested at the call. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 500

#define mutex_init_ok(pm) (!(pthread_mutex_init((pm), NULL)))

struct response {
	pthread_mutex_t mutex;
	unsigned int reference_count;
};

static struct response *response_new(void)
{
	struct response *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	if (!mutex_init_ok(&r->mutex)) {
		free(r);
		return NULL;
	}
	return r;
}

static void *worker(void *arg)
{
	struct response *r = arg;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&r->mutex);
		r->reference_count++;
		pthread_mutex_unlock(&r->mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	struct response *r = response_new();
	unsigned int n;
	int i;

	if (r == NULL)
		return 2;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, r);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	n = r->reference_count;
	printf("references %u\n", n);
	pthread_mutex_destroy(&r->mutex);
	free(r);
	return n == NT * IT ? 0 : 1;
}
