#!/bin/sh
# SPDX-License-Identifier: MIT
# Options: -I finds project headers (lock macros, the structure holding
# the mutex), -D reaches the compile check, --macro-file adds lock macros
# defined where the tool does not look, --locks NAME selects by name.
. "$(dirname "$0")/common.sh"
cd "$TMP" || exit 1
mkdir -p src inc
cat >inc/guard.h <<'EOC'
#ifndef GUARD_H
#define GUARD_H
#include <pthread.h>
#define GRAB(g) pthread_mutex_lock(&(g)->mu)
#define DROP(g) pthread_mutex_unlock(&(g)->mu)
struct guard {
	pthread_mutex_t mu;
	int n;
};
#endif
EOC
cat >src/app.c <<'EOC'
#ifndef APP_BUILD
#error "build with -DAPP_BUILD"
#endif
#include "guard.h"
#include "extra.h"

static pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
static int hits;

void bump(struct guard *g)
{
	GRAB(g);
	g->n++;
	DROP(g);
}

void hit(void)
{
	TAKE(other);
	hits++;
	GIVE(other);
}
EOC
# extra.h lives where the tool does not look; its macros come from a
# --macro-file (the compile check still finds it through -I).
mkdir -p hidden
printf '#define TAKE(m) pthread_mutex_lock(&(m))\n#define GIVE(m) pthread_mutex_unlock(&(m))\n' >hidden/extra.h
cp hidden/extra.h macros.txt

"$RCLR" -I inc -I hidden -o o1 src/app.c >log 2>&1 && { cat log; fail "compiled without -D"; }
grep -q "does not compile" log || { cat log; fail "no compile-check message"; }

"$RCLR" -D APP_BUILD -I inc -I hidden --macro-file macros.txt -o o2 src/app.c \
	>log 2>&1 || { cat log; fail "run with -I/-D/--macro-file"; }
grep -q "2 section(s) found, 2 delegated" log || { cat log; fail "summary"; }
grep -q "liblock_lock_t mu;" o2/guard.h 2>/dev/null ||
	grep -q "liblock_lock_t mu;" o2/inc/guard.h ||
	{ ls -R o2; fail "header field not converted"; }
grep -q "liblock_exec(&other" o2/app.c o2/src/app.c 2>/dev/null ||
	fail "macro-file lock not extracted"
echo "ok: -I, -D, --macro-file"

"$RCLR" -D APP_BUILD -I inc -I hidden --macro-file macros.txt --locks other \
	-o o3 src/app.c >log 2>&1 || { cat log; fail "--locks other"; }
grep -q "1 delegated, 0 held, 0 refused, 1 of unselected locks left alone" log ||
	{ cat log; fail "--locks NAME summary"; }
echo "ok: --locks NAME"

# The sections of a spinlock and a read-write lock, which are not
# converted: refused when selected, left alone as unselected otherwise.
"$RCLR" --locks totals -o o3b "$here/awkward/other_lock_kinds.c" >log 2>&1 ||
	{ cat log; fail "--locks totals: exit $?"; }
grep -qx "rcl-refactor: 4 section(s) found, 1 delegated, 0 held, 0 refused, 3 of unselected locks left alone" log ||
	{ cat log; fail "--locks totals: the other kinds are not left alone"; }
"$RCLR" --locks histo_lock -o o3c "$here/awkward/other_lock_kinds.c" >log 2>&1 &&
	{ cat log; fail "--locks histo_lock: exit 0 with refused sections"; }
[ "$(grep -c "other_lock_kinds.c:[0-9]*: not transformed: pthread_spin_lock() takes a spinlock" log)" = 2 ] ||
	{ cat log; fail "--locks histo_lock: the spinlock's two sections"; }
grep -q "rwlock" log && { cat log; fail "--locks histo_lock: the rwlock named"; }
echo "ok: --locks NAME and locks that are not mutexes"

# A section of a selected lock that releases a mutex taken before it
# (hand-over-hand with an unselected, error-checking one) stays held: on
# a server thread that unlock would fail and leave the mutex locked.
"$RCLR" --locks b -o o4 "$here/select/handover.c" >log 2>&1
grep -q "handover.c:[0-9]*: held: releases &a at line [0-9]*, taken before the section" log ||
	{ cat log; fail "--locks b: the section releasing a is not held"; }
cc_rcl o4/prog o4/handover.c -I o4 || fail "handover: build"
"$CC" -std=gnu11 -O2 -pthread "$here/select/handover.c" -o orig || fail "handover: original build"
want=$(./orig) || fail "handover: original run"
for algo in rcl posix mcs; do
	got=$(LIBLOCK_LOCK=$algo timeout -k 5 60 ./o4/prog) ||
		fail "handover under $algo: exit $?"
	[ "$got" = "$want" ] || fail "handover under $algo: $got, want $want"
