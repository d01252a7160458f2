#!/bin/sh
# SPDX-License-Identifier: MIT
# What a shipped section costs (rcl-run --lock rcl), side by side in one
# run with the refactored RCL call and with in-place locking (not a test:
# a measurement, see docs/PERFORMANCE.md).  From the build's tests/:
#   preload/ship_bench.sh [-r ROUNDS] [-T "1 2 8 16"] [-L LINES] [-D DELAY]
#                         [-k LIBKOMB]
# For each thread count, interleaved, ROUNDS times (default 3), median of
# cycles per section of `rcl-bench cs` (L pointer-chased lines, D cycles
# between sections):
#   exec        --lock rcl: liblock_exec, the refactored RCL call
#   ship-all    --lock pthread under rcl-run --lock rcl, RCL_RUN_SHIP=always:
#               every section shipped to the server
#   ship-busy   the same, default mode: only sections whose lock is busy
#   in-place    the same with --no-ship: every section on the lock word
#   glibc       --lock pthread, no rcl-run
#   komb        (-k LIB) --lock pthread with LIB preloaded: TCLocks' komb
#               from its LiTL fork (libkomb_spinlock.so, built by hand)
# and each one's ratio to exec.  Under rcl-run a mutex becomes an RCL
# lock at its first contention (a thin mutex until then): with T=1 every
# column but exec runs glibc's lock.
. "$(dirname "$0")/lib.sh"

rounds=3 threads="1 2 8 16" lines=1 delay=100 komb=
while getopts r:T:L:D:k: opt; do
	case $opt in
	k) komb=$OPTARG ;;
	r) rounds=$OPTARG ;;
	T) threads=$OPTARG ;;
	L) lines=$OPTARG ;;
	D) delay=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-T THREADS] [-L LINES] [-D DELAY] [-k LIBKOMB]" >&2; exit 2 ;;
	esac
done
for v in "$rounds" "$lines" "$delay" $threads; do
	case $v in
	'' | *[!0-9]*) fail "$v: not a number" ;;
	esac
done
BENCH=$top_builddir/apps/rcl-bench
# LiTL's libraries print a banner on stdout in every process: run the
# binary itself, not libtool's wrapper script, under them
BIN=$top_builddir/apps/.libs/rcl-bench
[ -x "$BIN" ] || BIN=$BENCH
if [ -n "$komb" ] && [ ! -r "$komb" ]; then
	fail "-k $komb: no such library"
fi
[ -x "$BENCH" ] || fail "no $BENCH (build it first)"

# cs T LOCK [komb] [PREFIX...]: cycles per section of one rcl-bench cs run
# ("komb": the binary itself, for a preload that the wrapper cannot take).
cs() {
	_t=$1 _lock=$2
	shift 2
	_bin=$BENCH
	[ "${1:-}" = komb ] && { _bin=$BIN; shift; }
	timeout -k 5 300 "$@" "$_bin" cs --lock "$_lock" --threads "$_t" \
		--lines "$lines" --delay "$delay" --iterations 200000 \
		--max-seconds 3 --json |
		sed -n 's/.*"cycles_per_cs": \([0-9.]*\).*/\1/p'
}
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
cols="all busy inpl glibc"
hdr=$(printf '%-4s %10s %16s %16s %16s %16s' T exec ship-all ship-busy in-place glibc)
if [ -n "$komb" ]; then
	cols="$cols komb"
	hdr="$hdr $(printf '%16s' komb)"
fi
echo "$hdr"
for t in $threads; do
	: >"$TMP/exec" ; : >"$TMP/all"; : >"$TMP/busy"; : >"$TMP/inpl"; : >"$TMP/glibc"; : >"$TMP/komb"
	r=0
	while [ $r -lt "$rounds" ]; do
		cs "$t" rcl >>"$TMP/exec"
		cs "$t" pthread env RCL_RUN_SHIP=always "$RCL_RUN" --lock rcl -- >>"$TMP/all"
		cs "$t" pthread "$RCL_RUN" --lock rcl -- >>"$TMP/busy"
		cs "$t" pthread "$RCL_RUN" --lock rcl --no-ship -- >>"$TMP/inpl"
		cs "$t" pthread >>"$TMP/glibc"
		[ -z "$komb" ] || cs "$t" pthread komb env \
			LD_LIBRARY_PATH="$top_builddir/runtime/.libs" \
			LD_PRELOAD="$komb" >>"$TMP/komb"
		r=$((r + 1))
	done
	e=$(median <"$TMP/exec")
	line=$(printf '%-4s %10s' "$t" "$e")
	for f in $cols; do
		m=$(median <"$TMP/$f")
		line="$line $(printf '%8s (%5sx)' "$m" "$(awk -v a="$m" -v b="$e" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")"
	done
	echo "$line"
done
