/*
 * A library's private header pasted ahead of its users, the way many
 * C libraries lay theirs out: a C++ guard that opens a block no C
 * compiler sees, an `inline` spelt through a portability macro, and the
 * lock helpers as static inline functions taking the object.  Four
 * threads count requests per virtual host through the helpers.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_MSC_VER)
#define VH_INLINE __inline
#else
#define VH_INLINE inline
#endif

struct vhost {
	pthread_mutex_t lock;
	const char *name;
	long requests;
	long bytes;
};

static VH_INLINE void
vhost_lock(struct vhost *vh)
{
	pthread_mutex_lock(&vh->lock);
}

static VH_INLINE void
vhost_unlock(struct vhost *vh)
{
	pthread_mutex_unlock(&vh->lock);
}

#define NHOSTS 3
#define NTHREADS 4
#define ROUNDS 20000

static struct vhost hosts[NHOSTS];

static void account(struct vhost *vh, long len)
{
	vhost_lock(vh);
	vh->requests++;
	vh->bytes += len;
	vhost_unlock(vh);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < ROUNDS; i++)
		account(&hosts[(id + i) % NHOSTS], 100 + (i % 7));
	return NULL;
}

int main(void)
{
	static const char *names[NHOSTS] = { "www", "api", "static" };
	pthread_t th[NTHREADS];

	for (int i = 0; i < NHOSTS; i++) {
		pthread_mutex_init(&hosts[i].lock, NULL);
		hosts[i].name = names[i];
	}
	for (long t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)t) != 0)
			abort();
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < NHOSTS; i++) {
		vhost_lock(&hosts[i]);
		printf("%s %ld %ld\n", hosts[i].name, hosts[i].requests,
		       hosts[i].bytes);
		vhost_unlock(&hosts[i]);
		pthread_mutex_destroy(&hosts[i].lock);
	}
	return 0;
}

#ifdef __cplusplus
}
#endif
