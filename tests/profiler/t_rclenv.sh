#!/bin/sh
# SPDX-License-Identifier: MIT
# The RCL runtime's variables given to rcl-prof: a value the runtime would
# ignore (RCL_DEGRADED=yes, RCL_STATS=yes) or a CPU the process may not
# use (RCL_SERVERS=1 under taskset -c 0) is a one-line error before the
# command runs; valid values reach the command and its runtime honours
# them.  Under taskset the runtime itself says "affinity mask", not "not
# online", and picks its default server among the allowed CPUs.
. "${srcdir:-.}/profiler/lib.sh"
PROBE=$abs_top_builddir/tests/runtime/rcl_probe
[ -x "$PROBE" ] || fail "$PROBE not built"

# bad PATTERN VAR=VALUE...: rcl-prof exits 2 with one line matching
# PATTERN, without running the command.
bad() {
	pat=$1
	shift
	env "$@" "$RCLPROF" --table none -o none -- touch "$T/ran" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$*: exit $rc, want 2"
	[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "$*: not one line"; }
	grep -q -e "^rcl-prof: $pat" "$T/err" || { cat "$T/err"; fail "$*: no '$pat'"; }
	[ ! -e "$T/ran" ] || fail "$*: the command ran"
	echo "ok: $* -> $(cat "$T/err")"
}

bad "RCL_DEGRADED='yes': must be 0 or 1" RCL_DEGRADED=yes
bad "RCL_STATS='yes': must be 0 or 1" RCL_STATS=yes
bad "RCL_SERVERS='0-x': not a CPU list" RCL_SERVERS=0-x
bad "RCL_SERVERS='99999': CPU 99999 is not online" RCL_SERVERS=99999

# probe VAR=VALUE...: rcl_probe (two threads, 100 RCL sections) under
# rcl-prof, 60 s at most; its stdout in $T/probe.out, stderr in .err.
probe() {
	timeout -k 5 60 env LIBLOCK_LOCK=rcl "$@" "$RCLPROF" --table none \
		-o none -- "$PROBE" >"$T/probe.out" 2>"$T/probe.err" ||
		{ cat "$T/probe.err"; fail "rcl_probe with $* exited $?"; }
}
probe RCL_STATS=1
grep -q "^rcl: server cpu" "$T/probe.err" || { cat "$T/probe.err"; fail "RCL_STATS=1 not honoured"; }
echo "ok: RCL_STATS=1 honoured"
probe RCL_DEGRADED=1
grep -q "degraded=1" "$T/probe.out" || fail "RCL_DEGRADED=1 not honoured: $(cat "$T/probe.out")"
echo "ok: RCL_DEGRADED=1 honoured"

if ! command -v taskset >/dev/null || [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	echo "skip: taskset cases need taskset and 2 CPUs"
	exit 0
fi
# RCL_SERVERS=1 env first, taskset second: the variable must be seen by
# the process whose mask is restricted.
RCL_SERVERS=1 taskset -c 0 "$RCLPROF" --table none -o none -- touch "$T/ran" 2>"$T/err"
[ $? -eq 2 ] && [ ! -e "$T/ran" ] || fail "taskset -c 0 with RCL_SERVERS=1 ran"
grep -qx "rcl-prof: RCL_SERVERS='1': CPU 1 is not in this process's CPU affinity mask (allowed: 0)" "$T/err" ||
	{ cat "$T/err"; fail "taskset -c 0: wrong message"; }
echo "ok: $(cat "$T/err")"
timeout -k 5 60 env LIBLOCK_LOCK=rcl RCL_SERVERS=1 taskset -c 0 "$PROBE" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "runtime: a server CPU outside the mask must make init fail"
grep -q "RCL_SERVERS='1': CPU 1 is not in this process's CPU affinity mask" "$T/err" ||
	{ cat "$T/err"; fail "runtime: wrong message under taskset"; }
! grep -q "not online" "$T/err" || fail "runtime: says 'not online' under taskset"
echo "ok: the runtime names the affinity mask"
timeout -k 5 60 env LIBLOCK_LOCK=rcl taskset -c 0 "$RCLPROF" --table none -o none \
	-- "$PROBE" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "taskset -c 0 rcl-prof -- rcl_probe exited $?"; }
grep -q "server=0 " "$T/out" || fail "default server not in the mask: $(cat "$T/out")"
echo "ok: default server among the allowed CPUs: $(cat "$T/out")"
