#!/bin/sh
# SPDX-License-Identifier: MIT
# The awkward corpus: awkward/*.c are small self-checking multithreaded
# programs written the way other people write C.  Each declares what
# rcl-refactor --locks all must do with it in a header comment:
#   /* expect: transformed */            every section transformed (exit 0)
#   /* expect: refused SUBSTRING */      some section refused, with a
#                                        "FILE:LINE: not transformed:"
#                                        reason containing SUBSTRING
#   /* expect: held SUBSTRING */         some section held (it runs in
#                                        place on the lock word), with a
#                                        "FILE:LINE: held:" reason
#                                        containing SUBSTRING; nothing
#                                        refused unless said (exit 0)
# (several expect lines may be given); /* libs: -lm */ names libraries
# both builds link.  Whatever the tool writes must
# build with -Wall -Werror against librcl and give the original's output
# and exit status under LIBLOCK_LOCK=rcl, posix and mcs.  Programs listed
# in awkward/KNOWN-FAILURES are skipped (each line: name and reason).
# Two programs are prepared at a time (t_awkward.sh --one FILE prepares
# one: builds, runs the original, transforms, builds the result); the
# transformed programs then run one after the other, as the RCL servers
# of two programs beside each other would starve their clients.
. "$(dirname "$0")/common.sh"
AWK_DIR="$top_srcdir/tests/cocci/awkward"
if [ -z "${AWK_ALGOS:-}" ]; then
	registered_algorithms
	algos=
	for a in rcl posix mcs; do
		echo "$avail" | grep -qx "$a" ||
			fail "algorithm $a is not registered"
		algos="$algos $a"
	done
	AWK_ALGOS=$algos
	export AWK_ALGOS
fi
algos=$AWK_ALGOS

# check_one SRC: prints "ok NAME ..." or "FAIL NAME: ..." lines, and the
# verdict last: "=transformed", "=held", "=refused", "=known" or "=FAIL".
check_one() {
	src=$1
	name=$(basename "$src" .c)
	failed=
	bad() {
		echo "FAIL $name: $*"
		failed=1
	}
	if grep -qs "^$name[ 	]" "$AWK_DIR/KNOWN-FAILURES"; then
		echo "known failure, skipped: $(grep "^$name[ 	]" \
			"$AWK_DIR/KNOWN-FAILURES")"
		echo "=known"
		return
	fi
	expects=$(sed -n 's|^/\* expect: \(.*\) \*/$|\1|p' "$src")
	[ -n "$expects" ] ||
		{ bad "no /* expect: ... */ line"; echo "=FAIL"; return; }
	libs=$(sed -n 's|^/\* libs: \(.*\) \*/$|\1|p' "$src")
	$CC -std=gnu11 -O2 -Wall -Werror $SAN_CFLAGS -pthread "$src" \
		-o "$TMP/$name.orig" $libs ||
		{ bad "the original does not build"; echo "=FAIL"; return; }
	timeout 30 "$TMP/$name.orig" >"$TMP/$name.want" 2>"$TMP/$name.err0"
	want_rc=$?
	[ "$want_rc" -eq 0 ] ||
		{ bad "the original exits $want_rc"; echo "=FAIL"; return; }
	out="$TMP/$name.out"
	rm -rf "$out"
	"$RCLR" --locks all -o "$out" "$src" >"$TMP/$name.log" 2>&1
	rrc=$?
	verdict=transformed
	echo "$expects" | grep -q '^held ' && verdict=held
	echo "$expects" | grep -q '^refused' && verdict=refused
	while read -r what rest; do
		case $what in
		transformed)
			if [ "$rrc" -ne 0 ] ||
				grep -q "not transformed" "$TMP/$name.log" ||
				! grep -qs "liblock_exec\|_rcl_exec\|rcl_tryexec" "$out/$name.c"; then
				bad "expected every section transformed (exit $rrc):"
				sed 's/^/  /' "$TMP/$name.log"
			fi ;;
		held)
			if ! grep -F -- "$rest" "$TMP/$name.log" |
				grep -q "$name\.c:[0-9][0-9]*: held: "; then
				bad "expected a held section at $name.c:LINE with \"$rest\" (exit $rrc):"
				sed 's/^/  /' "$TMP/$name.log"
			elif [ "$verdict" = held ] && [ "$rrc" -ne 0 ]; then
				bad "held sections only, but exit $rrc:"
				sed 's/^/  /' "$TMP/$name.log"
			elif ! grep -qs "liblock_\(try\|timed\|clock\)*lock(" \
				"$out/$name.c"; then
				bad "held, but no liblock_lock/trylock/timedlock/clocklock in the output"
			fi ;;
		refused)
			if ! grep -F -- "$rest" "$TMP/$name.log" |
				grep -q "$name\.c:[0-9][0-9]*: not transformed: "; then
				bad "expected a refusal naming $name.c:LINE with \"$rest\" (exit $rrc):"
				sed 's/^/  /' "$TMP/$name.log"
			elif [ "$rrc" -eq 0 ]; then
				bad "refused but exit 0"
			fi ;;
		*)
			bad "bad expect line: $what $rest" ;;
		esac
	done <<EOE
