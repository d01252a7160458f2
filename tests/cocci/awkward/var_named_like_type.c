/*
 * Variables named like their own typedef, memcached's `void
 * item_remove(item *item)`: a common habit where a type has a short
 * name.  The sections pass such a variable to the extracted function,
 * alone (a pointer, an integer's address) or with another; in the extracted
 * function's `item *item = ...;` the typedef is already hidden by the
 * variable being declared, so no cast there may name the typedef.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef struct item {
	int refs;
	long bytes;
} item;
typedef unsigned long tick;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long live_bytes;
static tick clock_now;

static void do_release(item *it)
{
	if (--it->refs == 0)
		live_bytes -= it->bytes;
}

static void do_link(item *it, long extra)
{
	it->refs++;
	live_bytes += extra;
}

static void do_advance(tick t)
{
	if (t > clock_now)
		clock_now = t;
}

static void item_release(item *item)
{
	pthread_mutex_lock(&cache_lock);
	do_release(item);
	pthread_mutex_unlock(&cache_lock);
}

static void item_link(item *item, long extra)
{
	pthread_mutex_lock(&cache_lock);
	do_link(item, extra);
	pthread_mutex_unlock(&cache_lock);
}

static void advance(tick tick)
{
	pthread_mutex_lock(&cache_lock);
	do_advance(tick);
	pthread_mutex_unlock(&cache_lock);
}

static void *run(void *arg)
{
	item *slots = arg;

	for (int i = 0; i < 1000; i++) {
		item_link(&slots[i], 1);
		item_release(&slots[i]);
		item_release(&slots[i]);
		advance((tick)i);
	}
	return NULL;
}

int main(void)
{
	static item pool[2][1000];
	pthread_t th[2];

	for (int t = 0; t < 2; t++)
		for (int i = 0; i < 1000; i++) {
			pool[t][i].refs = 1;
			pool[t][i].bytes = i;
			live_bytes += i;
		}
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, run, pool[t]);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	printf("live %ld, clock %lu\n", live_bytes, clock_now);
	return 0;
}
