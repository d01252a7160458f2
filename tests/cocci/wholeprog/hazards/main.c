#include <pthread.h>
#include <stdio.h>
#include "hz.h"

#define NTHREADS 4
#define ROUNDS 500

static void *worker(void *arg)
{
	long id = (long)arg;

	req_id = (int)id;
	for (int i = 0; i < ROUNDS; i++) {
		add_ok(i);
		add_logged(1);
		take(2);
		check(i & 7);
		quit_worker(1);
		tag(1);
		parse_into("12");
		retry(0);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	int i;

	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i) != 0) {
			fputs("pthread_create failed\n", stderr);
			return 1;
		}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("total %ld logged %ld left %ld checked %ld\n", add_ok(0),
	       add_logged(0), take(0), check(0));
	printf("quits %ld tagged %ld parsed %ld retries %ld notes %u\n",
	       quit_worker(0), tag(0), parse_into("0"), retry(0), notes_seen());
	return 0;
}
