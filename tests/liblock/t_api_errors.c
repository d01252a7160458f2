/* SPDX-License-Identifier: MIT */
/*
 * Every documented error of the liblock API, and the LIBLOCK_LOCK
 * override.  Each test runs in its own forked child (Check's default), so
 * setenv() in one does not leak into another.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "liblock.h"

START_TEST(unknown_algorithm_is_einval)
{
	liblock_lock_t l;
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = "no-such-lock";
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_int_eq(liblock_init(&l, &attr), EINVAL);
	ck_assert_int_eq(liblock_init(NULL, NULL), EINVAL);
}
END_TEST

START_TEST(bad_server_cpu_is_einval)
{
	liblock_lock_t l;
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = "posix";
	attr.server = 100000;
	ck_assert_int_eq(liblock_init(&l, &attr), EINVAL);
	attr.server = -7;
	ck_assert_int_eq(liblock_init(&l, &attr), EINVAL);
}
END_TEST

START_TEST(destroy_twice_is_einval)
{
	liblock_lock_t l;
	liblock_lock_t never_used = LIBLOCK_INITIALIZER;

	ck_assert_int_eq(liblock_init(&l, NULL), 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(liblock_destroy(&l), 0); /* reads as never used */
	ck_assert_int_eq(liblock_destroy(&never_used), 0);
	ck_assert_int_eq(liblock_destroy(NULL), EINVAL);
}
END_TEST

START_TEST(default_is_posix)
{
	liblock_lock_t l;

	unsetenv("LIBLOCK_LOCK");
	ck_assert_int_eq(liblock_init(&l, NULL), 0);
	ck_assert_str_eq(liblock_lock_algorithm(&l), "posix");
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

START_TEST(env_overrides_unless_fixed)
{
	liblock_lock_t l;
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	liblock_lock_t st =
		LIBLOCK_INITIALIZER_ALGO("posix", LIBLOCK_SERVER_DEFAULT);

	setenv("LIBLOCK_LOCK", "spinlock", 1);
	attr.algorithm = "posix";
	ck_assert_int_eq(liblock_init(&l, &attr), 0);
	ck_assert_str_eq(liblock_lock_algorithm(&l), "spinlock");
	ck_assert_int_eq(liblock_destroy(&l), 0);
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_int_eq(liblock_init(&l, &attr), 0);
	ck_assert_str_eq(liblock_lock_algorithm(&l), "posix");
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_str_eq(liblock_lock_algorithm(&st), "spinlock");
	ck_assert_int_eq(liblock_destroy(&st), 0);
}
END_TEST

START_TEST(env_unknown_fails_init_static_falls_back)
{
	liblock_lock_t l;
	liblock_lock_t st = LIBLOCK_INITIALIZER;

	setenv("LIBLOCK_LOCK", "bogus", 1);
	ck_assert_int_eq(liblock_init(&l, NULL), EINVAL);
	/* a static lock has nobody to report to: it runs POSIX */
	ck_assert_str_eq(liblock_lock_algorithm(&st), "posix");
	ck_assert_int_eq(liblock_destroy(&st), 0);
}
END_TEST

START_TEST(aliases_resolve)
{
	liblock_algorithm_info_t info;

	ck_assert_int_eq(liblock_algorithm_info("pthread", &info), 0);
	ck_assert_str_eq(info.name, "posix");
	ck_assert_int_eq(liblock_algorithm_info("nope", &info), EINVAL);
	ck_assert_int_eq(liblock_algorithm_info(NULL, &info), EINVAL);
}
END_TEST

START_TEST(algorithm_list_is_consistent)
{
	const char *const *names = liblock_algorithms();
	int n = 0;

	for (; names[n]; n++) {
		liblock_algorithm_info_t info;

		ck_assert_int_eq(liblock_algorithm_info(names[n], &info), 0);
		ck_assert_str_eq(info.name, names[n]);
		ck_assert_ptr_nonnull(info.summary);
		for (const char *c = names[n]; *c; c++)
			ck_assert_msg((*c >= 'a' && *c <= 'z') ||
					      (*c >= '0' && *c <= '9') ||
					      *c == '_',
				      "bad character in name %s", names[n]);
	}
	ck_assert_int_ge(n, 2);
}
END_TEST

START_TEST(cond_errors)
{
	liblock_cond_t c = LIBLOCK_COND_INITIALIZER;
	liblock_lock_t l;
	struct timespec bad = {0, -1};

	ck_assert_int_eq(liblock_init(&l, NULL), 0);
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_int_eq(liblock_cond_timedwait(&c, &l, &bad), EINVAL);
	ck_assert_int_eq(liblock_cond_timedwait(&c, &l, NULL), EINVAL);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_cond_signal(&c), 0); /* no waiter: no-op */
	ck_assert_int_eq(liblock_cond_destroy(&c), 0);
	ck_assert_int_eq(liblock_cond_signal(&c), EINVAL);
	ck_assert_int_eq(liblock_cond_wait(&c, &l), EINVAL);
	ck_assert_int_eq(liblock_cond_destroy(&c), EINVAL);
	ck_assert_int_eq(liblock_cond_init(NULL, NULL), EINVAL);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* A wait outside any section of the lock is refused with the unlock's
 * EPERM, and the lock stays free (the generic protocol must not sleep and
 * then take a lock the caller never held). */
START_TEST(cond_wait_outside_section_is_eperm)
{
	static const char *const algos[] = {"ticket", "mcs", "clh", "ttas"};
	liblock_cond_t c = LIBLOCK_COND_INITIALIZER;

	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
		liblock_attr_t a = LIBLOCK_ATTR_INITIALIZER;
		liblock_lock_t l;

		a.algorithm = algos[i];
		a.flags |= LIBLOCK_ATTR_FIXED;
		ck_assert_int_eq(liblock_init(&l, &a), 0);
		ck_assert_msg(liblock_cond_wait(&c, &l) == EPERM, "%s",
			      algos[i]);
		ck_assert_int_eq(liblock_trylock(&l), 0);
		ck_assert_int_eq(liblock_unlock(&l), 0);
		ck_assert_int_eq(liblock_destroy(&l), 0);
	}
	ck_assert_int_eq(liblock_cond_destroy(&c), 0);
}
END_TEST

