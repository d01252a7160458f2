/* Golden: two structures declare a field named 'lock'; a macro hides
 * which one a section takes, and calls a function (`#define LEDGER
 * (ledger())`).  The tool types the macro's expansion (ledger()'s
 * prototype returns a struct ledger *), but the lock expression would be
 * evaluated once instead of at the lock and at the unlock: that section
 * is held, in place on the lock word; account.lock's is delegated. */
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
