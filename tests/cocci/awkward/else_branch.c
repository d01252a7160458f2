/* SPDX-License-Identifier: MIT */
/* A section in the #else branch of an #ifdef for another build of the
   same file, as mosquitto's lib/util_mosq.c has (#ifdef WITH_BROKER: the
   broker closes the socket; #else: the client library calls its
   on_disconnect callback under callback_mutex).  WITH_BROKER is not
   defined here: the #else branch is the code compiled. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

struct client {
	pthread_mutex_t callback_mutex;
	long pings;
	long disconnects;
};

static struct client cl = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

static void check_keepalive(struct client *c, int i)
{
	if (i % 3) {
		pthread_mutex_lock(&c->callback_mutex);
		c->pings++;
		pthread_mutex_unlock(&c->callback_mutex);
	} else {
#ifdef WITH_BROKER
		c->disconnects += 100;
#else
		pthread_mutex_lock(&c->callback_mutex);
		c->disconnects++;
		pthread_mutex_unlock(&c->callback_mutex);
#endif
	}
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		check_keepalive(&cl, i);
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
	printf("pings %ld disconnects %ld\n", cl.pings, cl.disconnects);
	return cl.pings + cl.disconnects == NT * IT ? 0 : 1;
}