done
# the same unlock inside an expression (its result checked)
sed 's/^\t\tpthread_mutex_unlock(&a);$/\t\tif (pthread_mutex_unlock(\&a) != 0) abort();/' \
	"$here/select/handover.c" >handover_expr.c
grep -q "if (pthread_mutex_unlock(&a) != 0) abort();" handover_expr.c || fail "sed"
"$RCLR" --locks b -o o5 handover_expr.c >log 2>&1
grep -q "handover_expr.c:[0-9]*: held: pthread_mutex_unlock() called inside an expression" log ||
	{ cat log; fail "--locks b: the unlock of a inside an expression is not seen"; }
echo "ok: a section releasing an unselected mutex taken before it is held"

# a non-static lock wrapper used from another file: its companion is
# declared once before its definition (memcached builds with these flags)
mkdir ew && cp "$here/select/extwrap.c" "$here/select/extwrap_use.c" ew/
"$RCLR" --locks all --in-place ew/extwrap.c ew/extwrap_use.c >log 2>&1 ||
	{ cat log; fail "extwrap: rcl-refactor"; }
grep -q "slabs_mlock_rcl_exec" ew/extwrap_use.c || fail "extwrap: no companion call"
cc_rcl ew/prog ew/extwrap.c -I ew ew/extwrap_use.c -Wmissing-prototypes \
	-Wredundant-decls || fail "extwrap: build with -Wmissing-prototypes -Wredundant-decls"
[ "$(LIBLOCK_LOCK=rcl timeout -k 5 60 ./ew/prog)" = 1 ] || fail "extwrap: run under rcl"
echo "ok: a non-static wrapper's companion is declared once"

# #include <count.h> from src/ means the -I directory's count.h, as the
# compiler reads it, even with a different count.h beside the file (redis'
# redis-benchmark.c takes hiredis' <sds.h>, not its own directory's
# sds.h): the compile check does not put the file's directory first
mkdir -p shadow/src shadow/lib
cat >shadow/lib/count.h <<'EOC'
#ifndef LIB_COUNT_H
#define LIB_COUNT_H
struct count { long n; };
static inline long count_get(const struct count *c) { return c->n; }
#endif
EOC
# (src/count.h is also the header of another input, copied beside the
# outputs for their compile check)
cat >shadow/src/count.h <<'EOC'
#ifndef SRC_COUNT_H
#define SRC_COUNT_H
#ifdef LIB_COUNT_H
#error src/count.h read for <count.h>
#endif
struct count { int n; };
#endif
EOC
cat >shadow/src/other.c <<'EOC'
#include <pthread.h>
#include "count.h"

static pthread_mutex_t other_lock = PTHREAD_MUTEX_INITIALIZER;
struct count others;

void other_bump(void);
void other_bump(void)
{
	pthread_mutex_lock(&other_lock);
	others.n++;
	pthread_mutex_unlock(&other_lock);
}
EOC
cat >shadow/src/tally.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
#include <count.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct count total;

static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&lock);
		total.n++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", count_get(&total));
	return 0;
}
EOC
"$RCLR" --locks all -I shadow/lib -o o6 shadow/src/tally.c shadow/src/other.c >log 2>&1 ||
	{ cat log; fail "angle include through -I: rcl-refactor"; }
grep -q "liblock_exec" o6/tally.c || { cat log; fail "angle include through -I: nothing delegated"; }
cc_rcl o6/prog o6/tally.c -I shadow/lib -I o6 || fail "angle include through -I: build"
[ "$(LIBLOCK_LOCK=rcl timeout -k 5 60 ./o6/prog)" = 4000 ] || fail "angle include through -I: run under rcl"
echo "ok: <header> through -I, not the file's own directory"
# When the compile check stops the run, the summary says nothing was
# delegated or held, and what the run was about to do.  A compiler that
# rejects every file calling liblock_exec(), at its first line (no
# section to blame), stands for a transformed file that does not build.
mkdir -p stopcc
cat >stopcc/cc <<'EOS'
#!/bin/sh
for a; do
	case $a in
	*.c) if grep -q liblock_exec "$a"; then
		echo "$a:1:1: error: rejected by the test" >&2; exit 1; fi ;;
	esac
done
exec cc "$@"
EOS
chmod +x stopcc/cc
CC=$PWD/stopcc/cc "$RCLR" --locks all -I shadow/lib -o o7 shadow/src/tally.c \
	>log 2>&1 &&
	{ cat log; fail "stopped run: exit 0"; }
grep -q "the transformed file does not compile; nothing written" log ||
	{ cat log; fail "stopped run: no message"; }
grep -q "1 section(s) found, 0 delegated, 0 held, 0 refused; nothing written (1 to be delegated and 0 held when it stopped)" log ||
	{ cat log; fail "stopped run: summary counts what was not written"; }
[ ! -e o7 ] || { ls -R o7; fail "stopped run: wrote o7"; }
echo "ok: a run the compile check stops says nothing was delegated"
exit 0
