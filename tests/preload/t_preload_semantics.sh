#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutex types, 5,000 threads, fork (also with the fork handlers of a
# library initialised before the interposer, whose child handler starts a
# thread that takes its lock), posix_spawn, system, popen
# and exec while holding a mutex, and process-shared mutexes under
# rcl-run, with a few algorithms of different kinds: a parking one, a
# spinning one, a queue lock, and one without trylock if registered.
. "$(dirname "$0")/lib.sh"

pick="posix spinlock"
for a in mcs clh ticket rcl; do
	algos | grep -qx "$a" && pick="$pick $a"
done
for mode in types threads; do
	timeout -k 5 120 "$PT_WORK" $mode || fail "pt_work $mode fails even without rcl-run"
done
timeout -k 5 120 "$PT_AFORK"
case $? in
0) afork=yes ;;
77) afork=no ;; # this build cannot run it (reason printed)
*) fail "pt_afork fails even without rcl-run" ;;
esac
proc_modes=
for mode in fork spawn pshared; do
	timeout -k 5 120 "$PT_PROC" $mode
	case $? in
	0) proc_modes="$proc_modes $mode" ;;
	77) ;; # this build cannot run it (reason printed)
	*) fail "pt_proc $mode fails even without rcl-run" ;;
	esac
done
for a in $pick; do
	for mode in types threads; do
		under "$a" 120 "$PT_WORK" $mode || fail "$a: pt_work $mode"
	done
	for mode in $proc_modes; do
		under "$a" 120 "$PT_PROC" $mode 2>"$TMP/err" ||
			{ cat "$TMP/err" >&2; fail "$a: pt_proc $mode"; }
	done
	if [ $afork = yes ]; then
		under "$a" 120 "$PT_AFORK" || fail "$a: pt_afork"
	fi
	grep -q "process-shared mutexes: left to glibc" "$TMP/err" ||
		fail "$a: the process-shared fallback was not reported"
	echo "ok $a"
done
