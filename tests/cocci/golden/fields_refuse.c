/* Golden: two structures each declare a field named 'mutex'.  The
 * journal's escapes (its address is returned), so journal.mutex stays
 * POSIX; account.mutex is told apart by the type of the base expression
 * (a parameter, a global) and is converted. */
#include <pthread.h>

struct account {
	pthread_mutex_t mutex;
	long balance;
};

struct journal {
	pthread_mutex_t mutex;
	int n;
	char buf[64];
};

struct account bank;
struct journal log_journal;

void setup(struct journal *j)
{
	pthread_mutex_init(&bank.mutex, NULL);
	pthread_mutex_init(&j->mutex, NULL);
	j->n = 0;
}

void deposit(struct account *a, long v)
{
	pthread_mutex_lock(&a->mutex);
	a->balance += v;
	pthread_mutex_unlock(&a->mutex);
}

long bank_balance(void)
{
	long v;

	pthread_mutex_lock(&bank.mutex);
	v = bank.balance;
	pthread_mutex_unlock(&bank.mutex);
	return v;
}

pthread_mutex_t *journal_mutex(struct journal *j)
{
	return &j->mutex;
}

void journal_add(char c)
{
	pthread_mutex_lock(&log_journal.mutex);
	if (log_journal.n < 64)
		log_journal.buf[log_journal.n++] = c;
	pthread_mutex_unlock(&log_journal.mutex);
}
