/* SPDX-License-Identifier: MIT */
/* Shape 1 of a trylock section: `if (trylock(&m) == 0) { BODY unlock;
   REST } else FALLBACK`.  A ticket office hands out seats when its lock
   is free and counts a miss otherwise.  BODY writes a local read after
   it (the seat number: copied back only when the section ran), declares
   one used after the unlock (hoisted), and leaves early when the office
   is sold out (unlock; return), which must run only when it ran.  A
   `!pthread_mutex_trylock()` variant without REST, and one in a loop
   that retries, complete the picture; the totals must balance. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 3000
#define SEATS 5000

static pthread_mutex_t office = PTHREAD_MUTEX_INITIALIZER;
static long sold, refunds, audits;
static long seat_sum;

struct tally {
	long got, missed, soldout, checked;
};

static int buy(struct tally *t)
{
	long seat = -1;

	if (pthread_mutex_trylock(&office) == 0) {
		if (sold == SEATS) {
			pthread_mutex_unlock(&office);
			t->soldout++;
			return 0;
		}
		seat = sold++;
		long twice = 2 * seat;
		seat_sum += seat;
		pthread_mutex_unlock(&office);
		if (twice != 2 * seat)
			return -100;
		t->got++;
	} else {
		t->missed++;
		return 0;
	}
	return seat >= 0 ? 1 : -1;
}

static void audit(struct tally *t)
{
	if (!pthread_mutex_trylock(&office)) {
		audits++;
		pthread_mutex_unlock(&office);
	}
	t->checked++;
}

static void refund_one(void)
{
	int tries = 0;

	for (;;) {
		tries++;
		if (0 == (pthread_mutex_trylock(&office))) {
			refunds++;
			pthread_mutex_unlock(&office);
			break;
		}
	}
	if (tries < 1)
		refunds = -1000000;
}

static void *worker(void *arg)
{
	struct tally *t = arg;
	int i, r;

	for (i = 0; i < IT; i++) {
		r = buy(t);
		if (r < 0)
			return (void *)1;
		if (i % 10 == 0)
			audit(t);
		if (i % 100 == 0)
			refund_one();
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	struct tally t[NT] = { { 0, 0, 0, 0 } };
	long got = 0, missed = 0, soldout = 0;
	void *ret;
	int i, bad = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, &t[i]);
	for (i = 0; i < NT; i++) {
		pthread_join(th[i], &ret);
		bad |= ret != NULL;
		got += t[i].got;
		missed += t[i].missed;
		soldout += t[i].soldout;
	}
	/* every seat sold exactly once: 0 + 1 + ... + (sold - 1) */
	bad |= got != sold || seat_sum != sold * (sold - 1) / 2;
	bad |= got + missed + soldout != NT * IT;
	bad |= refunds != NT * (IT / 100);
	bad |= audits > NT * (IT / 10);
	printf("balanced %s\n", bad ? "no" : "yes");
	return bad;
}
