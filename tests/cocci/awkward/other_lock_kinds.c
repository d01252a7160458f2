/* SPDX-License-Identifier: MIT */
/* expect: refused pthread_spin_lock() takes a spinlock (pthread_spinlock_t) */
/* expect: refused pthread_rwlock_rdlock() takes a read-write lock */
/* expect: refused SPIN_TAKE */
/* An HPC-style program with three kinds of lock: a pthread mutex around
 * the totals, a spinlock around a histogram (taken directly and through
 * a project macro), and a read-write lock around a table its threads
 * read.  Only the mutex is converted; a spinlock or read-write lock
 * section was not counted at all, and a program with no mutex came out
 * as "0 sections found" with exit 0.  Each of those sections is now
 * reported where it is, with what the lock is. */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 20000
#define SPIN_TAKE(l) pthread_spin_lock(l)

static pthread_mutex_t totals = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t histo_lock;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static long total, histo[8];
static int table[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static void *work(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < IT; i++) {
		int v;
		pthread_rwlock_rdlock(&table_lock);
		v = table[(i + id) % 8];
		pthread_rwlock_unlock(&table_lock);
		if (i & 1) {
			pthread_spin_lock(&histo_lock);
			histo[v % 8]++;
			pthread_spin_unlock(&histo_lock);
		} else {
			SPIN_TAKE(&histo_lock);
			histo[(v + 1) % 8]++;
			pthread_spin_unlock(&histo_lock);
		}
		pthread_mutex_lock(&totals);
		total += v;
		pthread_mutex_unlock(&totals);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long sum = 0;
	pthread_spin_init(&histo_lock, PTHREAD_PROCESS_PRIVATE);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 8; i++)
		sum += histo[i];
	pthread_spin_destroy(&histo_lock);
	printf("%ld %ld\n", total, sum);
	return sum == (long)NT * IT ? 0 : 1;
}
