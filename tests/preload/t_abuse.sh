#!/bin/sh
# SPDX-License-Identifier: MIT
# pt_abuse's cases (legacy idioms and abuse that glibc tolerates) under
# rcl-run with several algorithms: the output and exit status must be those
# of the run without rcl-run.  Also: librclrun.so named twice in
# LD_PRELOAD (and rcl-run under rcl-run).
. "$(dirname "$0")/lib.sh"

PT_ABUSE=./preload/pt_abuse
# ThreadSanitizer cannot see the happens-before of a mutex handed over to
# another thread (handover mode): its accesses of h_count, made under the
# handed-over mutex, are not races.  Only those two functions' own
# accesses are silenced (race_top).
# The reuse case leaves dozens of locks held for good (memory freed while
# locked): under rcl-run with posix they are glibc mutexes held by the
# main thread, past the 64 held locks TSan's deadlock detector can track.
printf 'race_top:h_unlocker\nrace_top:h_contender\n' >"$TMP/tsan.supp"
TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$TMP/tsan.supp:detect_deadlocks=0"
export TSAN_OPTIONS
lib=./preload/.libs/libptdl.so
[ -e "$lib" ] || { echo "SKIP: no $lib (not a shared libtool build)"; exit 77; }
pick=posix
for a in mcs clh ticket malthusian_stp spinlock rcl; do
	algos | grep -qx "$a" && pick="$pick $a"
done
cases="copy reuse cancel handover ctor signal dlopen many inflate"
args() {
	case $1 in
	dlopen) echo "$lib" ;;
	many) echo 100000 ;;
	inflate) echo 40 ;;
	esac
}
for c in $cases; do
	timeout -k 5 120 "$PT_ABUSE" $c $(args $c) >"$TMP/want.$c" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "pt_abuse $c fails without rcl-run ($rc)"; }
done
# all_cases ALGO LABEL: every case under rcl-run --lock ALGO must print
# and exit as without it
all_cases() {
	for c in $cases; do
		under "$1" 120 "$PT_ABUSE" $c $(args $c) >"$TMP/got" 2>"$TMP/err"
		rc=$?
		[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "$2: pt_abuse $c: exit $rc"; }
		cmp -s "$TMP/want.$c" "$TMP/got" ||
			{ diff "$TMP/want.$c" "$TMP/got" >&2; fail "$2: pt_abuse $c: output differs"; }
	done
	echo "ok $2"
}
for a in $pick; do
	all_cases "$a" "$a"
done
# rcl shipping every section (not only contended ones), where the build
# can ship: the abuse cases with their sections run on the server
if [ -n "$(RCL_RUN_SHIP=always under rcl 60 true 2>&1 | grep "cannot ship")" ]; then
	echo "rcl: this build cannot ship sections (in place above)"
else
	RCL_RUN_SHIP=always
	export RCL_RUN_SHIP
	all_cases rcl "rcl, every section shipped"
	unset RCL_RUN_SHIP
fi
# named twice: LD_PRELOAD lists the library twice; rcl-run inside rcl-run
pre=$top_builddir/liblock/interpose/.libs/librclrun.so
LIBLOCK_LOCK=mcs LD_PRELOAD="$pre:$pre" timeout -k 5 120 "$PT_ABUSE" copy >"$TMP/got" ||
	fail "LD_PRELOAD twice: exit status"
cmp -s "$TMP/want.copy" "$TMP/got" || fail "LD_PRELOAD twice: output differs"
under ticket 120 "$RCL_RUN" --lock mcs -- "$PT_ABUSE" reuse >"$TMP/got" ||
	fail "rcl-run inside rcl-run: exit status"
cmp -s "$TMP/want.reuse" "$TMP/got" || fail "rcl-run inside rcl-run: output differs"
echo "ok twice"
