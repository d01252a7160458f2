#include <pthread.h>
#include <stdio.h>
#include "tally.h"

void dec_step(int id, long n);
long dec_total(void);
void enc_init(int nthreads);
void enc_step(int id, long n);
long enc_total(void);
int plain_level(int preset);

#define THREADS 4
#define ROUNDS 20000

static void *run(void *arg)
{
	int id = (int)(long)arg;

	for (long i = 0; i < ROUNDS; i++) {
		dec_step(id, i % 7);
		enc_step(id, i % 5);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	enc_init(3);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("dec %ld enc %ld events %ld level %d\n", dec_total(),
	       enc_total(), tally.events, plain_level(0x36));
	return 0;
}
