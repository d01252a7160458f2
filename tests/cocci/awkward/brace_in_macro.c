/* SPDX-License-Identifier: MIT */
/* rsyslog's object macros: a function whose opening brace is written out
   and whose closing one comes from a macro (`ENDobjDestruct(msg)`, a
   label, a return and `}`).  In the text the braces do not match; the
   compiler says where the function ends.  Its section is left in place
   on the lock word; the next function's is extracted as usual.  Once
   the whole run stopped with "cannot parse: unbalanced '{'". */
/* expect: held cannot cut the statements of drop_ref() */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 500

#define END_REF_FN(ret) \
	finalize_it: \
	return ret; \
	}

struct obj {
	pthread_mutex_t mut;
	int refs;
};

static struct obj shared = { PTHREAD_MUTEX_INITIALIZER, 0 };
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long drops, gets;

static int drop_ref(struct obj *o)
{
	int left;

	pthread_mutex_lock(&o->mut);
	left = --o->refs;
	pthread_mutex_unlock(&o->mut);
	goto finalize_it;
END_REF_FN(left)

static void get_ref(struct obj *o)
{
	pthread_mutex_lock(&o->mut);
	o->refs++;
	pthread_mutex_unlock(&o->mut);
}

static void *worker(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < ROUNDS; r++) {
		get_ref(&shared);
		if (drop_ref(&shared) >= 0) {
			pthread_mutex_lock(&stats_lock);
			drops++;
			gets++;
			pthread_mutex_unlock(&stats_lock);
		}
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
	printf("refs %d drops %ld gets %ld\n", shared.refs, drops, gets);
	return shared.refs == 0 && drops == WORKERS * ROUNDS ? 0 : 1;
}
