/* SPDX-License-Identifier: MIT */
/* A plugin registry: a helper opens the plugin with dlopen() under the
   registry lock, and the caller reports dlerror() after the unlock.  The
   dynamic linker keeps the error per thread: opened on the server
   thread, the caller's dlerror() would find nothing.  Held. */
/* expect: held dlopen() */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 3
#define NPLUG 4

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static int attempts;
static void *loaded[NPLUG];

static void *open_plugin(const char *path)
{
	attempts++;
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static void *loader(void *arg)
{
	long slot = (long)arg, ok = 0;
	void *h;
	const char *err;
	char path[64];

	snprintf(path, sizeof path, "/nonexistent/rcl-plugin-%ld.so", slot);
	pthread_mutex_lock(&reg_lock);
	h = open_plugin(path);
	loaded[slot] = h;
	pthread_mutex_unlock(&reg_lock);
	if (h == NULL) {
		err = dlerror();
		ok = err != NULL && strstr(err, path) != NULL;
	}
	return (void *)ok;
}

int main(void)
{
	pthread_t t[NT];
	long i, ok = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, loader, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("attempts %d, errors reported %ld\n", attempts, ok);
	return ok == NT ? 0 : 1;
}
