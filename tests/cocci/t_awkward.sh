#!/bin/sh
# SPDX-License-Identifier: MIT
# The awkward corpus: awkward/*.c are small self-checking multithreaded
# programs written the way other people write C.  Each declares what
# rcl-refactor --locks all must do with it in a header comment:
#   /* expect: transformed */            every section transformed (exit 0)
#   /* expect: refused SUBSTRING */      some section refused, with a
#                                        "FILE:LINE: not transformed:"
#                                        reason containing SUBSTRING
# (several expect lines may be given).  Whatever the tool writes must
# build with -Wall -Werror against librcl and give the original's output
# and exit status under LIBLOCK_LOCK=rcl, posix and mcs.  Programs listed
# in awkward/KNOWN-FAILURES are skipped (each line: name and reason).
. "$(dirname "$0")/common.sh"
AWK_DIR="$top_srcdir/tests/cocci/awkward"
cat >"$TMP/algos.c" <<'EOC'
#include <liblock.h>
#include <stdio.h>
int main(void)
{
	const char *const *a;

	for (a = liblock_algorithms(); *a; a++)
		puts(*a);
	return 0;
}
EOC
cc_rcl "$TMP/algos" "$TMP/algos.c" || fail "cannot build against librcl"
avail=$("$TMP/algos") || fail "liblock_algorithms() failed"
algos=
for a in rcl posix mcs; do
	echo "$avail" | grep -qx "$a" || fail "algorithm $a is not registered"
	algos="$algos $a"
done
status=0
ntrans=0 nref=0 nknown=0
bad() {
	echo "FAIL $name: $*"
	status=1
}
for src in "$AWK_DIR"/*.c; do
	name=$(basename "$src" .c)
	if grep -qs "^$name[ 	]" "$AWK_DIR/KNOWN-FAILURES"; then
		echo "known failure, skipped: $(grep "^$name[ 	]" \
			"$AWK_DIR/KNOWN-FAILURES")"
		nknown=$((nknown + 1))
		continue
	fi
	expects=$(sed -n 's|^/\* expect: \(.*\) \*/$|\1|p' "$src")
	[ -n "$expects" ] || { bad "no /* expect: ... */ line"; continue; }
	$CC -std=gnu11 -O2 -Wall -Werror $SAN_CFLAGS -pthread "$src" \
		-o "$TMP/$name.orig" || { bad "the original does not build"; continue; }
	timeout 30 "$TMP/$name.orig" >"$TMP/$name.want" 2>"$TMP/$name.err0"
	want_rc=$?
	[ "$want_rc" -eq 0 ] || { bad "the original exits $want_rc"; continue; }
	rm -rf "$TMP/out"
	"$RCLR" --locks all -o "$TMP/out" "$src" >"$TMP/$name.log" 2>&1
	rrc=$?
	echo "$expects" | {
		st=0
		while read -r what rest; do
			case $what in
			transformed)
				if [ "$rrc" -ne 0 ] ||
					grep -q "not transformed" "$TMP/$name.log"; then
					echo "FAIL $name: expected every section transformed (exit $rrc):"
					sed 's/^/  /' "$TMP/$name.log"
					st=1
				fi ;;
			refused)
				if ! grep -F "$rest" "$TMP/$name.log" |
					grep -q "$name\.c:[0-9][0-9]*: not transformed: "; then
					echo "FAIL $name: expected a refusal naming $name.c:LINE with \"$rest\" (exit $rrc):"
					sed 's/^/  /' "$TMP/$name.log"
					st=1
				elif [ "$rrc" -eq 0 ]; then
					echo "FAIL $name: refused but exit 0"
					st=1
				fi ;;
			*)
				echo "FAIL $name: bad expect line: $what $rest"
				st=1 ;;
			esac
		done
		exit $st
	} || { status=1; continue; }
	case $expects in
	*refused*) nref=$((nref + 1)) ;;
	*) ntrans=$((ntrans + 1)) ;;
	esac
	out="$TMP/out/$name.c"
	if [ ! -f "$out" ] || cmp -s "$src" "$out"; then
		echo "ok $name (nothing rewritten)"
		continue
	fi
	if ! cc_rcl "$TMP/$name.new" "$out" 2>"$TMP/$name.cc"; then
		bad "the transformed program does not build:"
		head -20 "$TMP/$name.cc"
		continue
	fi
	for a in $algos; do
		LIBLOCK_LOCK=$a timeout 30 "$TMP/$name.new" \
			>"$TMP/$name.got" 2>"$TMP/$name.err"
		rc=$?
		if [ "$rc" -ne "$want_rc" ] ||
			! cmp -s "$TMP/$name.want" "$TMP/$name.got"; then
			bad "with $a: exit $rc (want $want_rc)"
			diff -u "$TMP/$name.want" "$TMP/$name.got" | head -20
			head -5 "$TMP/$name.err"
		fi
	done
	echo "ok $name"
done
echo "expected transformed: $ntrans, expected refused: $nref, known failures: $nknown"
exit $status
