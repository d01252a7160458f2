/* SPDX-License-Identifier: MIT */
/*
 * The "rcl" liblock algorithm: client side (thesis Alg. 9), condition
 * waits inside sections, rcl_tryexec().
 *
 * exec: a servicing thread of the lock's own server runs the section
 * inline, taking the lock word with a CAS and yielding while another
 * thread of that CPU holds it; anyone else posts a request in its slot of
 * the server's array (lock, ctx relaxed, fn with release) and waits for
 * fn == NULL (acquire), pausing, then yielding after RCL_CLIENT_SPIN
 * polls (oversubscribed client CPU).  While it waits it wakes a parked
 * server and, if the server was stopped, runs its own request itself
 * under the lock word (claiming the slot like a servicing thread would).
 *
 * cond_wait: the servicing thread running the section releases the lock
 * word and sleeps in the kernel on the generic futex protocol of
 * liblock.c.  Before it sleeps it asks the manager for a free servicing
 * thread if it was the last one, so the server keeps serving the other
 * locks (thesis Fig. 4.3; the backup thread covers every other way of
 * blocking).  Woken, it takes the lock word back as a held section would
 * (word.c), so a wait may be signalled from either kind of section.
 *
 * lock/trylock/unlock: "held" sections, which stay in the calling thread
 * and take the lock word themselves (word.c); they exclude the delegated
 * sections of the same lock.  rcl_tryexec() is the delegated form of a
 * try (see rcl.h).
 *
 * Memory model: C11 acquire/release as described in rcl_int.h.
 */
#include "rcl_int.h"

/* Pause-polls before a waiting client yields its CPU each poll: about
 * 10 us here (a pause is 25-50 ns), several round trips to the server.
 * A client that waits longer is behind other requests or shares its CPU
 * with other clients (which cannot post while it spins); yielding then
 * costs a syscall per poll when the CPU has nothing else to run. */
#define RCL_CLIENT_SPIN 256u

/* ---- lock structures: recycled, never freed (see rcl_int.h) ------------ */

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rcl_lock *pool_free; /* under pool_mu */
static pthread_once_t pool_fork_once = PTHREAD_ONCE_INIT;

/* No lock structure is being moved at a fork: the child's pool is whole.
 * pool_mu is a leaf (nothing is locked under it), so these handlers need
 * no order with the other modules' ones. */
static void pool_fork_prepare(void)
{
	rcl_mutex_lock(&pool_mu);
}

static void pool_fork_release(void)
{
	rcl_mutex_unlock(&pool_mu);
}

static void pool_fork_setup(void)
{
	if (pthread_atfork(pool_fork_prepare, pool_fork_release,
			   pool_fork_release) != 0)
		ll_fatal("cannot register the RCL lock pool's fork handlers");
}

void rcl_pool_fork_init(void)
{
	pthread_once(&pool_fork_once, pool_fork_setup);
}

static struct rcl_lock *lock_alloc(void)
{
	struct rcl_lock *l;

	/* before the pool is first used: no fork can find pool_mu held
	 * without the handlers that release it in the child */
	pthread_once(&pool_fork_once, pool_fork_setup);
	rcl_mutex_lock(&pool_mu);
	if ((l = pool_free) != NULL)
		pool_free = l->next_free;
	rcl_mutex_unlock(&pool_mu);
	if (!l)
		l = ll_zalloc(sizeof(*l));
	return l;
}

static void lock_recycle(struct rcl_lock *l)
{
	rcl_mutex_lock(&pool_mu);
	l->next_free = pool_free;
	pool_free = l;
	rcl_mutex_unlock(&pool_mu);
}

/* ---- ops -------------------------------------------------------------------
 */

static int rcl_init(void **impl, const liblock_attr_t *attr)
{
	int err;
	struct rcl_server *s = rcl_server_get(attr->server, &err);
	struct rcl_lock *l;

	if (!s)
		return err;
	if ((l = lock_alloc()) == NULL)
		return ENOMEM;
	l->server = s;
	l->next_free = NULL;
	atomic_store_explicit(&l->holder, 0, memory_order_relaxed);
	atomic_store_explicit(&l->waiting, 0, memory_order_relaxed);
	atomic_store_explicit(&l->kept, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->nlocks, 1, memory_order_relaxed);
	*impl = l;
	return 0;
}

/* EBUSY while a section of the lock runs (held, or blocked in a wait). */
static int rcl_destroy(void *impl)
{
	struct rcl_lock *l = impl;

	if (atomic_load_explicit(&l->holder, memory_order_relaxed) != 0)
		rcl_word_wait_kept(l, 0); /* free, but kept by its server */
	if (atomic_load_explicit(&l->holder, memory_order_relaxed) != 0)
		return EBUSY;
	atomic_fetch_sub_explicit(&l->server->nlocks, 1, memory_order_relaxed);
	lock_recycle(l);
	return 0;
}

