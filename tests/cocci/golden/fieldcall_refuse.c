/* Golden: two structures declare a field named 'lock'; a macro hides
 * which one a section takes.  The compiler tells (libclang), but the
 * macro calls a function: the lock expression would be evaluated once
 * instead of at the lock and at the unlock, so both stay POSIX. */
#include <pthread.h>

struct account {
	pthread_mutex_t lock;
	long balance;
};

struct ledger {
	pthread_mutex_t lock;
	long entries;
};

struct ledger *ledger(void);
#define LEDGER (ledger())

long deposit(struct account *a, long n)
{
	long b;

	pthread_mutex_lock(&a->lock);
	a->balance += n;
	b = a->balance;
	pthread_mutex_unlock(&a->lock);
	return b;
}

long record(void)
{
	long e;

	pthread_mutex_lock(&LEDGER->lock);
	e = ++LEDGER->entries;
	pthread_mutex_unlock(&LEDGER->lock);
	return e;
}
