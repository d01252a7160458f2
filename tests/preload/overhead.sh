#!/bin/sh
# SPDX-License-Identifier: MIT
# What rcl-run costs per uncontended pthread_mutex_lock/unlock pair, side
# by side with glibc in one run (not a test: a measurement, see
# docs/PERFORMANCE.md).  From the build's tests/ directory:
#   preload/overhead.sh [-r ROUNDS] [-o OLDDIR] [ALGO...]
# Runs `pt_work overhead` directly and under rcl-run for each ALGO
# (default: posix spinlock mcs), interleaved, ROUNDS times (default 7);
# prints the median of each, single-threaded and multi-threaded process,
# and its ratio to glibc's.  -o OLDDIR: also run another build's
# librclrun.so and librcl.so.0, both in OLDDIR (before/after a change).
. "$(dirname "$0")/lib.sh"

rounds=7 old=
while getopts r:o: opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	o) old=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-o OLDDIR] [ALGO...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- posix spinlock mcs
case $rounds in
'' | *[!0-9]*) fail "-r $rounds: not a number" ;;
esac
if [ -n "$old" ] && [ ! -e "$old/librclrun.so" ]; then
	fail "-o $old: no librclrun.so there"
fi
nice=
nice -n -15 true 2>/dev/null && nice="nice -n -15"

# one NAME [ENV...]: "NAME-st NS" and "NAME-mt NS" lines.
one() {
	_name=$1
	shift
	env "$@" timeout -k 5 120 $nice "$PT_WORK" overhead |
		awk -v n="$_name" '/single-threaded/ { print n "-st", $1 }
			/multi-threaded/ { print n "-mt", $1 }'
}

i=0
while [ $i -lt "$rounds" ]; do
	one glibc
	for a in "$@"; do
		one "$a" LIBLOCK_LOCK="$a" \
			LD_PRELOAD="$top_builddir/liblock/interpose/.libs/librclrun.so"
		[ -z "$old" ] ||
			one "old-$a" LIBLOCK_LOCK="$a" LD_LIBRARY_PATH="$old" \
				LD_PRELOAD="$old/librclrun.so"
	done
	i=$((i + 1))
done >"$TMP/runs"
# Medians (and the range of the rounds), then each ratio to glibc's median
# in the same process state.
sort -k1,1 -k2,2n "$TMP/runs" | awk '
	{ v[$1, ++n[$1]] = $2 }
	END {
		for (k in n) med[k] = v[k, int((n[k] + 1) / 2)]
		for (k in n) {
			st = k ~ /-st$/ ? "st" : "mt"
			printf "%-16s %6.1f ns  %4.2fx glibc  (%.1f-%.1f)\n", k,
				med[k], med[k] / med["glibc-" st], v[k, 1],
				v[k, n[k]]
		}
	}' | sort
echo "rounds: $rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
