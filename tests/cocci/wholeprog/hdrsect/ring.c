/* Not a unit of its own: main.c includes it, as libwebsockets' minimal
 * examples include their protocol_lws_minimal.c (built alone, it would
 * be a plugin, with its own includes). */
#if !defined(RING_STATIC)
#include <stdio.h>
#endif
#include <pthread.h>

struct ring {
	pthread_mutex_t lock_ring;
	int head;
	int slots[16];
	long described;
};

static const char *names[16] = { [3] = "three", [7] = "seven" };

static void ring_init(struct ring *r)
{
	pthread_mutex_init(&r->lock_ring, NULL);
	r->head = 0;
}

static void ring_push(struct ring *r, int v)
{
	pthread_mutex_lock(&r->lock_ring); /* --- ring lock { */
	r->slots[r->head % 16] += v;
	r->head++;
	pthread_mutex_unlock(&r->lock_ring); /* } ring lock --- */
}

/* opendkim's shape (awkward/uninit_copy_in.c): `name`, set in another
 * branch, is copied into the section's context on a path where it was
 * never set; GCC says so about this file, compiling main.c. */
static int ring_describe(struct ring *r, int mode, int key, char *buf,
			 size_t len)
{
	const char *name;

	if (mode == 0) {
		name = "none";
		snprintf(buf, len, "%s", name);
		return 0;
	} else if (mode == 1) {
		pthread_mutex_lock(&r->lock_ring);
		if (key < 0) {
			pthread_mutex_unlock(&r->lock_ring);
			return -1;
		}
		name = names[key & 15];
		if (name == NULL) {
			pthread_mutex_unlock(&r->lock_ring);
			return -1;
		}
		snprintf(buf, len, "%s", name);
		r->described++;
		pthread_mutex_unlock(&r->lock_ring);
	}
	return 1;
}
