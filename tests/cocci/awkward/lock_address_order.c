/* SPDX-License-Identifier: MIT */
/* expect: held unlock in another function */
/* Two accounts locked in address order, as fio's pthread_double_lock()
 * and many transfer routines do: `if (a < b)` and `if (a != b)` on the
 * helper's mutex pointers.  The comparison kept both parameters (and so
 * every account lock) POSIX, "used where the tool does not follow it".
 * A converted lock stays where it was, so comparing addresses reads the
 * same: the helpers' sections are held on the lock word. */
#include <pthread.h>
#include <stdio.h>

struct account {
	pthread_mutex_t lock;
	long balance;
};

static struct account acc[4];

static void lock_pair(pthread_mutex_t *a, pthread_mutex_t *b)
{
	if (a == b) {
		pthread_mutex_lock(a);
		return;
	}
	if (a < b) {
		pthread_mutex_lock(a);
		pthread_mutex_lock(b);
	} else {
		pthread_mutex_lock(b);
		pthread_mutex_lock(a);
	}
}

static void unlock_pair(pthread_mutex_t *a, pthread_mutex_t *b)
{
	pthread_mutex_unlock(a);
	if (a != b)
		pthread_mutex_unlock(b);
}

static void *mover(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 20000; i++) {
		struct account *from = &acc[(i + id) % 4];
		struct account *to = &acc[(i * 3 + id + 1) % 4];
		lock_pair(&from->lock, &to->lock);
		from->balance -= 1;
		to->balance += 1;
		unlock_pair(&from->lock, &to->lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	long sum = 0;

	for (int i = 0; i < 4; i++) {
		pthread_mutex_init(&acc[i].lock, NULL);
		acc[i].balance = 1000;
	}
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, mover, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++) {
		sum += acc[i].balance;
		pthread_mutex_destroy(&acc[i].lock);
	}
	printf("total %ld\n", sum);
	return sum != 4000;
}
