/* Golden: one lock whose sections are delegated and held side by side.
 * The held ones (a function that returns with
 * the lock held and the unlock in its caller through an unlock
 * wrapper, a condition wait in a section that returns holding the lock,
 * a section calling a function that lets go of the lock and takes it
 * back) keep their place and call liblock_lock,
 * liblock_trylock and liblock_unlock on the same lock; the cond wait
 * becomes liblock_cond_wait.  The trylock through a macro, if (TRY() != 0)
 * return; BODY unlock, runs through rcl_tryexec(). */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>

#define CACHE_LOCK() pthread_mutex_lock(&cache_lock)
#define CACHE_UNLOCK() pthread_mutex_unlock(&cache_lock)
#define CACHE_TRYLOCK() pthread_mutex_trylock(&cache_lock)

struct item {
	int key, val;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cache_cond = PTHREAD_COND_INITIALIZER;
static struct item items[16];
static int nitems, hits;

int cache_count(void)
{
	int n;

	CACHE_LOCK();
	n = nitems;
	CACHE_UNLOCK();
	return n;
}

int cache_try_hit(void)
{
	if (CACHE_TRYLOCK() != 0)
		return -1;
	hits++;
	CACHE_UNLOCK();
	return 0;
}

struct item *item_get_locked(int key)
{
	int i;

	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < nitems; i++)
		if (items[i].key == key)
			return &items[i];
	pthread_mutex_unlock(&cache_lock);
	return NULL;
}

void item_release(void)
{
	CACHE_UNLOCK();
}

static void release_and_count(void)
{
	hits++;
	pthread_mutex_unlock(&cache_lock);
}

void cache_put(int key, int val)
{
	pthread_mutex_lock(&cache_lock);
	while (nitems == 16)
		pthread_cond_wait(&cache_cond, &cache_lock);
	items[nitems].key = key;
	items[nitems].val = val;
	nitems++;
	if (nitems == 1) {
		release_and_count();
		return;
	}
	pthread_mutex_unlock(&cache_lock);
}

static void let_others_in(void)
{
	pthread_mutex_unlock(&cache_lock);
	sched_yield();
	pthread_mutex_lock(&cache_lock);
}

int cache_twice(void)
{
	int n;

	pthread_mutex_lock(&cache_lock);
	n = nitems;
	let_others_in();
	n += nitems;
	pthread_mutex_unlock(&cache_lock);
	return n;
}

void cache_drop(void)
{
	pthread_mutex_lock(&cache_lock);
	if (nitems > 0)
		nitems--;
	pthread_cond_signal(&cache_cond);
	pthread_mutex_unlock(&cache_lock);
}

/* A second lock, taken only through static wrappers and only by held
 * sections: the wrappers call liblock, no _rcl_exec companion is made. */
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static int log_lines;

static void log_acquire(void)
{
	pthread_mutex_lock(&log_mutex);
}

static void log_release(void)
{
	pthread_mutex_unlock(&log_mutex);
}

int log_begin(void)
{
	log_acquire();
	return log_lines++;
}

void log_end(void)
{
	log_release();
}
