/* SPDX-License-Identifier: MIT */
/* Golden: an init macro that negates pthread's result into a success
 * flag (libmicrohttpd's MHD_mutex_init_()) is replaced by liblock_init()
 * under the same negation (liblock_init() returns 0 or an error number,
 * as pthread_mutex_init() does). */
#include <pthread.h>

#define MUTEX_INIT_OK(pm) (!(pthread_mutex_init((pm), NULL)))

struct slot {
	pthread_mutex_t mu;
	long uses;
};

int slot_init(struct slot *s)
{
	if (!MUTEX_INIT_OK(&s->mu))
		return -1;
	s->uses = 0;
	return 0;
}

void slot_use(struct slot *s)
{
	pthread_mutex_lock(&s->mu);
	s->uses++;
	pthread_mutex_unlock(&s->mu);
}
