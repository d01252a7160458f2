#!/bin/sh
# SPDX-License-Identifier: MIT
# pt_malloc (a program whose own malloc takes a pthread mutex, as
# jemalloc's does) under rcl-run with every algorithm it lists: liblock
# must not call the program's malloc while taking that mutex, nor touch a
# block it gave back at thread exit.  Same output and exit status as
# without rcl-run.
. "$(dirname "$0")/lib.sh"

PT_MALLOC=./preload/pt_malloc
timeout -k 5 120 "$PT_MALLOC" >"$TMP/want" 2>"$TMP/err"
rc=$?
[ $rc -eq 77 ] && { cat "$TMP/want"; exit 77; }
[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "pt_malloc fails without rcl-run ($rc)"; }
bad=
for a in $(algos); do
	rep=$TMP/$a.report
	RCL_RUN_REPORT=$rep under "$a" 120 "$PT_MALLOC" >"$TMP/got" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad="$bad $a"
		echo "FAIL $a: exit $rc: $(head -c 300 "$TMP/err")"
	elif ! cmp -s "$TMP/want" "$TMP/got"; then
		bad="$bad $a"
		echo "FAIL $a: output differs: $(cat "$TMP/got")"
	elif [ "$(report_field "$rep" algorithm)" != "$a" ]; then
		bad="$bad $a"
		echo "FAIL $a: not interposed: $(cat "$rep")"
	else
		echo "ok $a"
	fi
done
[ -z "$bad" ] || fail "a program's own malloc breaks under:$bad"