/* The fork() tests run on every algorithm with a lock word that needs
 * no server.  Initialises @l (and @l2 unless NULL) with @name, fixed;
 * returns the algorithm's caps, or 0 if it is not one of those. */
static unsigned int init_lock_word(const char *name, liblock_lock_t *l,
				   liblock_lock_t *l2)
{
	liblock_attr_t a = LIBLOCK_ATTR_INITIALIZER;
	liblock_algorithm_info_t info;

	ck_assert_int_eq(liblock_algorithm_info(name, &info), 0);
	if (!(info.caps & LIBLOCK_CAP_LOCK) || (info.caps & LIBLOCK_CAP_SERVER))
		return 0;
	a.algorithm = name;
	a.flags |= LIBLOCK_ATTR_FIXED;
	ck_assert_int_eq(liblock_init(l, &a), 0);
	if (l2)
		ck_assert_int_eq(liblock_init(l2, &a), 0);
	return info.caps;
}

/* Appends " NAME (STATUS)" to @failed unless the child exited 0. */
static void note_child(char *failed, size_t size, const char *name, int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		snprintf(failed + strlen(failed), size - strlen(failed),
			 " %s (%#x)", name, (unsigned int)status);
}

/* pthread_atfork()'s idiom: the thread that forks holds the lock (its
 * prepare handler took it), and both the parent and the child release
 * it, each in its own copy.  Every algorithm with a lock word lets the
 * child, whose one thread has a new thread id, release it and take it
 * again. */
START_TEST(fork_child_releases_a_lock_held_at_fork)
{
	const char *const *names = liblock_algorithms();

	for (int n = 0; names[n]; n++) {
		liblock_lock_t l;
		int status = -1;
		pid_t pid;

		if (!init_lock_word(names[n], &l, NULL))
			continue;
		ck_assert_int_eq(liblock_lock(&l), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int ok = liblock_unlock(&l) == 0 &&
				 liblock_lock(&l) == 0 &&
				 liblock_unlock(&l) == 0;

			_exit(ok ? 0 : 1);
		}
		ck_assert_int_eq(liblock_unlock(&l), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "%s: the child could not release the lock",
			      names[n]);
		ck_assert_int_eq(liblock_destroy(&l), 0);
	}
}
END_TEST

static void *queue_behind(void *arg)
{
	liblock_lock_t *l = arg;

	ck_assert_int_eq(liblock_lock(l), 0);
	ck_assert_int_eq(liblock_unlock(l), 0);
	return NULL;
}

/* The same with a thread of the parent queued behind the holder when it
 * forks: in the child that thread does not exist.  A queue lock must not
 * hand the lock to it (the child's next lock waited for ever) nor wait
 * for it to link itself (a hang in the unlock): the child frees the lock.
 * Every algorithm with a lock word; alarm(): a hang fails the child. */
