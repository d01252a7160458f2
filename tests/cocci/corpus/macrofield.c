/* Two structures with a mutex field named lock; one reached through a
 * macro (the compiler, not the text, tells which structure it is), the
 * other through a local set from a function's result. */
#include <pthread.h>
#include <stdio.h>

struct account {
	pthread_mutex_t lock;
	long balance;
};

struct ledger {
	pthread_mutex_t lock;
	long entries;
};

static struct account acct;
static struct ledger led;

#define LEDGER (&led)

static struct account *the_account(void)
{
	return &acct;
}

static void setup(void)
{
	pthread_mutex_init(&acct.lock, NULL);
	pthread_mutex_init(&led.lock, NULL);
}

static long deposit(long n)
{
	struct account *a = the_account();
	long b;

	pthread_mutex_lock(&a->lock);
	a->balance += n;
	b = a->balance;
	pthread_mutex_unlock(&a->lock);
	return b;
}

static long record(void)
{
	long e;

	pthread_mutex_lock(&LEDGER->lock);
	e = ++LEDGER->entries;
	pthread_mutex_unlock(&LEDGER->lock);
	return e;
}

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		deposit((long)arg);
		record();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	setup();
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("balance %ld entries %ld\n", deposit(0), record() - 1);
	return 0;
}
