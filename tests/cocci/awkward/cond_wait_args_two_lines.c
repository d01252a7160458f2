/* SPDX-License-Identifier: MIT */
/* dav1d's decode.c writes long condition waits over two lines,
   `pthread_cond_wait(&f->task_thread.cond,\n &c->task_thread.lock);`.
   When the tool's own reading cannot tell the structure of a field that
   several structures have (here the local's type is __auto_type; in
   dav1d, a typedef it had skipped), it asks the compiler, which has the
   member reference on the second line: the question was asked for the
   first line, and every structure with a field `lock` stayed POSIX
   ("cannot tell which structure's field 'lock'"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
};

struct counter {
	pthread_mutex_t lock;
	int n;
};

static struct gate gate = { PTHREAD_MUTEX_INITIALIZER,
			    PTHREAD_COND_INITIALIZER, 0 };
static struct counter counter = { PTHREAD_MUTEX_INITIALIZER, 0 };

static void *opener(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&counter.lock);
	counter.n++;
	pthread_mutex_unlock(&counter.lock);
	pthread_mutex_lock(&gate.lock);
	gate.open = 1;
	pthread_cond_signal(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, opener, NULL);
	__auto_type g = &gate;
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond,
				  &g->lock);
	pthread_mutex_unlock(&g->lock);
	pthread_join(t, NULL);
	printf("open %d n %d\n", gate.open, counter.n);
	return gate.open == 1 && counter.n == 1 ? 0 : 1;
}
