/* SPDX-License-Identifier: MIT */
/* A work queue in the style of a directory server's thread pool: each
   job carries its handlers in a structure (`run` for the work, `cancel`
   for a job dropped at shutdown), and the queue's section calls the job's
   `run` handler.  A handler of the same type, stop_worker(), ends its
   thread with pthread_exit(): it is stored in `cancel`, never in `run`,
   and its address is otherwise only compared (is this the stop job?).
   Jobs are linked by a header that begins each of them and found again
   by casting the header back (the key says which kind of job it is).
   The thread routine reaches pthread_create() through the program's own
   wrapper.  Only `run`'s handlers can be behind the section's call, and
   none of them ends the thread: the section moves. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

typedef void job_fn(void *arg);

struct job_ops {
	const char *name;
	job_fn *run;
	job_fn *cancel;
};

struct link {
	struct link *next;
	void *key;
};

struct job {
	struct link l;
	const struct job_ops *ops;
	long arg;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static long total, squares;

static void add_job(void *arg)
{
	total += *(long *)arg;
}

static void square_job(void *arg)
{
	long v = *(long *)arg;

	squares += v * v % 1009;
}

static void stop_worker(void *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static const struct job_ops adder = {"add", add_job, NULL};
static const struct job_ops squarer = {.cancel = NULL, .run = square_job,
				       .name = "square"};
static const struct job_ops stopper = {"stop", NULL, stop_worker};

static int is_stop(const struct link *l)
{
	return l->key == (void *)stop_worker;
}

static void run_job(struct link *l)
{
	struct job *j = (struct job *)l;

	pthread_mutex_lock(&queue_lock);
	if (j->ops->run)
		(*j->ops->run)(&j->arg);
	pthread_mutex_unlock(&queue_lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	struct job j;
	int i;

	for (i = 0; i < IT; i++) {
		j.ops = (i + id) % 3 ? &adder : &squarer;
		j.l.key = NULL;
		j.arg = i + id;
		if (!is_stop(&j.l))
			run_job(&j.l);
	}
	j.ops = &stopper;
	j.l.key = (void *)stop_worker;
	if (is_stop(&j.l) && j.ops->cancel)
		j.ops->cancel(NULL);
	return NULL;
}

static int thread_start(pthread_t *t, void *(*start)(void *), void *arg)
{
	return pthread_create(t, NULL, start, arg);
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		if (thread_start(&t[i], worker, (void *)i) != 0)
			return 1;
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld squares %ld\n", total, squares);
	return 0;
}
