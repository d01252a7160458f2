/* SPDX-License-Identifier: MIT */
/* Kernel-style error paths: goto out_unlock inside the section, and an
   unlock followed by goto err. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 300

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int slots[32];
static int nfree = 32;
static long failed, ok;

static int take(int want)
{
	int ret = -1, i;

	pthread_mutex_lock(&pool_lock);
	if (nfree == 0)
		goto out_unlock;
	for (i = 0; i < 32; i++) {
		if (!slots[i]) {
			slots[i] = want;
			nfree--;
			ret = i;
			goto out_unlock;
		}
	}
out_unlock:
	pthread_mutex_unlock(&pool_lock);
	return ret;
}

static int give(int i)
{
	pthread_mutex_lock(&pool_lock);
	if (i < 0 || i >= 32 || !slots[i]) {
		failed++;
		pthread_mutex_unlock(&pool_lock);
		goto err;
	}
	slots[i] = 0;
	nfree++;
	ok++;
	pthread_mutex_unlock(&pool_lock);
	return 0;
err:
	return -1;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i, s;

	for (i = 0; i < IT; i++) {
		s = take((int)id + 1);
		if (s >= 0)
			give(s);
	}
	give(99);
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
	printf("ok %ld failed %ld free %d\n", ok, failed, nfree);
	return ok == NT * IT && failed == NT && nfree == 32 ? 0 : 1;
}
