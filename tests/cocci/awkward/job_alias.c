/* SPDX-License-Identifier: MIT */
/* zstd-style: the job's mutex locked as &jobs[i].mu and unlocked through
   a pointer to the job.  That they are the same object is not provable
   from the text: the section is not extracted, and stays held (both
   calls become liblock ones on the lock word), with the reason. */
/* expect: held another expression */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300
#define NJOBS 4

struct job {
	pthread_mutex_t mu;
	long done;
};

static struct job jobs[NJOBS];

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		int j = (int)((i + id) % NJOBS);
		struct job *job = &jobs[j];

		pthread_mutex_lock(&jobs[j].mu);
		job->done++;
		pthread_mutex_unlock(&job->mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;

	for (i = 0; i < NJOBS; i++)
		pthread_mutex_init(&jobs[i].mu, NULL);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NJOBS; i++)
		sum += jobs[i].done;
	printf("sum %ld\n", sum);
	return sum == NT * IT ? 0 : 1;
}
