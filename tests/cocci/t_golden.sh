#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden tests: every golden/NAME_{ok,refuse}.c is transformed (options
# from NAME.args, if any) and compared with the reviewed NAME.res (the new
# .c), NAME.out (what the tool printed) and, when present, NAME.cfg
# (rcl-config.h) and HEADER.res for a rewritten project header.
. "$(dirname "$0")/common.sh"
tool_only
status=0
for src in "$GOLDEN"/*_ok.c "$GOLDEN"/*_refuse.c; do
	name=$(basename "$src" .c)
	rm -rf "$TMP/in" "$TMP/out" && mkdir -p "$TMP/in"
	cp "$GOLDEN"/*.h "$GOLDEN"/*.json "$src" "$TMP/in/"
	args=
	[ -f "$GOLDEN/$name.args" ] && args=$(cat "$GOLDEN/$name.args")
	# shellcheck disable=SC2086
	(cd "$TMP/in" && "$RCLR" $args -o ../out "$name.c") >"$TMP/stdout" \
		2>"$TMP/stderr"
	rc=$?
	case $name in
	*_ok) want=0 ;;
	*) want=1 ;;
	esac
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL $name: exit $rc, want $want"; cat "$TMP/stderr"
		status=1
		continue
	fi
	diff -u "$GOLDEN/$name.res" "$TMP/out/$name.c" || status=1
	diff -u "$GOLDEN/$name.out" "$TMP/stdout" || status=1
	if [ -f "$GOLDEN/$name.cfg" ]; then
		diff -u "$GOLDEN/$name.cfg" "$TMP/out/rcl-config.h" || status=1
	fi
	for h in "$GOLDEN"/*.h.res; do
		[ -f "$h" ] || continue
		hn=$(basename "$h" .res)
		if [ -f "$TMP/out/$hn" ] && grep -q "\"$hn\"" "$src"; then
			diff -u "$h" "$TMP/out/$hn" || status=1
		fi
	done
	[ "$status" -eq 0 ] && echo "ok $name"
done
exit $status
