/*
 * One initialiser macro gives a value to two mutexes of a pair (reader
 * side, writer side), used positionally in the initialiser of an
 * anonymous settings structure.  Neither the tokens nor the compiler can
 * say which use is which mutex on its own line, so both stay POSIX; the
 * settings' own lock, initialised directly, still converts.
 */
/* expect: refused initialises a mutex the tool cannot tell */
#include <pthread.h>
#include <stdio.h>

struct pair {
	pthread_mutex_t rd;
	pthread_mutex_t wr;
	long reads, writes;
};

#define PAIR_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, 0, 0}

static struct {
	int verbose;
	struct pair io;
	pthread_mutex_t lock;
	long rounds;
} settings = {
	0,
	PAIR_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER,
	0,
};

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&settings.io.rd);
		settings.io.reads++;
		pthread_mutex_unlock(&settings.io.rd);
		pthread_mutex_lock(&settings.io.wr);
		settings.io.writes += 2;
		pthread_mutex_unlock(&settings.io.wr);
	}
	pthread_mutex_lock(&settings.lock);
	settings.rounds++;
	pthread_mutex_unlock(&settings.lock);
	return arg;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("reads %ld writes %ld rounds %ld\n", settings.io.reads,
	       settings.io.writes, settings.rounds);
	return settings.io.reads == 3000 && settings.rounds == 3 ? 0 : 1;
}
