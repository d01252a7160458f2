/* Golden: striped locks behind trivial wrapper functions (memcached's
 * item_lock/item_unlock), on a heap array of mutexes. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define mutex_lock(x) pthread_mutex_lock(x)
#define mutex_unlock(x) pthread_mutex_unlock(x)

static pthread_mutex_t *item_locks;
static unsigned int hashpower = 4;
static int refcount[1024];

void item_lock(uint32_t hv)
{
	mutex_lock(&item_locks[hv & ((1u << hashpower) - 1)]);
}

void item_unlock(uint32_t hv)
{
	mutex_unlock(&item_locks[hv & ((1u << hashpower) - 1)]);
}

int item_ref(uint32_t hv)
{
	int r;

	item_lock(hv);
	r = ++refcount[hv % 1024];
	item_unlock(hv);
	return r;
}

int locks_init(void)
{
	unsigned int i;

	item_locks = calloc(1u << hashpower, sizeof(pthread_mutex_t));
	if (item_locks == NULL)
		return -1;
	for (i = 0; i < (1u << hashpower); i++)
		pthread_mutex_init(&item_locks[i], NULL);
	return 0;
}
