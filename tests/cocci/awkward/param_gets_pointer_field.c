/* SPDX-License-Identifier: MIT */
/* expect: held locked through parameter 'lk' of emit_total() */
/* Jobs keep a pointer to the lock of the report they add to
   (`pthread_mutex_t *report_lock`, set to the address of one mutex),
   and a helper takes the lock it is given: the jobs pass their pointer
   field, main() the mutex's address (btrfs-progs' scrub_write_progress()
   gets `&spc_write_mutex` and `spc->write_mutex`).  The pointer and the
   mutex move together; the helper's section is held, on whichever lock
   it is given. */
#include <pthread.h>
#include <stdio.h>

#define NJOBS 4
#define STEPS 5000

struct report {
	long lines;
	long bytes;
};

struct job {
	pthread_mutex_t *report_lock;
	struct report *rep;
	int width;
};

static void emit_total(pthread_mutex_t *lk, struct report *r, long n)
{
	pthread_mutex_lock(lk);
	r->bytes += n;
	r->lines++;
	pthread_mutex_unlock(lk);
}

static void *job_main(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < STEPS; i++) {
		if (i % 3 == 0) {
			pthread_mutex_lock(j->report_lock);
			j->rep->lines += 2;
			pthread_mutex_unlock(j->report_lock);
		} else {
			emit_total(j->report_lock, j->rep, j->width + i % 7);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_mutex_t report_mu;
	struct report rep = { 0, 0 };
	struct job jobs[NJOBS];
	pthread_t tid[NJOBS];

	pthread_mutex_init(&report_mu, NULL);
	for (int i = 0; i < NJOBS; i++) {
		jobs[i].report_lock = &report_mu;
		jobs[i].rep = &rep;
		jobs[i].width = 10 * (i + 1);
		pthread_create(&tid[i], NULL, job_main, &jobs[i]);
	}
	for (int i = 0; i < NJOBS; i++)
		pthread_join(tid[i], NULL);
	emit_total(&report_mu, &rep, 1);
	printf("lines %ld bytes %ld\n", rep.lines, rep.bytes);
	pthread_mutex_destroy(&report_mu);
	return 0;
}