/* @exec: a request of liblock_exec, which must not be called on a lock
 * the thread holds: it would wait for itself.  (A shipped section's
 * request may be: its thread keeps the locks the section took.)  Checked
 * off the call's fast path, once a wait is long or before the thread
 * runs the request itself. */
static void check_not_held(struct rcl_lock *l, bool exec)
{
	if (ll_unlikely(exec && rcl_word_held_by_me(l)))
		ll_fatal("liblock_exec on RCL lock %p inside a section that "
			 "holds it (liblock_lock): it would wait for itself",
			 (void *)l);
}

/* Wait until the request in @r, for @l, is done; @exec: see
 * check_not_held(). */
static void wait_done(struct rcl_server *s, struct rcl_req *r,
		      struct rcl_lock *l, bool exec)
{
	unsigned int polls;

	/* stopped (or a forked child's): no server thread to wait for */
	if (atomic_load_explicit(&s->state, memory_order_relaxed) !=
	    RCL_RUNNING) {
		check_not_held(l, exec);
		if (atomic_load_explicit(&s->fifo_owner,
					 memory_order_relaxed) != 0)
			rcl_server_retry_deferred(s);
		if (rcl_run_own(s, r, l))
			return;
	}
	/* a server sharing our CPU cannot run while we spin */
	polls = atomic_load_explicit(&s->exclusive, memory_order_relaxed)
			? 0
			: RCL_CLIENT_SPIN;

	/* acquire: pairs with the release of fn by whoever ran it.  The
	 * poll step is ll_wait.h's (pause, then yield); its count also
	 * paces the checks below, in registers: no access but fn's line */
	while (atomic_load_explicit(&r->fn, memory_order_acquire) != NULL) {
		ll_poll(&polls, RCL_CLIENT_SPIN);
		if ((polls & 255) == 0) {
			check_not_held(l, exec);
			/* we may have published before the server said it
			 * was going to sleep: look again */
			if (atomic_load_explicit(&s->idle,
						 memory_order_relaxed))
				rcl_server_unpark(s);
			if (atomic_load_explicit(&s->state,
						 memory_order_relaxed) !=
				    RCL_RUNNING &&
			    rcl_run_own(s, r, l))
				return;
		}
	}
}

/* A remote call (thesis Alg. 9, first branch); *@status gets 0 or EBUSY.
 * @exec: see wait_done(). */
static inline void *exec_remote(struct rcl_lock *l, liblock_fn_t fn, void *ctx,
				uint32_t flags, uint32_t *status, bool exec)
{
	struct rcl_server *s = l->server;
	struct rcl_req *r = &s->reqs[rcl_client_id()];
	uintptr_t lk = (uintptr_t)l | flags; /* the request's kind tags it */

	if (atomic_load_explicit(&r->lock, memory_order_relaxed) != lk)
		atomic_store_explicit(&r->lock, lk, memory_order_relaxed);
	atomic_store_explicit(&r->ctx, ctx, memory_order_relaxed);
	/* release: pairs with serve()'s acquire; lock and ctx first */
	atomic_store_explicit(&r->fn, fn, memory_order_release);
	if (ll_unlikely(atomic_load_explicit(&s->idle, memory_order_relaxed)))
		rcl_server_unpark(s);
	wait_done(s, r, l, exec);
	if (status)
		*status =
			atomic_load_explicit(&r->status, memory_order_relaxed);
	return atomic_load_explicit(&r->ctx, memory_order_relaxed);
}

void *rcl_exec_remote(struct rcl_lock *l, liblock_fn_t fn, void *ctx,
		      uint32_t flags, uint32_t *status)
{
	return exec_remote(l, fn, ctx, flags, status, false);
}

/* Nested section of the caller's own server (Alg. 9, second branch), or
 * a section requested inside a shipped one (@me NULL): run here, on the
 * word. */
static void *exec_inline(struct rcl_lock *l, liblock_fn_t fn, void *ctx,
			 struct rcl_sthread *me)
{
	uintptr_t tok = rcl_token();
	void *ret;

	if (rcl_w_owner(atomic_load_explicit(&l->holder,
					     memory_order_relaxed)) == tok)
		ll_fatal("RCL lock %p taken again inside its own critical "
			 "section",
			 (void *)l);
	if (!rcl_word_try(l, tok, false))
		rcl_word_acquire(l, tok, false);
	ret = fn(ctx);
	rcl_lock_release(l, tok);
	if (me)
		RCL_STAT_INC(me->st.cs_inline);
	return ret;
}

