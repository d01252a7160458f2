#!/bin/sh
# SPDX-License-Identifier: MIT
# Idempotence: running rcl-refactor on its own output changes nothing,
# with -o and with --in-place (files are not even rewritten), and the
# user's edits to rcl-config.h survive a new run.
. "$(dirname "$0")/common.sh"
tool_only
cd "$TMP" || exit 1
mkdir in && cp "$CORPUS"/*.c in/ && cp "$GOLDEN"/*_ok.c "$GOLDEN"/*.h in/
cp "$GOLDEN"/*.json in/
for f in in/*.c; do
	n=$(basename "$f" .c)
	rm -rf o1 o2
	args=
	[ -f "$GOLDEN/$n.args" ] && args=$(cat "$GOLDEN/$n.args")
	# From in/, where the files .args names (a --macro-file) are.
	# shellcheck disable=SC2086
	(cd in && "$RCLR" -q $args -o ../o1 "$n.c") >log1 2>&1 ||
		{ cat log1; fail "$n: first run"; }
	# shellcheck disable=SC2086
	(cd in && "$RCLR" -q $args -o ../o2 ../o1/"$n".c) >log2 2>&1 ||
		{ cat log2; fail "$n: second run"; }
	diff -u o1/"$n".c o2/"$n".c || fail "$n: second run changed the code"
	diff -u o1/rcl-config.h o2/rcl-config.h ||
		fail "$n: second run changed rcl-config.h"
	echo "ok $n"
done
# In place: the second run leaves the files alone, and keeps an edited
# rcl-config.h entry.
mkdir ip && cp "$CORPUS/counter.c" ip/
"$RCLR" -q --in-place ip/counter.c || fail "in-place run"
sed -i 's/_ALGO "rcl"/_ALGO "posix"/' ip/rcl-config.h
cp ip/counter.c ip/counter.1 && cp ip/rcl-config.h ip/config.1
"$RCLR" -q --in-place ip/counter.c || fail "second in-place run"
cmp -s ip/counter.c ip/counter.1 || fail "second in-place run changed the code"
cmp -s ip/rcl-config.h ip/config.1 || fail "user edit of rcl-config.h lost"
echo "ok in-place"
# Reproducible: the same input gives the same output whatever Python's
# hash seed.  A macro of the section names four of the caller's locals
# (memcached's APPEND_STAT names add_stats and c); their context fields
# once came out in a different order from run to run.
mkdir -p seed && cat >seed/emit.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
typedef void (*emit_fn)(const char *key, long val, void *cookie);
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static long gets, sets, misses;
#define EMIT(key, val) \
	do { emit(key, (val), cookie); count++; total += (val); } while (0)
void report(emit_fn emit, void *cookie);
void report(emit_fn emit, void *cookie)
{
	int count = 0;
	long total = 0;

	pthread_mutex_lock(&st_lock);
	EMIT("gets", gets);
	EMIT("sets", sets);
	EMIT("misses", misses);
	pthread_mutex_unlock(&st_lock);
	printf("%d %ld\n", count, total);
}
EOC
for s in 1 2 3 4 5 6; do
	PYTHONHASHSEED=$s "$RCLR" -q --locks all -o seed/o$s seed/emit.c ||
		fail "emit.c, hash seed $s"
	cmp -s seed/o1/emit.c seed/o$s/emit.c || {
		diff -u seed/o1/emit.c seed/o$s/emit.c
		fail "emit.c: hash seed $s gives another output"
	}
done
grep -q "rcl_ctx.in.cookie = cookie;" seed/o1/emit.c ||
	fail "emit.c: the section's macro arguments are not in its context"
echo "ok reproducible across hash seeds"
exit 0
