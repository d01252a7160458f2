#!/bin/sh
# SPDX-License-Identifier: MIT
# However the program ends (exit, _exit, _Exit, SIGSEGV, SIGABRT, SIGTERM,
# SIGINT, its own handlers, an ignored SIGPIPE), the profiled run prints
# what the plain run prints, ends the same way (exit status, or death by
# the same signal as seen by the caller of rcl-prof), and a profile is
# written with every acquisition made before the end.
. "${srcdir:-.}/profiler/lib.sh"
ulimit -c 0 2>/dev/null

# run OUT CMD...: run CMD (60 s at most) with its stdout in OUT; print
# "exit N" or "signal N" as its parent sees it.
run() {
	"$PY" - "$@" <<'PYEOF'
import subprocess, sys
with open(sys.argv[1], "w") as out:
    try:
        rc = subprocess.run(sys.argv[2:], stdout=out, timeout=60).returncode
    except subprocess.TimeoutExpired:
        print("timeout")
        sys.exit(0)
print("signal %d" % -rc if rc < 0 else "exit %d" % rc)
PYEOF
}

# same MODE STATUS ENDED: plain and profiled `prof_ends MODE` print the
# same and end with STATUS; the profile says the process ended ENDED and
# counts the 1,500 acquisitions of g_end made before the end.
same() {
	mode=$1 want=$2 ended=$3
	got=$(run "$T/$mode.plain" "$B/prof_ends" "$mode")
	[ "$got" = "$want" ] || fail "$mode: plain run: $got, want $want"
	got=$(run "$T/$mode.prof" "$RCLPROF" --table none -o "$T/$mode.json" \
		-- "$B/prof_ends" "$mode" 2>"$T/$mode.err")
	[ "$got" = "$want" ] || { cat "$T/$mode.err"; fail "$mode: profiled run: $got, want $want"; }
	cmp -s "$T/$mode.plain" "$T/$mode.prof" ||
		{ diff "$T/$mode.plain" "$T/$mode.prof"; fail "$mode: output differs"; }
	[ -s "$T/$mode.json" ] || { cat "$T/$mode.err"; fail "$mode: no profile"; }
	check "$T/$mode.json" "p['processes'][0]['ended'] == '$ended'" \
		"lock('g_end')['acquisitions'] >= 1500" \
		"p['exit_status'] == ${want#* } + (128 if '$want'.startswith('signal') else 0)"
	echo "ok: $mode: $want, profile written ($ended)"
}

same exit "exit 4" "exit"
same _exit "exit 3" "_exit 3"
same Exit "exit 5" "_Exit 5"
same term "signal 15" "signal 15"
same int "signal 2" "signal 2"
same handler "exit 6" "exit"
same hexit "exit 7" "_exit 7"
same ignore "exit 0" "exit"
same busy "signal 15" "signal 15"
check "$T/busy.json" "p['global']['threads'] == 4" \
	"lock('g_end')['acquisitions'] > 1500"
# The sanitizers' runtimes handle SIGSEGV and SIGABRT themselves (they
# report and exit); the fault modes run in plain builds only.
if [ "$("$B/prof_robust" sanitizer)" != none ]; then
	echo "skip: fault modes under a sanitizer"
	exit 0
fi
same segv "signal 11" "signal 11"
same abort "signal 6" "signal 6"
same crash "signal 11" "signal 11"
same reraise "signal 6" "signal 6"
grep -q "crash handler ran" "$T/crash.prof" || fail "crash: the program's handler did not run"
grep -q "abort handler ran" "$T/reraise.prof" || fail "reraise: the program's handler did not run"
