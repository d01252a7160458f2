#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "vh.h"

#define NTHREADS 4
#define ROUNDS 20000

static struct vhost *hosts[2];

static void *client(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < ROUNDS; i++) {
		vh_request(hosts[(id + i) & 1], 64 + i % 5);
		if (i % 50 == 0)
			vh_join(hosts[id & 1]);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	hosts[0] = vh_create("www");
	hosts[1] = vh_create("api");
	for (long t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, client, (void *)t) != 0)
			abort();
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	vh_report(hosts[0]);
	vh_report(hosts[1]);
	return 0;
}
