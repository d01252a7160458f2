/* SPDX-License-Identifier: MIT */
/*
 * Frequent-request contention with two groups (rcl-prof --colocate-plan
 * and rcl-run --colocate, t_coloc.sh): eight threads created in order,
 * the odd ones (creation indices 1, 3, 5, 7) take lock a for ~91% of
 * their acquisitions (and b for the rest), the even ones only take b.
 * With the argument "one", every thread is an odd one (one group only).
 * Each thread records the CPUs it may run on when it starts; the program
 * prints "thread I: cpus C[,C...]" for each, then the two counts, and
 * exits 1 if a count is wrong.
 *
 * HOLD_YIELD: once every 1000 acquisitions a thread yields its CPU while
 * holding the lock.  On a loaded machine the threads may otherwise run
 * one time slice each, one after another, and never meet (0% contention,
 * so no advice: seen with the load average at 25); a holder off its CPU
 * makes the next thread of its group wait whatever else runs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define NT 8
#define IT 100000

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long count_a, count_b;
static char cpus[NT + 1][128];
static pthread_barrier_t start; /* all together: the locks are contended */

static void record(long index)
{
	cpu_set_t set;
	int n = 0;

	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE && n < 100; c++)
		if (CPU_ISSET(c, &set))
			n += snprintf(cpus[index] + n, sizeof(cpus[index]) - n,
				      "%s%d", n ? "," : "", c);
}

static void *on_a(void *arg)
{
	record((long)arg);
	pthread_barrier_wait(&start);
	for (int i = 0; i < IT; i++) {
		pthread_mutex_lock(&a);
		count_a++;
		if (i % 1000 == 0)
			sched_yield(); /* see HOLD_YIELD */
		pthread_mutex_unlock(&a);
		if (i % 10 == 0) {
			pthread_mutex_lock(&b);
			count_b++;
			pthread_mutex_unlock(&b);
		}
	}
	return NULL;
}

static void *on_b(void *arg)
{
	record((long)arg);
	pthread_barrier_wait(&start);
	for (int i = 0; i < IT; i++) {
		pthread_mutex_lock(&b);
		count_b++;
		if (i % 1000 == 0)
			sched_yield(); /* see HOLD_YIELD */
		pthread_mutex_unlock(&b);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int one = argc > 1 && strcmp(argv[1], "one") == 0;
	pthread_t t[NT];

	pthread_barrier_init(&start, NULL, NT);
	for (long i = 1; i <= NT; i++)
		if (pthread_create(&t[i - 1], NULL, one || i % 2 ? on_a : on_b,
				   (void *)i) != 0)
			return 2;
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 1; i <= NT; i++)
		printf("thread %d: cpus %s\n", i, cpus[i]);
	printf("a %ld b %ld\n", count_a, count_b);
	if (one)
		return count_a == NT * IT && count_b == NT * (IT / 10) ? 0 : 1;
	return count_a == NT / 2 * IT &&
			       count_b == NT / 2 * IT + NT / 2 * (IT / 10)
		       ? 0
		       : 1;
}
