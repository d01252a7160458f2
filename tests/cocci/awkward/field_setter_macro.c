/* SPDX-License-Identifier: MIT */
/* A structure keeps a pointer to the mutex its user gives, set through a
   setter that a macro defines from the field's name (rsyslog's property
   setters).  The tool does not follow what the macro's expansion does
   with the field: converted, the field would be assigned a
   pthread_mutex_t * there.  The lock stays POSIX, and says why. */
/* expect: refused macro DEF_SETTER */
#include <pthread.h>
#include <stdio.h>

#define DEF_SETTER(obj, prop, type)                                            \
	static void obj##_set_##prop(struct obj *o, type *v)                   \
	{                                                                      \
		o->prop = v;                                                   \
	}

#define NT 4
#define IT 2000

struct counter {
	pthread_mutex_t *user_mu;
	long n;
};

DEF_SETTER(counter, user_mu, pthread_mutex_t)

static pthread_mutex_t given_mu = PTHREAD_MUTEX_INITIALIZER;
static struct counter shared;

static void bump(struct counter *c)
{
	pthread_mutex_lock(c->user_mu);
	c->n++;
	pthread_mutex_unlock(c->user_mu);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		bump(&shared);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	counter_set_user_mu(&shared, &given_mu);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("n %ld\n", shared.n);
	return shared.n == (long)NT * IT ? 0 : 1;
}
