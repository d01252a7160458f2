/* Golden: field locks told apart through a typedef'd anonymous structure
 * (counter_t), a member chain (t->shards[i].ctr.mutex), an array of
 * structures, a typedef of a tagged structure (shard_t) and a cast. */
#include <pthread.h>

typedef struct {
	pthread_mutex_t mutex;
	long hits;
} counter_t;

struct shard {
	counter_t ctr;
	pthread_mutex_t mutex;
	int items;
};

typedef struct shard shard_t;

struct table {
	struct shard shards[4];
};

static struct table tab;

void table_init(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		pthread_mutex_init(&tab.shards[i].mutex, NULL);
		pthread_mutex_init(&tab.shards[i].ctr.mutex, NULL);
	}
}

void hit(struct table *t, int i)
{
	pthread_mutex_lock(&t->shards[i].ctr.mutex);
	t->shards[i].ctr.hits++;
	pthread_mutex_unlock(&t->shards[i].ctr.mutex);
}

void put(shard_t *s)
{
	pthread_mutex_lock(&s->mutex);
	s->items++;
	pthread_mutex_unlock(&s->mutex);
}

void add(void *p, int i, int n)
{
	pthread_mutex_lock(&((struct table *)p)->shards[i].mutex);
	((struct table *)p)->shards[i].items += n;
	pthread_mutex_unlock(&((struct table *)p)->shards[i].mutex);
}

void count(counter_t *c)
{
	pthread_mutex_lock(&c->mutex);
	c->hits++;
	pthread_mutex_unlock(&c->mutex);
}
