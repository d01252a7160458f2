/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A global parameter block initialised by position, whose members and
   initialisers for optional features sit under #if (coturn's
   turn_params, with its TLS contexts): the mutex's position counts
   only the elements the compiler reads.  The #if inside the braces
   used to stop the tool from finding the mutex's initialiser: the
   lock was converted, PTHREAD_MUTEX_INITIALIZER stayed, and the
   compile check refused the lock for a warning of its own making. */
#include <pthread.h>
#include <stdio.h>

#define WITH_OLD_TLS 0
#define WITH_DTLS 1

struct relay_params {
	const char *name;
#if WITH_OLD_TLS
	void *ctx_v1_0, *ctx_v1_1;
#endif
#if WITH_DTLS
	void *dtls_ctx;
#else
	int no_dtls;
#endif
	pthread_mutex_t tls_mutex;
	int reloads;
	pthread_mutex_t stats_mutex;
	long bytes;
};

static struct relay_params params = {
	"relay",
#if WITH_OLD_TLS
	NULL, NULL,
#endif
#if WITH_DTLS
	NULL,
#else
	1,
#endif
	PTHREAD_MUTEX_INITIALIZER, 0,
	PTHREAD_MUTEX_INITIALIZER, 0
};

static void *reload(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&params.tls_mutex);
		params.reloads++;
		pthread_mutex_unlock(&params.tls_mutex);
		pthread_mutex_lock(&params.stats_mutex);
		params.bytes += (long)arg;
		pthread_mutex_unlock(&params.stats_mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t tid[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&tid[i], NULL, reload, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	printf("%s: %d reloads, %ld bytes\n", params.name, params.reloads,
	       params.bytes);
	return 0;
}
