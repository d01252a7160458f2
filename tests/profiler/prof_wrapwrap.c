/* SPDX-License-Identifier: MIT */
/* prof_wrapinit's out-of-line lock wrappers (see prof_wrapinit.h). */
#include "prof_wrapinit.h"

#include <stdlib.h>

__attribute__((noinline, noclone)) int(app_mutex_init)(app_mutex_t *m)
{
	pthread_mutexattr_t a;
	int err;

	if (pthread_mutexattr_init(&a) ||
	    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL))
		abort();
	err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return err;
}

__attribute__((noinline, noclone)) void(app_mutex_lock)(app_mutex_t *m)
{
	if (pthread_mutex_lock(m))
		abort();
}

__attribute__((noinline, noclone)) void(app_mutex_unlock)(app_mutex_t *m)
{
	if (pthread_mutex_unlock(m))
		abort();
}
