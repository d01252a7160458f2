/*
 * Lock fields declared through a function-like macro, as libwebsockets'
 * plugins declare theirs (`lws_pthread_mutex(lock)`, which expands to
 * nothing in a single-threaded build).  The macro declares fields of two
 * structures; each invocation is its own field, converted where it is.
 * A server's mirror list: threads look a mirror up by name under the
 * list's lock, then count messages under the mirror's own.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SMP 2

#if MAX_SMP > 1
#define obj_mutex(name) pthread_mutex_t name;
#else
#define obj_mutex(name)
#endif

struct mirror {
	struct mirror *next;
	obj_mutex(lock) /* protects messages and bytes */
	long messages;
	long bytes;
	char name[16];
};

struct vhost_data {
	obj_mutex(lock) /* protects the list */
	struct mirror *list;
	int nmirrors;
};

static struct vhost_data vhd;

static struct mirror *mirror_get(struct vhost_data *v, const char *name)
{
	struct mirror *mi;

	pthread_mutex_lock(&v->lock);
	for (mi = v->list; mi; mi = mi->next)
		if (strcmp(mi->name, name) == 0)
			break;
	if (!mi) {
		mi = calloc(1, sizeof(*mi));
		if (!mi)
			abort();
		snprintf(mi->name, sizeof(mi->name), "%s", name);
		pthread_mutex_init(&mi->lock, NULL);
		mi->next = v->list;
		v->list = mi;
		v->nmirrors++;
	}
	pthread_mutex_unlock(&v->lock);
	return mi;
}

static void mirror_post(struct mirror *mi, long len)
{
	pthread_mutex_lock(&mi->lock);
	mi->messages++;
	mi->bytes += len;
	pthread_mutex_unlock(&mi->lock);
}

static void *client(void *arg)
{
	static const char *names[] = { "chat", "news", "logs" };
	long id = (long)arg;

	for (long i = 0; i < 6000; i++)
		mirror_post(mirror_get(&vhd, names[(id + i) % 3]), 10 + i % 4);
	return NULL;
}

int main(void)
{
	pthread_t th[4];
	long total = 0;

	pthread_mutex_init(&vhd.lock, NULL);
	for (long t = 0; t < 4; t++)
		if (pthread_create(&th[t], NULL, client, (void *)t) != 0)
			abort();
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	for (struct mirror *mi = vhd.list; mi; mi = mi->next)
		total += mi->messages;
	printf("%d mirrors, %ld messages\n", vhd.nmirrors, total);
	for (const char *n = "chat"; n; n = strcmp(n, "chat") == 0 ? "news" :
	     strcmp(n, "news") == 0 ? "logs" : NULL) {
		struct mirror *mi = mirror_get(&vhd, n);

		printf("%s: %ld messages, %ld bytes\n", mi->name, mi->messages,
		       mi->bytes);
	}
	return 0;
}
