#!/bin/sh
# SPDX-License-Identifier: MIT
# `make prof-overhead`: what rcl-prof costs (docs/PROFILER.md, "Overhead").
#
# Pairs: where the cost of a profiled uncontended lock/unlock pair goes.
# For each lock kind, prof_overhead measures the thread CPU time per pair
# (minimum of $REPS runs of $PAIRS pairs) in five configurations:
#   plain     no profiler
#   wrapper   librclprof.so preloaded, profiling off: the interposed call
#   untimed   rcl-prof --sample 1000000: every pair counted, none timed
#             (thread block, lock table, site, hold stack, seqlock check)
#   sample8   rcl-prof --sample 8 (the documented sampling mode)
#   full      rcl-prof: every pair timed
# (and mutrace, when $MUTRACE names its launcher), and the cost of two
# time-stamp counter reads (the clock of a timed pair).
#
# Programs (KIND `programs`): whole programs, plain, under rcl-prof
# (default and --sample 8) and under mutrace ($MUTRACE), interleaved
# ($PROGRAM_REPS rounds, each running every configuration once), as
# medians of the program process's wall time and CPU time (user + system:
# `prof_overhead time`, run under the profiler, so rcl-prof's report,
# which runs afterwards in its own process, is not counted) and their
# ratios to plain and to mutrace:
#   kvcache   apps/sample/kvcache -t 8 -n 2000000 (one lock per operation)
#   moderate  rcl-bench cs --lock pthread --threads 8 --delay 5000 --iterations
#             20000 --no-pin (one pthread mutex, ~2 us of work between
#             sections)
#
# Short on purpose (~10 s + ~30 s for the programs): the build machines
# are shared.
# Usage: prof-overhead.sh BUILDDIR [KIND...]   (KIND: mutex rdlock wrlock
# spin programs; default all).  Environment: PAIRS (default 2000000),
# REPS (7), PROGRAM_REPS (5), RCLPROF_LIB (another build of the library,
# e.g. an older one to compare), RCLPROF_BASE (programs: another build
# of the library measured in the same rounds, as base-full and
# base-sample8: before/after), MUTRACE (the `mutrace` launcher of a
# mutrace build, to measure it side by side; docs/PROFILER.md says how
# to build one).
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
pr=${PROGRAM_REPS:-5}
mt=${MUTRACE:-}
if [ -n "$mt" ] && ! [ -x "$mt" ]; then
	echo "prof-overhead: MUTRACE=$mt: not an executable" >&2
	exit 2
fi
kinds=${*:-mutex rdlock wrlock spin programs}
for k in $kinds; do
	case $k in
	mutex | rdlock | wrlock | spin | programs) ;;
	*)
		echo "prof-overhead: $k: not a kind (mutex rdlock wrlock spin programs)" >&2
		exit 2
		;;
	esac
done

# ns KIND CONFIG: ns per pair
ns() {
	case $2 in
	plain) out=$("$bench" -n "$n" -r "$r" "$1") ;;
	wrapper) out=$(LD_PRELOAD=$lib "$bench" -n "$n" -r "$r" "$1") ;;
	untimed) out=$("$prof" --sample 1000000 --table none -o none -- "$bench" -n "$n" -r "$r" "$1") ;;
	sample8) out=$("$prof" --sample 8 --table none -o none -- "$bench" -n "$n" -r "$r" "$1") ;;
	full) out=$("$prof" --table none -o none -- "$bench" -n "$n" -r "$r" "$1") ;;
	mutrace) out=$("$mt" "$bench" -n "$n" -r "$r" "$1" 2>/dev/null) ;;
	esac || { echo "prof-overhead: $1 $2 failed" >&2; exit 1; }
	echo "$out" | awk '{print $2}'
}

pairs=
for k in $kinds; do
	[ "$k" = programs ] || pairs="$pairs $k"
done
if [ -n "$pairs" ]; then
	tsc=$(ns tsc plain)
	printf 'two TSC reads: %s ns\n' "$tsc"
	printf '%-7s %7s %8s %8s %8s %8s' kind plain wrapper untimed sample8 full
	[ -n "$mt" ] && printf ' %8s' mutrace
	printf '   %s\n' "ns per uncontended pair; full - plain = wrapper + tracking + timing"
	for k in $pairs; do
		p=$(ns "$k" plain)
		w=$(ns "$k" wrapper)
		u=$(ns "$k" untimed)
		s=$(ns "$k" sample8)
		f=$(ns "$k" full)
		printf '%-7s %7s %8s %8s %8s %8s' "$k" "$p" "$w" "$u" "$s" "$f"
		# mutrace profiles mutexes and rwlocks, not spin locks
		if [ -n "$mt" ]; then
			if [ "$k" = spin ]; then
				printf ' %8s' -
			else
				printf ' %8s' "$(ns "$k" mutrace)"
			fi
		fi
		printf '   %s\n' "$(echo "$p $w $u $f" | awk '{printf "= %.1f + %.1f + %.1f", $2-$1, $3-$2, $4-$3}')"
	done