$expects
EOE
	[ -z "$failed" ] || { echo "=FAIL"; return; }
	if [ ! -f "$out/$name.c" ] || cmp -s "$src" "$out/$name.c"; then
		echo "ok $name: $verdict (nothing rewritten)"
		echo "=$verdict"
		return
	fi
	if ! CC_RCL_LIBS=$libs cc_rcl "$TMP/$name.new" "$out/$name.c" \
		2>"$TMP/$name.cc"; then
		bad "the transformed program does not build:"
		head -20 "$TMP/$name.cc"
		echo "=FAIL"
		return
	fi
	echo "$verdict" >"$TMP/$name.torun"
}

# run_one NAME: the transformed program under each algorithm.
run_one() {
	name=$1
	failed=
	for a in $algos; do
		LIBLOCK_LOCK=$a timeout 30 "$TMP/$name.new" \
			>"$TMP/$name.got" 2>"$TMP/$name.err"
		rc=$?
		if [ "$rc" -ne 0 ] ||
			! cmp -s "$TMP/$name.want" "$TMP/$name.got"; then
			echo "FAIL $name: with $a: exit $rc (want 0)"
			diff -u "$TMP/$name.want" "$TMP/$name.got" | head -20
			head -5 "$TMP/$name.err"
			failed=1
		fi
	done
	if [ -n "$failed" ]; then
		echo "=FAIL"
	else
		echo "ok $name: $(cat "$TMP/$name.torun")," \
			"same output and status under$algos"
		echo "=$(cat "$TMP/$name.torun")"
	fi
}

if [ "${1:-}" = --one ]; then
	rm -rf "$TMP"
	trap - EXIT
	TMP=$AWK_TMP
	check_one "$2" >"$TMP/$(basename "$2" .c).log1" 2>&1
	exit 0
fi
AWK_TMP=$TMP
export AWK_TMP
ls "$AWK_DIR"/*.c | xargs -P 2 -n 1 sh "$0" --one
for src in "$AWK_DIR"/*.c; do
	name=$(basename "$src" .c)
	cat "$TMP/$name.log1"
	[ -f "$TMP/$name.torun" ] && run_one "$name"
done >"$TMP/all.log" 2>&1
grep -v '^=' "$TMP/all.log"
ntrans=$(grep -c '^=transformed' "$TMP/all.log")
nheld=$(grep -c '^=held' "$TMP/all.log")
nref=$(grep -c '^=refused' "$TMP/all.log")
nknown=$(grep -c '^=known' "$TMP/all.log")
nfail=$(grep -c '^=FAIL' "$TMP/all.log")
ntot=$(ls "$AWK_DIR"/*.c | wc -l)
echo "$ntot programs: $ntrans transformed, $nheld with held sections," \
	"$nref refused as expected, $nknown known failures, $nfail failed"
[ "$nfail" -eq 0 ] && [ $((ntrans + nheld + nref + nknown)) -eq "$ntot" ]