static void *rcl_exec(void *impl, liblock_fn_t fn, void *ctx)
{
	struct rcl_lock *l = impl;
	struct rcl_sthread *me = rcl_self;

	if (ll_unlikely(fn == NULL))
		return NULL; /* a NULL fn would mean "no request" */
	if (me && me->srv == l->server)
		return exec_inline(l, fn, ctx, me);
	/* from a shipped section: our request slot is that section's */
	if (ll_unlikely(rcl_shipped != NULL))
		return exec_inline(l, fn, ctx, NULL);
	return exec_remote(l, fn, ctx, 0, NULL, true);
}

/* Called inside a section of @impl.  Returns 0, ETIMEDOUT, or EPERM when
 * the caller does not hold the lock (not inside one of its sections). */
static int rcl_cond_wait(void *impl, liblock_cond_t *cond,
			 const struct timespec *abstime)
{
	struct rcl_lock *l = impl;
	struct rcl_server *s = l->server;
	uintptr_t tok = rcl_token();
	struct rcl_sthread *me = rcl_self;
	unsigned int seq;
	int rc;

	if (rcl_w_owner(atomic_load_explicit(&l->holder,
					     memory_order_relaxed)) != tok)
		return EPERM;
	/* a delegated section of @l: its request stays claimed while the
	 * word is released, so no other servicing thread starts it again */
	if (me && me->req &&
	    rcl_req_lock(atomic_load_explicit(&me->req->lock,
					      memory_order_relaxed)) == l)
		rcl_claim_in_progress(s, me->req, tok);
	seq = ll_cond_enter(cond);
	if (rcl_word_held_by_me(l))
		rcl_word_release_held(l, tok);
	else
		rcl_lock_release(l, tok);
	if (me) {
		if (me->srv == s)
			atomic_fetch_add_explicit(&s->cond_waits, 1,
						  memory_order_relaxed);
		rcl_sthread_blocks(me->srv);
		/* relaxed: a hint for the exit path (stop_threads()), which
		 * may read it stale and then only waits or does not */
		atomic_store_explicit(&me->in_cond, 1, memory_order_relaxed);
	}
	rc = ll_cond_sleep(cond, seq, abstime);
	if (me)
		atomic_store_explicit(&me->in_cond, 0, memory_order_relaxed);
	if (!rcl_word_try(l, tok, false))
		rcl_word_acquire(l, tok, false);
	ll_cond_leave(cond);
	return rc;
}

static int rcl_lock(void *impl)
{
	if (atomic_load_explicit(&rcl_ship_on, memory_order_relaxed))
		return rcl_ship_lock(impl);
	return rcl_word_lock(impl);
}

static int rcl_trylock(void *impl)
{
	return rcl_word_trylock(impl);
}

static int rcl_unlock(void *impl)
{
	if (ll_unlikely(rcl_shipped == impl))
		return rcl_ship_home();
	return rcl_word_unlock(impl);
}

const struct ll_ops ll_rcl_ops = {
	.name = "rcl",
	.summary =
		"Remote Core Locking: sections run on a dedicated server CPU",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_DELEGATION | LIBLOCK_CAP_SERVER |
		LIBLOCK_CAP_NUMA | LIBLOCK_CAP_PARK | LIBLOCK_CAP_OWNER,
	.init = rcl_init,
	.destroy = rcl_destroy,
	.exec = rcl_exec,
	.lock = rcl_lock,
	.trylock = rcl_trylock,
	.unlock = rcl_unlock,
	.cond_wait = rcl_cond_wait,
};

int rcl_tryexec(liblock_lock_t *lock, liblock_fn_t fn, void *ctx, void **ret)
{
	struct rcl_lock *l;
	struct rcl_sthread *me = rcl_self;
	uint32_t status = 0;
	void *v;
	int rc;

	if (!lock || !fn)
		return EINVAL;
	liblock_lock_algorithm(lock); /* initialises a static lock */
	/* another algorithm, or a recursive or error-checking lock its
	 * thread holds: liblock_trylock() answers as pthreads would (one
	 * level more, or EBUSY) */
	if (ll_lock_ops(lock) != &ll_rcl_ops || ll_lock_owned_by_me(lock)) {
		if ((rc = liblock_trylock(lock)) != 0)
			return rc;
		v = fn(ctx);
		liblock_unlock(lock);
	} else if (l = ll_lock_impl(lock), me && me->srv == l->server) {
		uintptr_t tok = rcl_token();

		if (!rcl_word_try_kept(l, tok))
			return EBUSY;
		v = fn(ctx);
		rcl_lock_release(l, tok);
	} else if (rcl_word_held_by_me(l)) {
		return EBUSY; /* we hold it: a try must fail, not wait */
	} else {
		v = rcl_exec_remote(l, fn, ctx, RCL_REQ_TRY, &status);
		if (status)
			return EBUSY;
	}
	if (ret)
		*ret = v;
	return 0;
}
