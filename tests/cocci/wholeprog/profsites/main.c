#include <stdio.h>
#include "pool.h"

#define NT 4
#define IT 20000

static void *run(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++) {
		pool_hit((int)id + i);
		if (i % 1000 == 0 && pool_sum() < 0)
			return NULL;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	pool_init();
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("sum %ld calls %ld\n", pool_sum(), pool_calls());
	return 0;
}
