/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include "box.h"

void note(void);
int note_count(void);

#define NT 4
#define IT 1000

static void *worker(void *arg)
{
	long i;

	for (i = 0; i < IT; i++) {
		box_add((long)arg + 1);
		if (i % 10 == 0)
			note();
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
	printf("total %ld notes %d\n", box_total(), note_count());
	return box_total() == 10L * IT && note_count() == NT * IT / 10 ? 0 : 1;
}
