/* SPDX-License-Identifier: MIT */
/* expect: held the section declares another 'cur' */
/* A cursor whose address was handed out before the lock travels to the
   section by pointer; an inner block of the section declares its own
   pointer named cur, to the first value, tested for NULL (the first
   value is 0).  Only the outer cur may be read
   through the pointer: the section stays in place. */
#include <pthread.h>
#include <stdio.h>

struct node {
	struct node *next;
	int val;
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node nodes[8], *head;
static long visits, nonempty;

static void start(long *c)
{
	*c = 0;
}

static void *walker(void *arg)
{
	long cur;
	int i;

	(void)arg;
	for (i = 0; i < 5000; i++) {
		start(&cur);
		pthread_mutex_lock(&list_lock);
		cur++;
		{
			const int *cur = head ? &head->val : NULL;

			if (cur)
				nonempty++;
		}
		for (struct node *n = head; n; n = n->next)
			visits += n->val;
		pthread_mutex_unlock(&list_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	int i;

	for (i = 0; i < 8; i++) {
		nodes[i].val = i;
		nodes[i].next = i < 7 ? &nodes[i + 1] : NULL;
	}
	head = &nodes[0];
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, walker, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("visits %ld nonempty %ld\n", visits, nonempty);
	return 0;
}
