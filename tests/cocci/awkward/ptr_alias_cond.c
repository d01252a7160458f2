/* SPDX-License-Identifier: MIT */
/* A pipeline whose window has a mutex and a condition variable of its
   own inside a larger state, the way zstd's serial state keeps
   ldmWindowMutex: the producer publishes the window under the state's
   main mutex and, nested inside it, under the window mutex, signalling
   the waiter; the consumer reaches the window mutex through a local
   pointer alias (`pthread_mutex_t *m = &ctx->state.win_mu;`) and passes
   that alias to the lock, to the condition wait in a loop and to the
   unlock.  The alias stands for its pointee: the window lock converts,
   the consumer's section is delegated with its wait, and the producer's
   nested section is extracted and called from the main mutex's. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define STEPS 2000

struct state {
	pthread_mutex_t mu;
	long produced;
	pthread_mutex_t win_mu;
	pthread_cond_t win_cond;
	long window;
};

struct ctx {
	int id;
	struct state state;
};

static struct ctx the_ctx;

static void publish(struct state *s, long step)
{
	pthread_mutex_lock(&s->mu);
	s->produced++;
	pthread_mutex_lock(&s->win_mu);
	s->window = step;
	pthread_cond_signal(&s->win_cond);
	pthread_mutex_unlock(&s->win_mu);
	pthread_mutex_unlock(&s->mu);
}

static long wait_for(struct ctx *ctx, long step)
{
	long seen;
	pthread_mutex_t *m = &ctx->state.win_mu;

	pthread_mutex_lock(m);
	while (ctx->state.window < step)
		pthread_cond_wait(&ctx->state.win_cond, m);
	seen = ctx->state.window;
	pthread_mutex_unlock(m);
	return seen;
}

static void *producer(void *arg)
{
	long i;

	(void)arg;
	for (i = 1; i <= STEPS; i++)
		publish(&the_ctx.state, i);
	return NULL;
}

int main(void)
{
	pthread_t t;
	long i, bad = 0, last = 0;

	pthread_mutex_init(&the_ctx.state.mu, NULL);
	pthread_mutex_init(&the_ctx.state.win_mu, NULL);
	pthread_cond_init(&the_ctx.state.win_cond, NULL);
	pthread_create(&t, NULL, producer, NULL);
	for (i = 1; i <= STEPS; i += 7) {
		long seen = wait_for(&the_ctx, i);

		bad += seen < i || seen < last;
		last = seen;
	}
	last = wait_for(&the_ctx, STEPS);
	pthread_join(t, NULL);
	printf("last %ld produced %ld bad %ld\n", last, the_ctx.state.produced,
	       bad);
	pthread_cond_destroy(&the_ctx.state.win_cond);
	pthread_mutex_destroy(&the_ctx.state.win_mu);
	pthread_mutex_destroy(&the_ctx.state.mu);
	return last == STEPS && the_ctx.state.produced == STEPS && bad == 0 ? 0
									     : 1;
}
