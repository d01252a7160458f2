/*
 * The locks and the data they guard are locals of main(), handed to the
 * workers through pointers in their argument structures: a common way to
 * avoid globals.  main() runs once and its return ends the workers, so
 * its outermost locals live as long as a static would; each mutex and
 * the pointer to it are converted together, and the sections through the
 * pointers are delegated.  One mutex has a static initialiser, the other
 * is initialised by a call; both are destroyed before main() returns
 * (main_local_leak.c is the one that is not).
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct shared_ref {
	pthread_mutex_t *mu;
	pthread_mutex_t *log_mu;
	long *total;
	long *log_lines;
};

struct worker {
	struct shared_ref ref;
	int me;
	int rounds;
};

static void *add_up(void *p)
{
	struct worker *w = p;

	for (int r = 0; r < w->rounds; r++) {
		pthread_mutex_lock(w->ref.mu);
		*w->ref.total += w->me + r % 3;
		pthread_mutex_unlock(w->ref.mu);
		if (r % 100 == 0) {
			pthread_mutex_lock(w->ref.log_mu);
			(*w->ref.log_lines)++;
			pthread_mutex_unlock(w->ref.log_mu);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_t log_mu;
	long total = 0, log_lines = 0;
	struct worker ws[3];
	pthread_t th[3];

	pthread_mutex_init(&log_mu, NULL);
	for (int i = 0; i < 3; i++) {
		ws[i].ref.mu = &mu;
		ws[i].ref.log_mu = &log_mu;
		ws[i].ref.total = &total;
		ws[i].ref.log_lines = &log_lines;
		ws[i].me = i;
		ws[i].rounds = 20000;
		pthread_create(&th[i], NULL, add_up, &ws[i]);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_lock(&log_mu);
	printf("total %ld, %ld log lines\n", total, log_lines);
	pthread_mutex_unlock(&log_mu);
	pthread_mutex_destroy(&log_mu);
	pthread_mutex_destroy(&mu);
	return 0;
}
