/* SPDX-License-Identifier: MIT */
/* zstd JOB_ERROR()-style: a do { } while (0) macro that takes the job's
   mutex through the caller's local 'job' (not a parameter of the macro),
   adds the error code up, releases the mutex and jumps to the function's
   error label.  The job's mutex is also taken through another expression
   of the same field (&jobs[i].mu, and &job->mu) in other functions. */
/* expect: held in the body of macro JOB_FAIL */
/* expect: held another expression */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300
#define NJOBS 3

struct job {
	pthread_mutex_t mu;
	pthread_cond_t done_cv;
	long errors, done, err_sum;
};

static struct job jobs[NJOBS];

#define JOB_FAIL(err)                              \
	do {                                       \
		pthread_mutex_lock(&job->mu);      \
		job->errors++;                     \
		job->err_sum += (err);             \
		pthread_mutex_unlock(&job->mu);    \
		goto out;                          \
	} while (0)

static int run_job(struct job *job, long step)
{
	if (step % 7 == 0)
		JOB_FAIL(-7);
	if (step % 5 == 0)
		JOB_FAIL(-5);
	pthread_mutex_lock(&job->mu);
	job->done++;
	pthread_cond_broadcast(&job->done_cv);
	pthread_mutex_unlock(&job->mu);
	return 0;
out:
	return -1;
}

static long total(void)
{
	long s = 0;
	int i;

	for (i = 0; i < NJOBS; i++) {
		struct job *jp = &jobs[i];

		pthread_mutex_lock(&jp->mu);
		s += jobs[i].done * 1000 + jobs[i].errors;
		pthread_mutex_unlock(&jobs[i].mu);
	}
	return s;
}

static void *worker(void *arg)
{
	long id = (long)arg, i, fails = 0;

	for (i = 0; i < IT; i++)
		fails += run_job(&jobs[(i + id) % NJOBS], i + id) != 0;
	return (void *)fails;
}

int main(void)
{
	pthread_t t[NT];
	long i, fails = 0;

	for (i = 0; i < NJOBS; i++) {
		pthread_mutex_init(&jobs[i].mu, NULL);
		pthread_cond_init(&jobs[i].done_cv, NULL);
	}
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		void *r;

		pthread_join(t[i], &r);
		fails += (long)r;
	}
	/* wait until the last job has been counted (it has, after join) */
	pthread_mutex_lock(&jobs[NJOBS - 1].mu);
	while (jobs[NJOBS - 1].done == 0)
		pthread_cond_wait(&jobs[NJOBS - 1].done_cv,
				  &jobs[NJOBS - 1].mu);
	pthread_mutex_unlock(&jobs[NJOBS - 1].mu);
	printf("fails %ld total %ld\n", fails, total());
	for (i = 0; i < NJOBS; i++)
		printf("job %ld: error sum %ld\n", i, jobs[i].err_sum);
	for (i = 0; i < NJOBS; i++) {
		pthread_cond_destroy(&jobs[i].done_cv);
		pthread_mutex_destroy(&jobs[i].mu);
	}
	return 0;
}
