/* SPDX-License-Identifier: MIT */
/* rsyslog's module template: whole functions made by macros, their
   head and opening brace in BEGIN_HANDLER(), their closing brace in
   END_HANDLER.  Neither Coccinelle nor the tool's parser sees where such
   a function begins; the compiler does.  Their lock calls stay in
   place, renamed to liblock's: a held section (once, nothing was
   written: the calls were left on a converted lock and the compile check
   failed; then the lock stayed a pthread mutex).  Coccinelle does not
   read the region (its lines are blanked for it), and count_call(),
   right after END_HANDLER, is delegated: its extracted function goes
   after END_HANDLER's closing brace, not before. */
/* expect: held its lock and unlock calls stay in place */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 400

#define BEGIN_HANDLER(name) \
	static int name(struct instance *inst) \
	{ \
		int ret = 0;
#define CODE_START /* nothing yet */
#define END_HANDLER \
	return ret; \
	}

struct instance {
	pthread_mutex_t mut_write;
	long written;
};

static struct instance inst = { PTHREAD_MUTEX_INITIALIZER, 0 };
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long calls;

BEGIN_HANDLER(do_write)
CODE_START
	pthread_mutex_lock(&inst->mut_write);
	inst->written++;
	ret = (int)(inst->written & 1);
	pthread_mutex_unlock(&inst->mut_write);
END_HANDLER

static void count_call(void)
{
	pthread_mutex_lock(&stats_lock);
	calls++;
	pthread_mutex_unlock(&stats_lock);
}

static void *worker(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < ROUNDS; r++) {
		do_write(&inst);
		count_call();
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	int k;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, NULL);
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	printf("written %ld calls %ld\n", inst.written, calls);
	return inst.written == calls ? 0 : 1;
}
