/* Golden: lock and unlock calls in the branches this build does not
 * compile (opendkim's `#else` of HAVE_REALPATH) are renamed with the
 * converted lock's, so that a build that compiles them hands liblock its
 * own type; a call there that names a lock the tool cannot tell (a
 * field of the result of a call through a function pointer) keeps the
 * locks it may name POSIX. */
#include <pthread.h>

struct cache {
	pthread_mutex_t mu;
	int n;
};

struct table {
	pthread_mutex_t mu;
	int rows;
};

extern struct table *(*table_of)(struct cache *c);

static pthread_mutex_t pw_lock = PTHREAD_MUTEX_INITIALIZER;
static int hits;

int lookup(int k)
{
	pthread_mutex_lock(&pw_lock);
	hits++;
	if (k < 0) {
#ifdef RCL_GOLDEN_NEVER
		pthread_mutex_unlock(&pw_lock);
		return -1;
#else
		pthread_mutex_unlock(&pw_lock);
		return -2;
#endif
	}
	pthread_mutex_unlock(&pw_lock);
	return k;
}

void fill(struct cache *c, struct table *t)
{
	pthread_mutex_lock(&c->mu);
	c->n++;
	pthread_mutex_unlock(&c->mu);
#ifdef RCL_GOLDEN_NEVER
	pthread_mutex_lock(&table_of(c)->mu);
	t->rows++;
	pthread_mutex_unlock(&table_of(c)->mu);
#endif
	(void)t;
}

void setup(struct cache *c, struct table *t)
{
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&t->mu, NULL);
}
