/* Golden: every way out of a section -- return, goto, break, continue. */
#include <pthread.h>
#include <stddef.h>

struct node {
	struct node *next;
	int key, val;
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *head;

int lookup(int key, int *val)
{
	struct node *n;

	pthread_mutex_lock(&list_lock);
	for (n = head; n; n = n->next)
		if (n->key == key)
			break;
	if (!n) {
		pthread_mutex_unlock(&list_lock);
		return -1;
	}
	*val = n->val;
	pthread_mutex_unlock(&list_lock);
	return 0;
}

int sum_until(int limit)
{
	int i, sum = 0;

	for (i = 0; i < 100; i++) {
		pthread_mutex_lock(&list_lock);
		if (head == NULL) {
			pthread_mutex_unlock(&list_lock);
			break;
		}
		if (head->val < 0) {
			pthread_mutex_unlock(&list_lock);
			continue;
		}
		sum += head->val;
		if (sum > limit) {
			pthread_mutex_unlock(&list_lock);
			goto out;
		}
		pthread_mutex_unlock(&list_lock);
	}
	return sum;
out:
	return -sum;
}
