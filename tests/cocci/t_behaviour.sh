#!/bin/sh
# SPDX-License-Identifier: MIT
# Behaviour tests: every corpus/*.c program (deterministic, self-checking,
# multithreaded) is built and run as is, transformed with --locks all
# (every section must be transformed), built with -Wall -Werror against
# librcl, and run under LIBLOCK_LOCK=posix, mcs and rcl -- those that are
# registered, else the first other registered ones: same output, same
# exit status (standard error may differ: the runtime warns there).
. "$(dirname "$0")/common.sh"
registered_algorithms
algos=
for a in posix mcs rcl; do
	echo "$avail" | grep -qx "$a" && algos="$algos $a"
done
# Keep three algorithms when some of the wanted ones are missing.
for a in $avail; do
	[ "$(echo $algos | wc -w)" -ge 3 ] && break
	case " $algos " in *" $a "*) ;; *) algos="$algos $a" ;; esac
done
echo "algorithms:$algos"
status=0
for src in "$CORPUS"/*.c; do
	name=$(basename "$src" .c)
	$CC -std=gnu11 -O2 -Wall -Werror $SAN_CFLAGS -pthread "$src" \
		-o "$TMP/$name.orig" || fail "$name: original does not build"
	timeout 60 "$TMP/$name.orig" >"$TMP/$name.want" 2>"$TMP/$name.err0"
	want_rc=$?
	rm -rf "$TMP/out"
	"$RCLR" --locks all -o "$TMP/out" "$src" >"$TMP/$name.log" 2>&1 ||
		{ cat "$TMP/$name.log"; fail "$name: rcl-refactor failed"; }
	cc_rcl "$TMP/$name.new" "$TMP/out/$name.c" ||
		fail "$name: transformed program does not build"
	grep -q liblock_exec "$TMP/out/$name.c" ||
		fail "$name: nothing was extracted"
	for a in $algos; do
		LIBLOCK_LOCK=$a timeout 60 "$TMP/$name.new" \
			>"$TMP/$name.got" 2>"$TMP/$name.err"
		rc=$?
		if [ "$rc" -ne "$want_rc" ] ||
			! cmp -s "$TMP/$name.want" "$TMP/$name.got"; then
			echo "FAIL $name with $a: exit $rc (want $want_rc)"
			diff -u "$TMP/$name.want" "$TMP/$name.got" | head -20
			head -20 "$TMP/$name.err"
			status=1
		else
			echo "ok $name $a"
		fi
	done
done
exit $status
