#!/bin/sh
# SPDX-License-Identifier: MIT
# Every wrapper (31) is reached from a program compiled now against the
# installed glibc (which binds pthread_create@GLIBC_2.34 and
# pthread_cond_*@GLIBC_2.3.2): the profile's wrapper_calls must count
# each call exactly.
. "${srcdir:-.}/profiler/lib.sh"
CC=${PROF_CC:-cc}

cat >"$T/fresh.c" <<'CEOF'
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m;
static pthread_rwlock_t rw;
static pthread_spinlock_t sp;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int flag;

static void *signaller(void *a)
{
	pthread_mutex_lock(&m);
	flag = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	return a;
}

static void *quitter(void *a)
{
	pthread_exit(a);
}

static struct timespec soon(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 2000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

int main(void)
{
	struct timespec ts;
	pthread_t t;

	if (pthread_mutex_init(&m, NULL) || pthread_mutex_lock(&m))
		return 10;
	if (pthread_mutex_trylock(&m) != EBUSY)
		return 11;
	ts = soon();
	if (pthread_mutex_timedlock(&m, &ts) != ETIMEDOUT)
		return 12;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec = ts.tv_nsec >= 998000000 ? 999999999 : ts.tv_nsec + 2000000;
	if (pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts) != ETIMEDOUT)
		return 17;
	if (pthread_create(&t, NULL, signaller, NULL))
		return 13;
	while (!flag)
		pthread_cond_wait(&c, &m);
	ts = soon();
	if (pthread_cond_timedwait(&c, &m, &ts) != ETIMEDOUT)
		return 14;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &ts) != ETIMEDOUT)
		return 18;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	if (pthread_create(&t, NULL, quitter, NULL) || pthread_join(t, NULL))
		return 15;
	if (pthread_mutex_destroy(&m))
		return 16;
	if (pthread_rwlock_init(&rw, NULL) || pthread_rwlock_rdlock(&rw) ||
	    pthread_rwlock_tryrdlock(&rw))
		return 20;
	if (pthread_rwlock_trywrlock(&rw) != EBUSY)
		return 21;
	ts = soon();
	if (pthread_rwlock_timedwrlock(&rw, &ts) != ETIMEDOUT)
		return 22;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts) != ETIMEDOUT)
		return 23;
	if (pthread_rwlock_unlock(&rw) || pthread_rwlock_unlock(&rw) ||
	    pthread_rwlock_wrlock(&rw) || pthread_rwlock_unlock(&rw))
		return 24;
	ts = soon();
	if (pthread_rwlock_timedrdlock(&rw, &ts) || pthread_rwlock_unlock(&rw))
		return 25;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec++;
	if (pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts) ||
	    pthread_rwlock_unlock(&rw) || pthread_rwlock_destroy(&rw))
		return 26;
	if (pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE) ||
	    pthread_spin_lock(&sp) || pthread_spin_trylock(&sp) != EBUSY ||
	    pthread_spin_unlock(&sp) || pthread_spin_destroy(&sp))
		return 27;
	printf("fresh ok\n");
	return 0;
}
CEOF
$CC -O2 -g -pthread "$T/fresh.c" -o "$T/fresh" || fail "cannot compile with $CC"
if command -v readelf >/dev/null; then
	readelf --dyn-syms -W "$T/fresh" >"$T/syms"
	for s in pthread_create@GLIBC_2.34 pthread_cond_wait@GLIBC_2.3.2 \
		pthread_mutex_lock@GLIBC_2.2.5; do
		grep -q " $s" "$T/syms" || fail "fresh program does not bind $s"
	done
fi
out=$(timeout -k 5 60 "$RCLPROF" --table none -o "$T/p.json" -- "$T/fresh") ||
	fail "fresh program exited $? under rcl-prof"
[ "$out" = "fresh ok" ] || fail "output: $out"
check "$T/p.json" \
	'p["global"]["wrapper_calls"] == {"pthread_mutex_init": 1, "pthread_mutex_destroy": 1, "pthread_mutex_lock": 2, "pthread_mutex_trylock": 1, "pthread_mutex_timedlock": 1, "pthread_mutex_unlock": 2, "pthread_cond_wait": p["global"]["cond_waits"] - 2, "pthread_cond_timedwait": 1, "pthread_cond_signal": 1, "pthread_cond_broadcast": 1, "pthread_create": 2, "pthread_join": 2, "pthread_exit": 1, "pthread_mutex_clocklock": 1, "pthread_cond_clockwait": 1, "pthread_rwlock_init": 1, "pthread_rwlock_destroy": 1, "pthread_rwlock_rdlock": 1, "pthread_rwlock_tryrdlock": 1, "pthread_rwlock_timedrdlock": 1, "pthread_rwlock_clockrdlock": 1, "pthread_rwlock_wrlock": 1, "pthread_rwlock_trywrlock": 1, "pthread_rwlock_timedwrlock": 1, "pthread_rwlock_clockwrlock": 1, "pthread_rwlock_unlock": 5, "pthread_spin_init": 1, "pthread_spin_destroy": 1, "pthread_spin_lock": 1, "pthread_spin_trylock": 1, "pthread_spin_unlock": 1}' \
	'p["global"]["wrapper_calls"]["pthread_cond_wait"] >= 1' \
	'[(l["trylock_failures"], l["timeouts"]) for l in p["locks"] if l["type"] == "mutex"] == [(1, 2)]' \
	'[(l["acquisitions"], l["trylock_failures"], l["timeouts"]) for l in p["locks"] if l["type"] == "rwlock-write"] == [(1, 1, 2)]' \
	'[(l["acquisitions"], l["instances"]) for l in p["locks"] if l["type"] == "rwlock-read"] == [(3, 1)]' \
	'[(l["acquisitions"], l["trylock_failures"]) for l in p["locks"] if l["type"] == "spinlock"] == [(1, 1)]' \
	'p["global"]["threads"] == 3'
echo "ok: every wrapper reached"
