#!/bin/sh
# SPDX-License-Identifier: MIT
# Every wrapper is reached by a freshly built program, through today's
# symbol versions and the older ones: the interposer's own call counts
# ($RCL_RUN_REPORT) must cover every call pt_work made.  Under rcl, with
# its server and fork handlers running, the counts must be exactly the
# program's: the runtime's own mutexes are glibc's, never the wrappers'
# (runtime/mutex.c).  Sanitizer builds (which cannot ship, and say so)
# call them by name for their interceptors: there the counts may be more.
. "$(dirname "$0")/lib.sh"

exact=yes
if [ -n "$(RCL_RUN_SHIP=always under rcl 60 true 2>&1 | grep "cannot ship")" ]; then
	exact=no
fi
pick="posix spinlock"
algos | grep -qx rcl && pick="$pick rcl"
for a in $pick; do
	rep=$TMP/$a.report
	made=$(RCL_RUN_REPORT=$rep under "$a" 60 "$PT_WORK" wrappers) ||
		fail "$a: pt_work wrappers"
	[ -s "$rep" ] || fail "$a: no report written"
	for kv in $made; do
		name=${kv%%=*}
		want=${kv#*=}
		got=$(report_field "$rep" "$name")
		[ "$want" -gt 0 ] || fail "pt_work made no $name call"
		[ "${got:-0}" -ge "$want" ] ||
			fail "$a: $name reached ${got:-0} times, made $want calls"
		[ $exact = no ] || [ "$got" -eq "$want" ] ||
			fail "$a: $name reached $got times, the program made $want calls"
	done
	echo "ok $a: $made"
done
