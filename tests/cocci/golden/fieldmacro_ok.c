/* Golden: two structures declare a field named 'lock'; a macro hides
 * which one a section takes.  The compiler tells (libclang): each
 * section is its own structure's lock, and both are converted. */
#include <pthread.h>

struct account {
	pthread_mutex_t lock;
	long balance;
};

struct ledger {
	pthread_mutex_t lock;
	long entries;
};

static struct ledger the_ledger;
#define LEDGER (&the_ledger)

void setup(struct account *a)
{
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&LEDGER->lock, NULL);
}

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
