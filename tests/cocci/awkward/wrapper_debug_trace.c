/* SPDX-License-Identifier: MIT */
/* expect: held unlock in another function */
/* lock wrapper pair with debug bookkeeping: trace each acquisition and
   release (site, lock name) when lock tracing is on, then call pthread */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mutex {
	pthread_mutex_t m;
	const char *name;
};

static int lock_trace;
static FILE *trace_fp;

static void mutex_lock(struct mutex *mx)
{
	if (lock_trace)
		fprintf(trace_fp, "lock %s\n", mx->name);
	pthread_mutex_lock(&mx->m);
}

static void mutex_unlock(struct mutex *mx)
{
	if (lock_trace)
		fprintf(trace_fp, "unlock %s\n", mx->name);
	pthread_mutex_unlock(&mx->m);
}


static struct mutex cache_mutex = { PTHREAD_MUTEX_INITIALIZER, "cache" };
static int cache[32];
static long cache_ops;

static void cache_put(int k, int v)
{
	mutex_lock(&cache_mutex);
	cache[k % 32] += v;
	cache_ops++;
	mutex_unlock(&cache_mutex);
}

static int cache_get(int k)
{
	int v;
	mutex_lock(&cache_mutex);
	v = cache[k % 32];
	cache_ops++;
	mutex_unlock(&cache_mutex);
	return v;
}

static void *thr(void *arg)
{
	int i;
	(void)arg;
	for (i = 0; i < 1000; i++)
		cache_put(i, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	int i, sum = 0;
	char line[128];
	long locks = 0, unlocks = 0;
	(void)argv;
	lock_trace = argc < 2 || strcmp(argv[1], "-q") != 0;
	trace_fp = tmpfile();
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thr, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 32; i++)
		sum += cache_get(i);
	rewind(trace_fp);
	while (fgets(line, sizeof(line), trace_fp)) {
		locks += strncmp(line, "lock cache", 10) == 0;
		unlocks += strstr(line, "unlock cache") != NULL;
	}
	printf("sum=%d ops=%ld traced locks=%ld unlocks=%ld\n", sum, cache_ops, locks, unlocks);
	return sum == 3000 && locks == cache_ops && unlocks == cache_ops ? 0 : 1;
}
