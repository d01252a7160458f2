/* SPDX-License-Identifier: MIT */
/* Locals the section writes through a macro's body and the caller reads
   after the unlock, again only through macros: TAKE() sets `got` and
   `when`, REMEMBER() and RESULT read them.  LOG() reads the caller's `ctx`
   (kernel and daemon code log this way).  Each value set in the section
   must come back to the caller. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct logctx {
	long lines;
};

#define LOG(what) log_line(ctx, (what))
#define TAKE()                                                                 \
	do {                                                                   \
		got = next_ticket++;                                           \
		when = clock_now;                                              \
	} while (0)
#define REMEMBER() (history[got % 64] = when)
#define RESULT (got * 2 + (when > 0))

#define NT 4
#define IT 2000

static pthread_mutex_t ticket_lock = PTHREAD_MUTEX_INITIALIZER;
static long next_ticket = 1, clock_now;
static long history[64];

static void log_line(struct logctx *c, const char *what)
{
	c->lines += what[0] == 't';
}

static long ticket(struct logctx *ctx)
{
	long got = -1, when = -1;

	pthread_mutex_lock(&ticket_lock);
	TAKE();
	clock_now = when + 1;
	LOG(got > 0 ? "took" : "none");
	pthread_mutex_unlock(&ticket_lock);
	REMEMBER();
	return RESULT;
}

static void *worker(void *arg)
{
	struct logctx ctx = { 0 };
	long sum = 0, bad = 0, r;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		r = ticket(&ctx);
		sum += r / 2;
		bad += r < 2;
	}
	return (void *)(sum * 1000 + bad + (ctx.lines != IT) * 100);
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
	/* Tickets 1..NT*IT, each given once. */
	printf("tot %ld (want %ld)\n", tot,
	       (long)NT * IT * (NT * IT + 1) / 2 * 1000);
	return tot == (long)NT * IT * (NT * IT + 1) / 2 * 1000 ? 0 : 1;
}
