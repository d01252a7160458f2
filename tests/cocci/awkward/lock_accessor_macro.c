/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The mutex is named through an accessor macro, #define OBJ_LOCK(o) (&(o)->mu), pthread_mutex_lock(OBJ_LOCK(o)).
 * Before: "cannot name the lock 'OBJ_LOCK(o)'": the lock is refused and
 * stays POSIX (exit 1), although the macro expands to a plain field address
 * that libclang resolves.  OVER-REFUSAL (moderate). */
#include <pthread.h>
#include <stdio.h>

struct obj { pthread_mutex_t mu; long n; };
#define OBJ_LOCK(o) (&(o)->mu)
static struct obj objs[2] = { { PTHREAD_MUTEX_INITIALIZER, 0 }, { PTHREAD_MUTEX_INITIALIZER, 0 } };

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 1000; i++) {
		struct obj *o = &objs[(i + id) & 1];
		pthread_mutex_lock(OBJ_LOCK(o));
		o->n += id + 1;
		pthread_mutex_unlock(OBJ_LOCK(o));
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("n %ld %ld\n", objs[0].n, objs[1].n);
	return 0;
}
