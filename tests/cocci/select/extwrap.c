/* SPDX-License-Identifier: MIT */
/* memcached's slabs_mlock()/slabs_munlock(): non-static lock wrappers,
   called from another file (extwrap_use.c).  The companion
   slabs_mlock_rcl_exec() must be declared before its definition, once,
   for builds with -Wmissing-prototypes -Wredundant-decls -Werror
   (t_options.sh). */
#include <pthread.h>

static pthread_mutex_t slabs_lock = PTHREAD_MUTEX_INITIALIZER;

void slabs_mlock(void);
void slabs_munlock(void);

void slabs_mlock(void)
{
	pthread_mutex_lock(&slabs_lock);
}

void slabs_munlock(void)
{
	pthread_mutex_unlock(&slabs_lock);
}
