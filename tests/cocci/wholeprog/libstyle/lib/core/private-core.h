/*
 * The library's private header, laid out the way many C libraries lay
 * theirs out: a C++ guard that opens a block no C compiler sees, an
 * `inline` spelt through a macro, the lock helpers as static inline
 * functions, and a visibility macro that differs between the static and
 * the shared build (both compile every unit).
 */
#ifndef PRIVATE_CORE_H
#define PRIVATE_CORE_H

#include <pthread.h>
#include "vh.h"
#include "private-peers.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VH_BUILDING_SHARED)
#define VH_VISIBLE __attribute__((visibility("default")))
#else
#define VH_VISIBLE
#endif

#if defined(_MSC_VER)
#define VH_INLINE __inline
#else
#define VH_INLINE inline
#endif

struct vhost {
	pthread_mutex_t lock;
	const char *name;
	long requests;
	long bytes;
	struct peers peers;
};

static VH_INLINE void
vhost_lock(struct vhost *vh)
{
	pthread_mutex_lock(&vh->lock);
}

static VH_INLINE void
vhost_unlock(struct vhost *vh)
{
	pthread_mutex_unlock(&vh->lock);
}

void peers_init(struct peers *p);

#ifdef __cplusplus
}
#endif

#endif
