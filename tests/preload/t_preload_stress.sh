#!/bin/sh
# SPDX-License-Identifier: MIT
# The stress workload (pt_work stress: counters on five lines, trylock,
# timedlock, nested locks, producer/consumer, broadcast, more threads than
# CPUs), unmodified, through rcl-run for every algorithm it lists.  The
# report proves each run really went through the interposer.
. "$(dirname "$0")/lib.sh"

timeout -k 5 120 "$PT_WORK" stress || fail "the workload fails even without rcl-run"
bad=
for a in $(algos); do
	rep=$TMP/$a.report
	t0=$(date +%s%N)
	if ! RCL_RUN_REPORT=$rep under "$a" 120 "$PT_WORK" stress; then
		bad="$bad $a"
		echo "FAIL $a"
		continue
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	got=$(report_field "$rep" algorithm)
	mutexes=$(report_field "$rep" mutexes)
	thin=$(report_field "$rep" thin)
	conds=$(report_field "$rep" conds)
	# every one of its four mutexes seen: with a record (contended, or
	# recursive/error-checking) or thin (normal, never found held); the
	# contended ones run the algorithm
	if [ "$got" != "$a" ] || [ "${mutexes:-0}" -lt 1 ] ||
		[ $((${mutexes:-0} + ${thin:-0})) -lt 4 ] || [ "${conds:-0}" -lt 2 ]; then
		bad="$bad $a"
		echo "FAIL $a: not interposed: $(cat "$rep")"
		continue
	fi
	echo "ok $a (${ms} ms, $mutexes mutex records, $thin thin, $conds condvars)"
done
[ -z "$bad" ] || fail "algorithms failing through rcl-run:$bad"
