#!/bin/sh
# SPDX-License-Identifier: MIT
# Shipped sections: pt_ship (errno, thread-locals, pthread_self, canaries,
# nested and POSIX-only mutexes, condition waits, signals to waiting
# threads, a section that sleeps, trylock/timedlock, pthread_exit inside a
# section, fork) under rcl-run --lock rcl, with SCHED_FIFO servers and
# degraded, with more threads than CPUs; the report and the program both
# show that sections really ran on the server; RCL_RUN_SHIP=always ships
# every section, not only contended ones.  Sections that fork, spawn and
# exec (pt_proc).  In a build that cannot
# ship (sanitizers), rcl-run says so and every section runs in place.
. "$(dirname "$0")/lib.sh"
PT_SHIP=./preload/pt_ship

timeout -k 5 120 "$PT_SHIP" 8 >"$TMP/plain.out" || fail "pt_ship fails without rcl-run"
for mode in fifo degraded always always-degraded noship; do
	rep=$TMP/$mode.report
	case $mode in
	degraded) env="RCL_DEGRADED=1" flag= ;;
	always) env="RCL_RUN_SHIP=always" flag= ;;
	always-degraded) env="RCL_RUN_SHIP=always RCL_DEGRADED=1" flag= ;;
	noship) env= flag=--no-ship ;;
	*) env= flag= ;;
	esac
	if ! env $env RCL_RUN_REPORT="$rep" timeout -k 5 180 "$RCL_RUN" \
		--lock rcl $flag -- "$PT_SHIP" 8 >"$TMP/$mode.out" 2>"$TMP/$mode.err"; then
		cat "$TMP/$mode.err" >&2
		fail "pt_ship under rcl-run --lock rcl ($mode)"
	fi
	away=$(awk '$1 == "away" { print $2 }' "$TMP/$mode.out")
	shipped=$(report_field "$rep" shipped)
	echo "$mode: away=$away shipped=${shipped:-none} $(cat "$TMP/$mode.err")"
	[ "$(report_field "$rep" algorithm)" = rcl ] || fail "$mode: not run on rcl: $(cat "$rep")"
	if [ "$mode" = noship ]; then
		[ -z "$shipped" ] && [ "$away" = 0 ] ||
			fail "--no-ship: sections left their thread (away=$away shipped=$shipped)"
	elif [ -z "$shipped" ]; then
		# only a build that cannot ship may leave the count out, and
		# it says why
		grep -q "cannot ship" "$TMP/$mode.err" || fail "$mode: no shipped count and no reason: $(cat "$rep")"
		[ "$away" = 0 ] || fail "$mode: sections ran away without shipping"
	else
		[ "$shipped" -gt 0 ] && [ "$away" -gt 0 ] ||
			fail "$mode: nothing shipped (away=$away shipped=$shipped)"
		# always: every blocking lock call outside a section ships,
		# so at least the workers' 8 x 4000 sections of one mutex ran
		# on the server
		case $mode in always*)
			[ "$away" -ge 32000 ] || fail "$mode: only $away sections ran on the server" ;;
		esac
		# the thread that returned holding a shipped lock came home
		[ "$(report_field "$rep" exits)" -ge 1 ] || fail "$mode: a thread ending in a shipped section was not counted: $(cat "$rep")"
	fi
done
# a section that forks, spawns (posix_spawn, system, popen) or execs: the
# new process is the calling thread's for the kernel too, never the
# servicing thread's (pt_proc checks its name, policy, signal mask, CPUs
# and rseq area); pt_proc fork says 77 where it cannot run (sanitizers)
for m in fork spawn; do
	for env in "RCL_RUN_SHIP=always" "RCL_RUN_SHIP=always RCL_DEGRADED=1"; do
		env $env timeout -k 5 120 "$RCL_RUN" --lock rcl -- "$PT_PROC" $m 2>"$TMP/err"
		case $? in
		0) echo "pt_proc $m ($env): ok" ;;
		77) echo "pt_proc $m ($env): $(cat "$TMP/err")" ;;
		*) cat "$TMP/err" >&2; fail "pt_proc $m under rcl-run --lock rcl ($env)" ;;
		esac
	done
done
# the shared stress program, shipped sections and in-place ones together,
# and with every section shipped, with FIFO servers and degraded
for env in "RCL_RUN_SHIP=1" "RCL_RUN_SHIP=always" "RCL_RUN_SHIP=always RCL_DEGRADED=1"; do
	env $env RCL_RUN_REPORT="$TMP/stress.report" timeout -k 5 120 "$RCL_RUN" \
		--lock rcl -- "$PT_WORK" stress 2>"$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "pt_work stress under rcl-run --lock rcl ($env)"; }
	echo "stress ($env): $(tail -n 1 "$TMP/stress.report" | cut -d' ' -f2-9)"
done
