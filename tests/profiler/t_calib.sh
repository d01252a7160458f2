#!/bin/sh
# SPDX-License-Identifier: MIT
# The TSC rate that turns a process's cycles into time is measured over
# its whole run, each end read as a (clock, TSC) pair.  A process that
# lives about a millisecond (one of a test suite's many) is padded to a
# 2 ms window only, and still gets the rate of a run of a quarter of a
# second within 0.5%: the times in its profile are right.
. "${srcdir:-.}/profiler/lib.sh"

# rate DIR CMD...: CMD under rcl-prof, its raw dumps kept in DIR; prints
# the TSC rate of the dump of the process that ran CMD.
rate() {
	dir=$1
	shift
	"$RCLPROF" --table none -o none --keep "$dir" -- "$@" >/dev/null \
		2>"$dir.err"
	awk '$1 == "tsc_hz" {print $2}' "$dir"/rclprof.*.dump | head -1
}

long=$(rate "$T/long" "$B/prof_stacks" short) ||
	fail "prof_stacks short: rcl-prof failed"
[ -n "$long" ] || { cat "$T/long.err"; fail "no rate in the long run's dump"; }
for i in 1 2 3; do
	short=$(rate "$T/short$i" "$B/prof_ends" exit)
	[ -n "$short" ] || { cat "$T/short$i.err"; fail "no rate in a short run's dump"; }
	"$PY" -c "import sys; l, s = float(sys.argv[1]), float(sys.argv[2]); \
sys.exit(0 if abs(s - l) <= 0.005 * l else 1)" "$long" "$short" ||
		fail "short run $i: TSC rate $short Hz against $long Hz over 0.27 s"
	echo "ok: short run $i: $short Hz, long run $long Hz"
done
