/* SPDX-License-Identifier: MIT */
/* A linked list: insert at the head, unlink by key with a pointer to
   pointer walk, the freed node released after the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 300

struct node {
	struct node *next;
	long key;
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *head;
static long len;

static void insert(long key)
{
	struct node *n = malloc(sizeof *n);

	if (!n)
		abort();
	n->key = key;
	pthread_mutex_lock(&list_lock);
	n->next = head;
	head = n;
	len++;
	pthread_mutex_unlock(&list_lock);
}

static int remove_key(long key)
{
	struct node **pp, *victim = NULL;

	pthread_mutex_lock(&list_lock);
	for (pp = &head; *pp; pp = &(*pp)->next) {
		if ((*pp)->key == key) {
			victim = *pp;
			*pp = victim->next;
			len--;
			break;
		}
	}
	pthread_mutex_unlock(&list_lock);
	free(victim);
	return victim != NULL;
}

static void *worker(void *arg)
{
	long id = (long)arg, n = 0;
	int i;

	for (i = 0; i < IT; i++)
		insert(id * 1000 + i);
	for (i = 0; i < IT; i += 2)
		n += remove_key(id * 1000 + i);
	return (void *)n;
}

int main(void)
{
	pthread_t t[NT];
	long i, n = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		n += (long)r;
	}
	printf("len %ld removed %ld\n", len, n);
	while (head) {
		struct node *x = head;

		head = x->next;
		free(x);
	}
	return len == NT * IT / 2 && n == NT * IT / 2 ? 0 : 1;
}
