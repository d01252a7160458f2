/* SPDX-License-Identifier: MIT */
/* A section that leaves early (unlock; return) before it assigns two
   locals the caller set beforehand: the early exit must see their
   values from before the section, not what the extracted function
   started them with.  A sold-out box office answers -1 for the seat and
   the row it never assigned. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define SEATS 100

static pthread_mutex_t box = PTHREAD_MUTEX_INITIALIZER;
static long sold;

static long take(long *row_out)
{
	long seat = -1, row = -1;

	pthread_mutex_lock(&box);
	if (sold == SEATS) {
		pthread_mutex_unlock(&box);
		*row_out = row;
		return seat;
	}
	seat = sold++;
	row = seat / 10;
	pthread_mutex_unlock(&box);
	*row_out = row;
	return seat;
}

static void *worker(void *arg)
{
	long *refused = arg, row, seat;
	int i;

	for (i = 0; i < SEATS; i++) {
		seat = take(&row);
		if (seat == -1 && row == -1)
			(*refused)++;
		else if (seat < 0 || row != seat / 10)
			return (void *)1;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long refused[NT] = { 0 }, total = 0;
	void *ret;
	int i, bad = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &refused[i]);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
		total += refused[i];
	}
	bad |= total != NT * SEATS - SEATS || sold != SEATS;
	printf("refused %ld, balanced %s\n", total, bad ? "no" : "yes");
	return bad;
}