START_TEST(fork_child_releases_a_lock_with_a_parent_thread_queued)
{
	const char *const *names = liblock_algorithms();
	char failed[512] = "";

	for (int n = 0; names[n]; n++) {
		struct timespec pause = {0, 100 * 1000 * 1000};
		liblock_lock_t l;
		pthread_t t;
		int status = -1;
		pid_t pid;

		if (!init_lock_word(names[n], &l, NULL))
			continue;
		ck_assert_int_eq(liblock_lock(&l), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, queue_behind, &l), 0);
		nanosleep(&pause, NULL); /* it is queued, waiting */
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int ok;

			alarm(5);
			ok = liblock_unlock(&l) == 0 && liblock_lock(&l) == 0 &&
			     liblock_unlock(&l) == 0;
			_exit(ok ? 0 : 1);
		}
		ck_assert_int_eq(liblock_unlock(&l), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		note_child(failed, sizeof(failed), names[n], status);
		ck_assert_int_eq(liblock_destroy(&l), 0);
	}
	ck_assert_msg(!failed[0],
		      "the child could not release the lock (status):%s",
		      failed);
}
END_TEST

/* What the child of fork_child_uses_a_lock_held_at_fork does with the
 * two locks the forking thread held (@l with a parent's thread queued);
 * 0 if all went as it should, else the number of the step that failed. */
static int child_uses_locks_held_at_fork(liblock_lock_t *l, liblock_lock_t *l2)
{
	liblock_cond_t c = LIBLOCK_COND_INITIALIZER;
	struct timespec soon;
	pthread_t t;

	if (liblock_trylock(l) != EBUSY)
		return 1; /* held at the fork: still held */
#ifndef __SANITIZE_THREAD__
	/* a thread of the child waits for the forking thread's release
	 * (ThreadSanitizer ends a child of a multithreaded process that
	 * starts a thread) */
	if (pthread_create(&t, NULL, queue_behind, l) != 0)
		return 2;
	nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
	if (liblock_unlock(l) != 0)
		return 3;
	if (pthread_join(t, NULL) != 0)
		return 4;
#else
	(void)t;
	if (liblock_unlock(l) != 0)
		return 3;
#endif
	if (liblock_trylock(l) != 0 || liblock_unlock(l) != 0)
		return 5;
	/* a wait on a condition releases @l2 and takes it again */
	clock_gettime(CLOCK_REALTIME, &soon);
	soon.tv_nsec += 20 * 1000 * 1000;
	if (soon.tv_nsec >= 1000000000L) {
		soon.tv_sec++;
		soon.tv_nsec -= 1000000000L;
	}
	if (liblock_cond_timedwait(&c, l2, &soon) != ETIMEDOUT)
		return 6;
	if (liblock_trylock(l2) != EBUSY)
		return 7;
	if (liblock_unlock(l2) != 0 || liblock_lock(l2) != 0 ||
	    liblock_unlock(l2) != 0)
		return 8;
	return 0;
}

/* The child of a fork() made while a parent's thread was queued uses the
 * locks the forking thread held: trylock, a thread of its own that waits
 * for the release, a condition wait. */
START_TEST(fork_child_uses_a_lock_held_at_fork)
{
	const char *const *names = liblock_algorithms();
	char failed[512] = "";

	for (int n = 0; names[n]; n++) {
		liblock_lock_t l, l2;
		pthread_t t;
		int status = -1;
		pid_t pid;

		if (!init_lock_word(names[n], &l, &l2))
			continue;
		ck_assert_int_eq(liblock_lock(&l), 0);
		ck_assert_int_eq(liblock_lock(&l2), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, queue_behind, &l), 0);
		nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			alarm(5);
			_exit(child_uses_locks_held_at_fork(&l, &l2));
		}
		ck_assert_int_eq(liblock_unlock(&l2), 0);
		ck_assert_int_eq(liblock_destroy(&l2), 0);
		ck_assert_int_eq(liblock_unlock(&l), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		note_child(failed, sizeof(failed), names[n], status);
		ck_assert_int_eq(liblock_destroy(&l), 0);
	}
	ck_assert_msg(!failed[0], "the child's step failed (status):%s",
		      failed);
}
END_TEST

/* A lock free at the fork, in a child: taken and released as usual; an
 * unlock of it while free is refused. */
