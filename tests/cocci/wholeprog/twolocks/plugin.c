/* SPDX-License-Identifier: MIT */
/* multipath-tools' foreign/nvme.c: another unit defines its own global
 * lock() and unlock(), plain wrappers of its mutex (same parameter type
 * here, so that a mix-up compiles). */
#include <pthread.h>
#include "plugin.h"

struct counted {
	pthread_mutex_t mutex;
	int waiters;
};

static struct counted ctx = { PTHREAD_MUTEX_INITIALIZER, 0 };
static int runs;

void lock(struct counted *c);
void unlock(struct counted *c);

void lock(struct counted *c)
{
	pthread_mutex_lock(&c->mutex);
}

void unlock(struct counted *c)
{
	pthread_mutex_unlock(&c->mutex);
}

int plugin_run(void)
{
	int n;

	lock(&ctx);
	n = ++runs;
	unlock(&ctx);
	return n;
}
