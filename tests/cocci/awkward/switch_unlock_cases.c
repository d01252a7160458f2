/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A command interpreter's dispatch: each case runs under the state lock;
   one case drops the lock and returns early, another drops it and goes
   on with the next command (continue), the others fall out of the switch
   to the common unlock. */
#include <pthread.h>
#include <stdio.h>

enum cmd { CMD_INC, CMD_DEC, CMD_SKIP, CMD_QUIT, CMD_SET };

struct state {
	pthread_mutex_t mu;
	long value;
	unsigned skipped, quits, done;
};

static struct state st = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0 };

static int run_script(struct state *s, const enum cmd *prog, int n)
{
	int pc, rc = 0;

	for (pc = 0; pc < n; pc++) {
		pthread_mutex_lock(&s->mu);
		switch (prog[pc]) {
		case CMD_INC:
			s->value++;
			break;
		case CMD_DEC:
			if (s->value > 0)
				s->value--;
			break;
		case CMD_SKIP:
			s->skipped++;
			pthread_mutex_unlock(&s->mu);
			continue;
		case CMD_QUIT:
			s->quits++;
			pthread_mutex_unlock(&s->mu);
			return -pc;
		default:
			s->value = 100;
			rc++;
		}
		s->done++;
		pthread_mutex_unlock(&s->mu);
	}
	return rc;
}

static const enum cmd script_a[] = { CMD_INC, CMD_INC, CMD_SKIP, CMD_DEC,
				     CMD_INC, CMD_SKIP, CMD_INC };
static const enum cmd script_b[] = { CMD_INC, CMD_DEC, CMD_DEC, CMD_QUIT,
				     CMD_INC };

static void *worker(void *arg)
{
	long r = 0;
	int i;

	(void)arg;
	for (i = 0; i < 2000; i++) {
		r += run_script(&st, script_a, 7);
		r += run_script(&st, script_b, 5);
	}
	return (void *)r;
}

int main(void)
{
	pthread_t th[3];
	long total = 0;
	void *r;
	int i;

	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], &r);
		total += (long)r;
	}
	i = run_script(&st, (const enum cmd[]){ CMD_SET, CMD_INC }, 2);
	printf("value %ld skipped %u quits %u done %u r %ld %d\n", st.value,
	       st.skipped, st.quits, st.done, total, i);
	return st.done == 3u * 2000 * 8 + 2 ? 0 : 1;
}