START_TEST(fork_child_uses_a_lock_free_at_fork)
{
	const char *const *names = liblock_algorithms();
	char failed[512] = "";

	for (int n = 0; names[n]; n++) {
		liblock_lock_t l;
		unsigned int caps;
		int status = -1;
		pid_t pid;

		if (!(caps = init_lock_word(names[n], &l, NULL)))
			continue;
		ck_assert_int_eq(liblock_lock(&l), 0);
		ck_assert_int_eq(liblock_unlock(&l), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int ok;

			alarm(5);
			ok = ((caps & LIBLOCK_CAP_OWNER) == 0 ||
			      liblock_unlock(&l) == EPERM) &&
			     liblock_lock(&l) == 0 && liblock_unlock(&l) == 0 &&
			     liblock_trylock(&l) == 0 &&
			     liblock_unlock(&l) == 0 &&
			     liblock_destroy(&l) == 0;
			_exit(ok ? 0 : 1);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		note_child(failed, sizeof(failed), names[n], status);
		ck_assert_int_eq(liblock_destroy(&l), 0);
	}
	ck_assert_msg(!failed[0], "the child failed (status):%s", failed);
}
END_TEST

/* liblock_mutexattr_flags() names the type a pthread attribute gives. */
START_TEST(mutexattr_flags_follow_the_type)
{
	static const struct {
		int type;
		unsigned int flags;
	} types[] = {
		{PTHREAD_MUTEX_NORMAL, 0},
		{PTHREAD_MUTEX_DEFAULT, 0},
		{PTHREAD_MUTEX_RECURSIVE, LIBLOCK_ATTR_RECURSIVE},
		{PTHREAD_MUTEX_ERRORCHECK, LIBLOCK_ATTR_ERRORCHECK},
	};
	pthread_mutexattr_t attr;

	ck_assert_uint_eq(liblock_mutexattr_flags(NULL), 0);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		ck_assert_int_eq(pthread_mutexattr_init(&attr), 0);
		ck_assert_int_eq(
			pthread_mutexattr_settype(&attr, types[i].type), 0);
		ck_assert_uint_eq(liblock_mutexattr_flags(&attr),
				  types[i].flags);
		ck_assert_int_eq(pthread_mutexattr_destroy(&attr), 0);
	}
}
END_TEST

/* A recursive lock the forking thread held two levels deep: the child's
 * thread holds both, and after two unlocks the lock is free. */
START_TEST(fork_child_keeps_a_recursive_lock_s_levels)
{
	const char *const *names = liblock_algorithms();
	char failed[512] = "";

	for (int n = 0; names[n]; n++) {
		liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
		liblock_algorithm_info_t info;
		liblock_lock_t l;
		int status = -1;
		pid_t pid;

		ck_assert_int_eq(liblock_algorithm_info(names[n], &info), 0);
		if (!(info.caps & LIBLOCK_CAP_LOCK))
			continue;
		attr.algorithm = names[n];
		attr.flags = LIBLOCK_ATTR_FIXED | LIBLOCK_ATTR_RECURSIVE;
		ck_assert_int_eq(liblock_init(&l, &attr), 0);
		ck_assert_int_eq(liblock_lock(&l), 0);
		ck_assert_int_eq(liblock_lock(&l), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int ok;

			alarm(5);
			ok = liblock_trylock(&l) == 0 &&
			     liblock_unlock(&l) == 0 &&
			     liblock_unlock(&l) == 0 &&
			     liblock_unlock(&l) == 0 &&
			     liblock_unlock(&l) == EPERM &&
			     liblock_lock(&l) == 0 && liblock_unlock(&l) == 0 &&
			     liblock_destroy(&l) == 0;
			_exit(ok ? 0 : 1);
		}
		ck_assert_int_eq(liblock_unlock(&l), 0);
		ck_assert_int_eq(liblock_unlock(&l), 0);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		note_child(failed, sizeof(failed), names[n], status);
		ck_assert_int_eq(liblock_destroy(&l), 0);
	}
	ck_assert_msg(!failed[0], "the child failed (status):%s", failed);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("liblock API errors");
	TCase *tc = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, unknown_algorithm_is_einval);
	tcase_add_test(tc, cond_wait_outside_section_is_eperm);
	tcase_add_test(tc, bad_server_cpu_is_einval);
	tcase_add_test(tc, destroy_twice_is_einval);
	tcase_add_test(tc, default_is_posix);
	tcase_add_test(tc, env_overrides_unless_fixed);
	tcase_add_test(tc, env_unknown_fails_init_static_falls_back);
	tcase_add_test(tc, aliases_resolve);
	tcase_add_test(tc, algorithm_list_is_consistent);
	tcase_add_test(tc, cond_errors);
	tcase_add_test(tc, fork_child_releases_a_lock_held_at_fork);
	tcase_add_test(tc,
		       fork_child_releases_a_lock_with_a_parent_thread_queued);
	tcase_add_test(tc, fork_child_uses_a_lock_held_at_fork);
	tcase_add_test(tc, fork_child_uses_a_lock_free_at_fork);
	tcase_add_test(tc, mutexattr_flags_follow_the_type);
	tcase_add_test(tc, fork_child_keeps_a_recursive_lock_s_levels);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
