/* SPDX-License-Identifier: MIT */
/* expect: held a compound literal whose address is taken */
/* expect: held __attribute__((cleanup)) */
/* hook registry: cleanup-attribute temporaries and compound-literal defaults */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 400
#define NHOOK 8

struct hook_opts {
	int priority;
	int timeout_ms;
	const char *tag;
};

struct hook {
	char name[16];
	struct hook_opts opts;
	unsigned long calls;
};

static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hook hooks[NHOOK];
static int nhooks;
static unsigned long frees;

static void freep(void *p)
{
	free(*(void **)p);
	__atomic_add_fetch(&frees, 1, __ATOMIC_RELAXED);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

static void opts_pick(const struct hook_opts **dst, const struct hook_opts *o)
{
	*dst = o;
}

/* returns the options in effect for a hook, with defaults filled in */
static int hook_effective(int idx, struct hook_opts *out)
{
	const struct hook_opts *o = NULL;

	pthread_mutex_lock(&hooks_lock);
	hooks[idx % NHOOK].calls++;
	opts_pick(&o, hooks[idx % NHOOK].opts.tag ? &hooks[idx % NHOOK].opts
						  : &(struct hook_opts){ .priority = 50,
									 .timeout_ms = 1000,
									 .tag = "default" });
	pthread_mutex_unlock(&hooks_lock);
	*out = *o;
	return out->priority;
}

/* returns a malloc'd description of a hook */
static char *hook_describe(int idx)
{
	char *res;

	pthread_mutex_lock(&hooks_lock);
	_cleanup_free_ char *name = strdup(hooks[idx % NHOOK].name);
	res = malloc(64);
	if (res)
		snprintf(res, 64, "%s/%lu", name, hooks[idx % NHOOK].calls > 0 ? 1ul : 0ul);
	pthread_mutex_unlock(&hooks_lock);
	return res;
}

static void hook_register(const char *name)
{
	pthread_mutex_lock(&hooks_lock);
	snprintf(hooks[nhooks].name, sizeof(hooks[nhooks].name), "%s", name);
	if (nhooks % 2)
		hooks[nhooks].opts = (struct hook_opts){ .priority = nhooks, .timeout_ms = 10, .tag = "custom" };
	nhooks++;
	pthread_mutex_unlock(&hooks_lock);
}

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;
	int i;

	for (i = 0; i < IT; i++) {
		struct hook_opts o;
		int idx = (int)(i + id) % NHOOK;
		sum += hook_effective(idx, &o);
		sum += strcmp(o.tag, idx % 2 ? "custom" : "default") ? 100000 : 0;
		if (i % 50 == 0) {
			char *d = hook_describe(idx);
			sum += d && strchr(d, '/') ? 0 : 100000;
			free(d);
		}
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;
	char name[16];
	void *r;

	for (i = 0; i < NHOOK; i++) {
		snprintf(name, sizeof(name), "hook%ld", i);
		hook_register(name);
	}
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("sum %ld frees %lu\n", sum, frees);
	return sum == NT * (IT / 8) * (50 * 4 + 1 + 3 + 5 + 7) && frees == NT * IT / 50 ? 0 : 1;
}
