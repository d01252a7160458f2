/* SPDX-License-Identifier: MIT */
/* opendkim's dkimf_checkfsnode() shape: a local pointer set in one
   branch of the function and, in another, inside a section that may
   leave before setting it (an early unlock and return).  Copied into
   the context, it would be read while indeterminate on that path (GCC:
   "may be used uninitialized"); the section reaches the caller's
   object by pointer instead, and is delegated. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define WORKERS 3
#define ROUNDS 300

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *names[16];
static long described;

static int describe(int mode, int key, char *buf, size_t len)
{
	const char *name;

	if (mode == 0) {
		name = "none";
		snprintf(buf, len, "%s", name);
		return 0;
	} else if (mode == 1) {
		pthread_mutex_lock(&names_lock);
		if (key < 0) {
			pthread_mutex_unlock(&names_lock);
			return -1;
		}
		name = names[key & 15];
		if (name == NULL) {
			pthread_mutex_unlock(&names_lock);
			return -1;
		}
		snprintf(buf, len, "%s", name);
		described++;
		pthread_mutex_unlock(&names_lock);
	}
	return 1;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	long sum = 0;
	char buf[32];
	int r;

	for (r = 0; r < ROUNDS; r++) {
		sum += describe(1, (int)(id + r), buf, sizeof buf);
		sum += describe(0, 0, buf, sizeof buf);
		sum += describe(1, -1, buf, sizeof buf);
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t th[WORKERS];
	long k, total = 0;
	void *ret;

	names[3] = "three";
	names[7] = "seven";
	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)k);
	for (k = 0; k < WORKERS; k++) {
		pthread_join(th[k], &ret);
		total += (long)ret;
	}
	printf("total %ld described %ld\n", total, described);
	return 0;
}
