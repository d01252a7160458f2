#!/bin/sh
# SPDX-License-Identifier: MIT
# Lock macros defined under #if/#ifdef/#elif/#else: read with the -D/-U
# given, in a header found through -I and in a --macro-file; a condition
# the tool cannot decide reads both branches and keeps the pthread one.
. "$(dirname "$0")/common.sh"
tool_only
cd "$TMP" || exit 1
mkdir -p src inc
cat >inc/thr.h <<'EOC'
#ifndef THR_H
#define THR_H
#include <pthread.h>
#if defined(MT) && MT_LEVEL > 1
#define MY_mutex_lock(a) pthread_mutex_lock((a))
#define MY_mutex_unlock(a) pthread_mutex_unlock((a))
#elif !defined(MT)
#define MY_mutex_lock(a) ((void)(a))
#define MY_mutex_unlock(a) ((void)(a))
#else
#define MY_mutex_lock(a) do { (void)(a); } while (0)
#define MY_mutex_unlock(a) do { (void)(a); } while (0)
#endif
#ifdef NO_POOL_LOCK
#define POOL_LOCK(p) ((void)(p))
#define POOL_UNLOCK(p) ((void)(p))
#else
#define POOL_LOCK(p) MY_mutex_lock(&(p)->m)
#define POOL_UNLOCK(p) MY_mutex_unlock(&(p)->m)
#endif
#endif
EOC
cat >src/p.c <<'EOC'
#include "thr.h"
struct pool { pthread_mutex_t m; int n; };
int bump(struct pool *p)
{
	int v;
	MY_mutex_lock(&p->m);
	v = ++p->n;
	MY_mutex_unlock(&p->m);
	return v;
}
int put(struct pool *p)
{
	int v;
	POOL_LOCK(p);
	v = --p->n;
	POOL_UNLOCK(p);
	return v;
}
EOC

# expect N ARGS...: the run succeeds and finds N sections.
n=0
expect() {
	want=$1
	shift
	n=$((n + 1))
	"$RCLR" --locks all "$@" -o "o$n" src/p.c >log 2>&1 ||
		{ cat log; fail "run $*"; }
	grep -q "^rcl-refactor: $want section(s) found, $want delegated" log ||
		{ cat log; fail "$*: want $want section(s)"; }
}
expect 2 -I inc -D MT -D MT_LEVEL=2
grep -q "liblock_exec(&p->m" "o$n/p.c" "o$n/src/p.c" 2>/dev/null ||
	fail "-D MT: section not converted"
expect 0 -I inc -D MT -D MT_LEVEL=1        # #else: no-op macros
expect 0 -I inc -U MT                      # #elif !defined(MT)
expect 1 -I inc -D MT -D MT_LEVEL=2 -D NO_POOL_LOCK
expect 2 -I inc -D MT                      # MT_LEVEL unknown: pthread kept
expect 2 -I inc                            # MT unknown: pthread kept

# The same macros in a --macro-file (thr.h not found by the tool).
cp inc/thr.h macros.h
mkdir -p hid && cp inc/thr.h hid/
expect 2 -I hid --no-compile-check --macro-file macros.h -D MT -D MT_LEVEL=3
expect 0 -I hid --no-compile-check --macro-file macros.h -U MT

# A bad -U/-D is a usage error naming it.
"$RCLR" -U 'A-B' -o o src/p.c >log 2>&1 && fail "-U A-B accepted"
grep -q "A-B" log || { cat log; fail "-U error does not name the value"; }
"$RCLR" -D '=1' -o o src/p.c >log 2>&1 && fail "-D =1 accepted"

# An initialiser macro defined in three #if branches and a default-mutex
# init in a branch the build skips (SQLite's SQLITE3_MUTEX_INITIALIZER and
# SQLITE_HOMEGROWN_RECURSIVE_MUTEX): every definition and that init are
# converted too, so the other configurations still compile.
"$RCLR" --locks all -o oinit \
	"$top_srcdir/tests/cocci/awkward/mutex_table_initializer.c" >log 2>&1 ||
	{ cat log; fail "initialiser macro: not converted"; }
n=$(grep -c "define MY_MUTEX_INITIALIZER(id) { LIBLOCK_INITIALIZER_ALGO(" \
	oinit/mutex_table_initializer.c)
[ "$n" -eq 3 ] || fail "initialiser macro: $n of its 3 definitions converted"
grep -q "liblock_init(&p->mutex, NULL);" oinit/mutex_table_initializer.c ||
	fail "skipped default init not converted"
for cfg in "1 1" "0 0"; do
	set -- $cfg
	sed -e "s/^#define MUTEX_NREF 0/#define MUTEX_NREF $1/" \
		-e "s/^#define API_ARMOR 1/#define API_ARMOR $2/" \
		oinit/mutex_table_initializer.c >oinit/other.c
	$CC -std=gnu11 -Wall -Werror -fsyntax-only -DHOMEGROWN_RECURSIVE \
		$RCL_CFLAGS -Ioinit oinit/other.c ||
		fail "initialiser macro: configuration NREF=$1 ARMOR=$2 fails"
done
echo "ok ifdef"
