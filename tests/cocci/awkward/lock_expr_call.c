/* SPDX-License-Identifier: MIT */
/* expect: held calls bucket_counted(), which may have a side effect */
/* Lock expressions that call a function.  The lock and the unlock each
   evaluate theirs; a delegated section's call evaluates it once.  An
   accessor that counts its lookups must keep both evaluations (the
   section stays in place); accessors that change nothing, through a
   macro, a hash function with locals of its own and a library call, are
   delegated. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NBUCKETS 4
#define NWORKERS 3
#define ROUNDS 3000

struct bucket {
	pthread_mutex_t lock;
	long n;
};

static struct bucket bs[NBUCKETS];
/* counted outside the lock too: the lock's argument is evaluated before
   it is taken */
static _Atomic long lookups;

static struct bucket *bucket_counted(int k)
{
	lookups++;
	return &bs[k % NBUCKETS];
}

static unsigned hash_name(const char *s)
{
	unsigned h = 5381;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)s[i];
	return h;
}

static struct bucket *bucket_of(int k)
{
	return &bs[k % NBUCKETS];
}

#define NAMED_BUCKET(s) (&bs[hash_name(s) % NBUCKETS])

static const char *names[] = { "alpha", "beta", "gamma", "delta" };

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int k = 0; k < ROUNDS; k++) {
		pthread_mutex_lock(&bucket_counted(k)->lock);
		bs[k % NBUCKETS].n += id;
		pthread_mutex_unlock(&bucket_counted(k)->lock);
		pthread_mutex_lock(&bucket_of(k)->lock);
		bucket_of(k)->n++;
		pthread_mutex_unlock(&bucket_of(k)->lock);
		pthread_mutex_lock(&NAMED_BUCKET(names[k % 4])->lock);
		NAMED_BUCKET(names[k % 4])->n += 2;
		pthread_mutex_unlock(&NAMED_BUCKET(names[k % 4])->lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	long sum = 0;

	for (int i = 0; i < NBUCKETS; i++)
		pthread_mutex_init(&bs[i].lock, NULL);
	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NBUCKETS; i++)
		sum += bs[i].n;
	/* pthread_mutex_lock/unlock made two lookups per section */
	printf("sum %ld lookups %ld\n", sum, (long)lookups);
	return lookups == 2L * NWORKERS * ROUNDS ? 0 : 1;
}
