/* SPDX-License-Identifier: MIT */
/* A local that shadows a global of the same name, used in the section only
   through macros.  In tally() the local is declared by a macro too
   (NEW_SCORE), so the tool's own reading of the declarations does not see
   it; in spend() it is an ordinary declaration.  The extracted code must
   use the caller's local: with the global in its place it would still
   compile, and change what the program computes. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NEW_SCORE long score = 0
#define ADD_SCORE(n) (score += (n))
#define SCORE_HIGH (score > 10)
#define SPEND(n) (budget -= (n))
#define OVER_BUDGET (budget < 0)

#define NT 4
#define IT 1000

static pthread_mutex_t board_lock = PTHREAD_MUTEX_INITIALIZER;
static long score = 1000; /* the globals the macros must not reach */
static long budget = 5000;
static long high, overs, spent;

static long tally(int n)
{
	NEW_SCORE;
	int i;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&board_lock);
		ADD_SCORE(i);
		if (SCORE_HIGH)
			high++;
		pthread_mutex_unlock(&board_lock);
	}
	return score;
}

static int spend(long budget, int n)
{
	pthread_mutex_lock(&board_lock);
	SPEND(n);
	spent += n;
	if (OVER_BUDGET)
		overs++;
	pthread_mutex_unlock(&board_lock);
	return budget < 0;
}

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;
	int i, neg = 0;

	for (i = 0; i < IT; i++) {
		sum += tally(i % 7);
		neg += spend(3, i % 5);
	}
	return (void *)(sum * 10000 + neg + id * 0);
}

int main(void)
{
	pthread_t t[NT];
	long i, tot = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		tot += (long)r;
	}
	printf("tot %ld high %ld overs %ld spent %ld\n", tot, high, overs,
	       spent);
	printf("globals score %ld budget %ld\n", score, budget);
	return score == 1000 && budget == 5000 ? 0 : 1;
}
