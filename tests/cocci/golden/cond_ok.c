/* Golden: condition variables with the mutex, init/destroy, static
 * initializers. */
#include <pthread.h>
#include <time.h>

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t ready;
	int avail;
};

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t opened = PTHREAD_COND_INITIALIZER;
static int is_open;

int pool_init(struct pool *p, int n)
{
	int rc = pthread_mutex_init(&p->mu, NULL);

	if (rc == 0)
		rc = pthread_cond_init(&p->ready, NULL);
	p->avail = n;
	return rc;
}

void pool_take(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->avail == 0)
		pthread_cond_wait(&p->ready, &p->mu);
	p->avail--;
	pthread_mutex_unlock(&p->mu);
}

void pool_give(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->avail++;
	pthread_cond_signal(&p->ready);
	pthread_mutex_unlock(&p->mu);
}

int wait_open(const struct timespec *deadline)
{
	int rc = 0;

	pthread_mutex_lock(&gate);
	while (!is_open && rc == 0)
		rc = pthread_cond_timedwait(&opened, &gate, deadline);
	pthread_mutex_unlock(&gate);
	return rc;
}

void open_gate(void)
{
	pthread_mutex_lock(&gate);
	is_open = 1;
	pthread_cond_broadcast(&opened);
	pthread_mutex_unlock(&gate);
}

void pool_fini(struct pool *p)
{
	pthread_cond_destroy(&p->ready);
	pthread_mutex_destroy(&p->mu);
}
