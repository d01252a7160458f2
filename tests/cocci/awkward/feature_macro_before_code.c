/* SPDX-License-Identifier: MIT */
/* A web server's single big file (civetweb's shape): it asks for the GNU
   extensions inside a platform #if, checks the sizes of its types with a
   declaration before its first #include, and only then includes
   <pthread.h>, for pthread_setname_np() among others.  Headers the tool
   adds must come after that #define, or <pthread.h> is read without it
   and pthread_setname_np() has no declaration. */
/* expect: transformed */
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#else
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* for pthread_setname_np() */
#endif
#endif

typedef char int_size_check[(sizeof(int) >= 4) ? 1 : -1];

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 3000

struct server {
	pthread_mutex_t mutex;
	long requests;
	char last_name[16];
};

static struct server srv = {PTHREAD_MUTEX_INITIALIZER, 0, ""};

static void *worker(void *arg)
{
	char name[16];
	int i;

	snprintf(name, sizeof(name), "worker-%ld", (long)arg);
	(void)pthread_setname_np(pthread_self(), name);
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&srv.mutex);
		srv.requests++;
		if (strcmp(name, srv.last_name) > 0)
			memcpy(srv.last_name, name, sizeof(name));
		pthread_mutex_unlock(&srv.mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("%ld requests, last %s\n", srv.requests, srv.last_name);
	return srv.requests == NT * IT ? 0 : 1;
}