fi

case " $kinds " in *" programs "*) ;; *) exit 0 ;; esac
kv=$top/apps/sample/kvcache
rb=$top/apps/rcl-bench
for f in "$kv" "$rb"; do
	[ -e "$f" ] || { echo "prof-overhead: $f not built" >&2; exit 2; }
done
# In the build tree apps/rcl-bench is libtool's wrapper script: under the
# profiler its shell, sed and ls would be profiled and timed too (each
# loading the library, ~70 ms of CPU).  Run the binary itself.
if [ -x "$top/apps/.libs/rcl-bench" ]; then
	rb=$top/apps/.libs/rcl-bench
	LD_LIBRARY_PATH=$top/runtime/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
cfgs="plain full sample8"
base=${RCLPROF_BASE:-}
if [ -n "$base" ]; then
	[ -e "$base" ] || { echo "prof-overhead: RCLPROF_BASE=$base: no such file" >&2; exit 2; }
	cfgs="$cfgs base-full base-sample8"
fi
[ -n "$mt" ] && cfgs="$cfgs mutrace"
res=$(mktemp) || exit 1
trap 'rm -f "$res"' EXIT

# prog PROGRAM: its command line
prog() {
	case $1 in
	kvcache) echo "$kv -t 8 -n 2000000" ;;
	moderate) echo "$rb cs --lock pthread --threads 8 --delay 5000 --iterations 20000 --no-pin" ;;
	esac
}

# timed PROGRAM CONFIG: appends "PROGRAM CONFIG WALL CPU" to $res
timed() {
	# shellcheck disable=SC2046 # the command line is split on purpose
	case $2 in
	plain) out=$("$bench" time $(prog "$1")) ;;
	full) out=$("$prof" --table none -o none -- "$bench" time $(prog "$1")) ;;
	sample8) out=$("$prof" --sample 8 --table none -o none -- "$bench" time $(prog "$1")) ;;
	base-full) out=$(RCLPROF_LIB=$base "$prof" --table none -o none -- "$bench" time $(prog "$1")) ;;
	base-sample8) out=$(RCLPROF_LIB=$base "$prof" --sample 8 --table none -o none -- "$bench" time $(prog "$1")) ;;
	mutrace) out=$("$mt" "$bench" time $(prog "$1") 2>/dev/null) ;;
	esac || { echo "prof-overhead: $1 under $2 failed" >&2; exit 1; }
	echo "$out" | awk -v p="$1" -v c="$2" '$1 == "time" {print p, c, $2, $3}' >>"$res"
}

echo
echo "programs: medians of $pr interleaved rounds; wall and process CPU time (s), ratio to plain"
for p in kvcache moderate; do
	i=0
	while [ $i -lt "$pr" ]; do
		for c in $cfgs; do
			timed "$p" "$c"
		done
		i=$((i + 1))
	done
done
awk -v cfgs="$cfgs" '
function median(key,    n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	w = $1 SUBSEP $2 SUBSEP "wall"; v[w, ++cnt[w]] = $3
	c = $1 SUBSEP $2 SUBSEP "cpu"; v[c, ++cnt[c]] = $4
	if (!($1 in seen)) { seen[$1] = 1; progs[++np] = $1 }
}
END {
	nc = split(cfgs, cf, " ")
	for (i = 1; i <= np; i++) {
		p = progs[i]
		pw = median(p SUBSEP "plain" SUBSEP "wall")
		pc = median(p SUBSEP "plain" SUBSEP "cpu")
		for (j = 1; j <= nc; j++) {
			w = median(p SUBSEP cf[j] SUBSEP "wall")
			c = median(p SUBSEP cf[j] SUBSEP "cpu")
			mw[cf[j]] = w; mc[cf[j]] = c
			printf "%-9s %-12s wall %7.3f s %6.2fx   cpu %7.3f s %6.2fx\n", p, cf[j], w, w / pw, c, c / pc
		}
		if ("mutrace" in mw) {
			printf "%-9s rcl-prof/mutrace: wall %.2fx (--sample 8: %.2fx), cpu %.2fx (%.2fx)\n", p,
			    mw["full"] / mw["mutrace"], mw["sample8"] / mw["mutrace"],
			    mc["full"] / mc["mutrace"], mc["sample8"] / mc["mutrace"]
			if ("base-full" in mw)
				printf "%-9s base/mutrace: wall %.2fx (--sample 8: %.2fx), cpu %.2fx (%.2fx)\n", p,
				    mw["base-full"] / mw["mutrace"], mw["base-sample8"] / mw["mutrace"],
				    mc["base-full"] / mc["mutrace"], mc["base-sample8"] / mc["mutrace"]
		}
		delete mw; delete mc
	}
}' "$res"
