/*
 * An init function of the program initialises three locks through one
 * pointer parameter.  The address of one of them is kept in a global
 * that the tool does not follow, so that lock stays POSIX; the
 * parameter's type cannot be both, so the other two stay POSIX with it,
 * and say why.
 */
/* expect: refused which also initialises */
#include <pthread.h>
#include <stdio.h>

struct account {
	pthread_mutex_t lock;
	long balance;
};

static pthread_mutex_t audit_lock;
static long audited;
static pthread_mutex_t *last_taken;

static int lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int rc;

	if ((rc = pthread_mutexattr_init(&a)) != 0)
		return rc;
	rc = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return rc;
}

static void with_lock(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock((pthread_mutex_t *)arg);
	last_taken = arg;
	fn(NULL);
	pthread_mutex_unlock((pthread_mutex_t *)arg);
}

static void bump(void *unused)
{
	(void)unused;
	audited++;
}

static struct account a, b;

static void *work(void *arg)
{
	struct account *acc = arg;

	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&acc->lock);
		acc->balance += 2;
		pthread_mutex_unlock(&acc->lock);
		if (i % 100 == 0)
			with_lock(bump, &audit_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	if (lock_init(&a.lock) || lock_init(&b.lock) || lock_init(&audit_lock))
		return 1;
	pthread_create(&t[0], NULL, work, &a);
	pthread_create(&t[1], NULL, work, &b);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("%ld %ld %ld %d\n", a.balance, b.balance, audited,
	       last_taken == &audit_lock);
	return 0;
}
