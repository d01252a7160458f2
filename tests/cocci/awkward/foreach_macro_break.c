/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The usual lookup, TAILQ_FOREACH(it, &items, link) if (it->key ==
 * key) break;  inside the section.
 * Before: held, "break leaves the section with the lock held": the
 * loop the break belongs to is in the macro's expansion (inside the
 * section), the tool only sees the text.  OVER-REFUSAL for the ubiquitous
 * FOREACH-and-break lookup (sys/queue.h, list_for_each_entry-style
 * macros).  (Once delegated, the iteration variable written by a
 * system-header macro must also come back: see sysmacro_foreach_var.c.) */
#include <pthread.h>
#include <stdio.h>
#include <sys/queue.h>

struct item { int key; long refs; TAILQ_ENTRY(item) link; };
static TAILQ_HEAD(, item) items = TAILQ_HEAD_INITIALIZER(items);
static struct item pool[16];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static int ref(int key)
{
	struct item *it = NULL;
	pthread_mutex_lock(&m);
	TAILQ_FOREACH(it, &items, link)
		if (it->key == key)
			break;
	if (it)
		it->refs++;
	pthread_mutex_unlock(&m);
	if (it == NULL)
		return -1;
	return it->key;
}

static void *worker(void *arg)
{
	long id = (long)arg, miss = 0;
	for (int i = 0; i < 1000; i++)
		if (ref((int)((i + id) % 20)) < 0)
			miss++;
	return (void *)miss;
}

int main(void)
{
	pthread_t t[3];
	long s = 0, refs = 0;
	void *r;
	for (int i = 0; i < 16; i++) {
		pool[i].key = i;
		TAILQ_INSERT_TAIL(&items, &pool[i], link);
	}
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		s += (long)r;
	}
	for (int i = 0; i < 16; i++)
		refs += pool[i].refs;
	printf("miss %ld refs %ld\n", s, refs);
	return 0;
}
