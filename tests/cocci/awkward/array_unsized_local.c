/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Local tables sized by their initialisers and walked with the usual
   ARRAY_SIZE() macro inside the section: the extracted function must
   know how many elements the compiler counted. */
#include <pthread.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NT 3

static pthread_mutex_t quota_lock = PTHREAD_MUTEX_INITIALIZER;
static long quota[4];
static unsigned long refills;

static void refill(void)
{
	const int caps[] = { 50, 20, 5, 1000 };
	static const char *const names[][2] = { { "a", "b" }, { "c", "d" } };
	size_t k;
	int spent = 0;

	pthread_mutex_lock(&quota_lock);
	for (k = 0; k < ARRAY_SIZE(caps); k++) {
		if (quota[k] < caps[k]) {
			spent += caps[k] - (int)quota[k];
			quota[k] = caps[k];
		}
	}
	refills += ARRAY_SIZE(names) + (names[1][0][0] == 'c');
	pthread_mutex_unlock(&quota_lock);
	if (spent < 0)
		puts("negative");
}

static int take(int k, int n)
{
	int ok;

	pthread_mutex_lock(&quota_lock);
	ok = quota[k] >= n;
	if (ok)
		quota[k] -= n;
	pthread_mutex_unlock(&quota_lock);
	return ok;
}

static void *user(void *arg)
{
	long me = (long)arg, got = 0;
	int i;

	for (i = 0; i < 3000; i++) {
		got += take((int)((me + i) & 3), 1 + (i & 1));
		if (i % 100 == 0)
			refill();
	}
	return (void *)got;
}

int main(void)
{
	pthread_t th[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, user, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	refill();
	printf("quota %ld %ld %ld %ld refills %lu\n", quota[0], quota[1],
	       quota[2], quota[3], refills);
	return refills == (NT * 30 + 1) * 3 ? 0 : 1;
}
