#!/bin/sh
# SPDX-License-Identifier: MIT
# Every wrapper is reached by a freshly built program, through today's
# symbol versions and the older ones: the interposer's own call counts
# ($RCL_RUN_REPORT) must cover every call pt_work made.
. "$(dirname "$0")/lib.sh"

for a in posix spinlock; do
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
	done
	echo "ok $a: $made"
done
