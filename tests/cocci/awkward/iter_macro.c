/* SPDX-License-Identifier: MIT */
/* Iterator macros that expand to a for header, used with a block as if
 * they were statements: RB-tree and list walks (unbound's RBTREE_FOR,
 * the kernel's list_for_each_entry).  One section sits inside such a
 * loop, another walks the list with the lock held, with a break. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct node {
	struct node *next;
	pthread_mutex_t lock;
	long hits;
	int key;
};

#define NODE_FOR(n, head) for ((n) = (head); (n); (n) = (n)->next)
#define SLOT_EACH(i, count) for ((i) = 0; (i) < (count); (i)++)

#define NNODES 6
#define NT 3
#define IT 2000

static struct node nodes[NNODES];
static struct node *head;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static long found_total;

static void *worker(void *arg)
{
	struct node *n;
	int i, want;

	SLOT_EACH(i, IT) {
		want = (i * 5 + (int)(long)arg) % (NNODES + 1);
		NODE_FOR(n, head) {
			pthread_mutex_lock(&n->lock);
			if (n->key == want)
				n->hits++;
			pthread_mutex_unlock(&n->lock);
		}
		pthread_mutex_lock(&list_lock);
		NODE_FOR(n, head) {
			if (n->key == want) {
				found_total++;
				break;
			}
		}
		pthread_mutex_unlock(&list_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	struct node *n;
	long i, sum = 0;

	for (i = NNODES - 1; i >= 0; i--) {
		nodes[i].key = (int)i;
		nodes[i].next = head;
		pthread_mutex_init(&nodes[i].lock, NULL);
		head = &nodes[i];
	}
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	NODE_FOR(n, head) {
		printf("node %d: %ld\n", n->key, n->hits);
		sum += n->hits;
	}
	printf("hits %ld, found %ld\n", sum, found_total);
	return sum == found_total ? 0 : 1;
}
