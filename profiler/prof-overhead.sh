#!/bin/sh
# SPDX-License-Identifier: MIT
# `make prof-overhead`: where the cost of a profiled uncontended
# lock/unlock pair goes (docs/PROFILER.md, "Overhead").  For each lock
# kind, prof_overhead measures the thread CPU time per pair (minimum of
# $REPS runs of $PAIRS pairs) in five configurations:
#   plain     no profiler
#   wrapper   librclprof.so preloaded, profiling off: the interposed call
#   untimed   rcl-prof --sample 1000000: every pair counted, none timed
#             (thread block, lock table, site, hold stack, seqlock check)
#   sample8   rcl-prof --sample 8 (the documented sampling mode)
#   full      rcl-prof: every pair timed
# and the cost of two time-stamp counter reads (the clock of a timed
# pair).  Short on purpose (~10 s): the build machines are shared.
# Usage: prof-overhead.sh BUILDDIR [KIND...]   (KIND: mutex rdlock wrlock
# spin; default all).  Environment: PAIRS (default 2000000), REPS (7),
# RCLPROF_LIB (another build of the library, e.g. an older one to compare).
set -u
top=${1:?usage: prof-overhead.sh BUILDDIR [KIND...]}
shift
bench=$top/profiler/prof_overhead
prof=$top/profiler/rcl-prof
lib=${RCLPROF_LIB:-$top/profiler/.libs/librclprof.so} # rcl-prof takes it too
for f in "$bench" "$prof" "$lib"; do
	[ -e "$f" ] || { echo "prof-overhead: $f not built" >&2; exit 2; }
done
n=${PAIRS:-2000000}
r=${REPS:-7}
kinds=${*:-mutex rdlock wrlock spin}

# ns KIND CONFIG: ns per pair
ns() {
	case $2 in
	plain) out=$("$bench" -n "$n" -r "$r" "$1") ;;
	wrapper) out=$(LD_PRELOAD=$lib "$bench" -n "$n" -r "$r" "$1") ;;
	untimed) out=$("$prof" --sample 1000000 --table none -o none -- "$bench" -n "$n" -r "$r" "$1") ;;
	sample8) out=$("$prof" --sample 8 --table none -o none -- "$bench" -n "$n" -r "$r" "$1") ;;
	full) out=$("$prof" --table none -o none -- "$bench" -n "$n" -r "$r" "$1") ;;
	esac || { echo "prof-overhead: $1 $2 failed" >&2; exit 1; }
	echo "$out" | awk '{print $2}'
}

tsc=$(ns tsc plain)
printf 'two TSC reads: %s ns\n' "$tsc"
printf '%-7s %7s %8s %8s %8s %8s   %s\n' kind plain wrapper untimed sample8 full \
	"ns per uncontended pair; full - plain = wrapper + tracking + timing"
for k in $kinds; do
	p=$(ns "$k" plain)
	w=$(ns "$k" wrapper)
	u=$(ns "$k" untimed)
	s=$(ns "$k" sample8)
	f=$(ns "$k" full)
	printf '%-7s %7s %8s %8s %8s %8s   %s\n' "$k" "$p" "$w" "$u" "$s" "$f" \
		"$(echo "$p $w $u $f" | awk '{printf "= %.1f + %.1f + %.1f", $2-$1, $3-$2, $4-$3}')"
done
