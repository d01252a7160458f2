/* SPDX-License-Identifier: MIT */
/* The same work queue's handlers set up at run time: a setter stores a
   handler given by its caller into the structure's `cancel` field, and
   the shutdown path copies `cancel` into `run` before the job goes
   through the queue once more.  A handler that ends its thread
   (stop_worker(), handed to the setter) can therefore be behind the
   section's call of `run`: the section is held (on a server thread the
   exit would end the server, holding the lock). */
/* expect: held pthread_exit() in stop_worker() */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

typedef void job_fn(void *arg);

struct job_ops {
	job_fn *run;
	job_fn *cancel;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void add_job(void *arg)
{
	total += *(long *)arg;
}

static void stop_worker(void *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static void ops_set_cancel(struct job_ops *o, job_fn *fn)
{
	o->cancel = fn;
}

static void run_job(struct job_ops *o, long *arg)
{
	pthread_mutex_lock(&queue_lock);
	o->run(arg);
	pthread_mutex_unlock(&queue_lock);
}

static void *worker(void *arg)
{
	struct job_ops o = {add_job, NULL};
	long v = (long)arg;
	int i;

	ops_set_cancel(&o, stop_worker);
	for (i = 0; i < IT; i++) {
		v = (v * 7 + i) % 101;
		run_job(&o, &v);
	}
	if (v < 0) { /* never: the values stay in 0..100 */
		o.run = o.cancel;
		run_job(&o, &v);
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
	printf("total %ld\n", total);
	return 0;
}
