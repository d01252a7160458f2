#!/bin/sh
# SPDX-License-Identifier: MIT
# Robustness: for each prof_robust mode the profiled run prints exactly
# what the plain run prints and exits with the same status, and the
# profile says what happened (threads, processes, instances).
. "${srcdir:-.}/profiler/lib.sh"

# same NAME ARGS...: plain and profiled runs agree; profile in $T/NAME.json
same() {
	name=$1
	shift
	timeout -k 5 120 "$B/prof_robust" "$@" >"$T/$name.plain" 2>"$T/$name.err1"
	rc1=$?
	timeout -k 5 120 "$RCLPROF" --table none -o "$T/$name.json" -- \
		"$B/prof_robust" "$@" >"$T/$name.prof" 2>"$T/$name.err2"
	rc2=$?
	[ "$rc1" = "$rc2" ] || { cat "$T/$name.err2"; fail "$name: exit $rc1 plain, $rc2 profiled"; }
	cmp -s "$T/$name.plain" "$T/$name.prof" ||
		{ diff "$T/$name.plain" "$T/$name.prof"; fail "$name: output differs"; }
	[ -s "$T/$name.json" ] || fail "$name: no profile"
	echo "ok: $name (exit $rc1)"
}

same nolock nolock
check "$T/nolock.json" 'p["locks"] == []' 'p["exit_status"] == 7'

same threads threads 1000
check "$T/threads.json" 'p["global"]["threads"] == 1001' \
	'lock("shared")["acquisitions"] == 10000' \
	'p["global"]["wrapper_calls"]["pthread_create"] == 1000'

same fork fork
# parent, the forked child and the re-exec'd child each wrote a dump; the
# forked child's counts start at zero and are merged into the report
check "$T/fork.json" 'len(p["processes"]) == 3' \
	'lock("shared")["acquisitions"] == 1001' \
	'[l["acquisitions"] for l in p["locks"] if l["kind"] == "first-use"] == [100]' \
	'sorted(x["acquisitions"] for x in p["processes"])[0] == 0'

same exitthread exitthread
check "$T/exitthread.json" 'lock("shared")["acquisitions"] >= 1'

same reinit reinit
check "$T/reinit.json" \
	'sorted(l["instances"] for l in p["locks"] if l["kind"] == "init") == [100, 100]' \
	'sum(l["acquisitions"] for l in p["locks"]) == 201'

same title title
# a rewritten argv[0] (dladdr's name for the main program) does not hide
# the program's symbols and lines from rcl-prof
check "$T/title.json" 'lock("titled")["acquisitions"] == 10' \
	'[l["acquisitions"] for l in p["locks"] if "prof_robust.c:" in l["name"] and "mode_title" in l["name"]] == [10]' \
	'not [l for l in p["locks"] if "title+" in l["name"]]'

# The misuse is deliberate: ThreadSanitizer would (rightly) stop it.
TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}report_bugs=0" same errors errors
grep -qx '0 0 0 0 0 0 1 1 0 35 16 0 1 0 0' "$T/errors.plain" ||
	fail "errors: unexpected codes $(cat "$T/errors.plain")"
# ThreadSanitizer's runtime hangs the process when main calls
# pthread_exit, profiler or not (the plain run hangs too).
if [ "$("$B/prof_robust" sanitizer)" = tsan ]; then
	echo "skip: mainexit under ThreadSanitizer"
	exit 0
fi
same mainexit mainexit
check "$T/mainexit.json" 'lock("shared")["acquisitions"] == 100' \
	'p["global"]["wrapper_calls"]["pthread_exit"] == 1'
