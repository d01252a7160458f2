#!/bin/sh
# SPDX-License-Identifier: MIT
# The runtime's environment contract: LIBLOCK_LOCK=rcl, RCL_SERVERS,
# RCL_DEGRADED=1 (announced once), RCL_STATS=1.  Exit 0 pass, 1 fail.
probe=${top_builddir:-../..}/tests/runtime/rcl_probe
out=${TMPDIR:-/tmp}/t_rcl_env.$$
trap 'rm -f "$out".*' EXIT
fail() { echo "FAIL: $*"; cat "$out".err 2>/dev/null; exit 1; }
run() { timeout 60 env "$@" "$probe" >"$out".out 2>"$out".err; }
ncpu=$(getconf _NPROCESSORS_ONLN)
last=$((ncpu - 1))

run LIBLOCK_LOCK=rcl || fail "probe with LIBLOCK_LOCK=rcl"
grep -q "algorithm=rcl server=$last .*count=100" "$out".out ||
	fail "expected rcl on the last CPU ($last): $(cat "$out".out)"

# A lock no initialiser set (all zero, as glibc's default mutex) is a
# LIBLOCK_INITIALIZER one: the default server, not CPU 0.
run LIBLOCK_LOCK=rcl RCL_PROBE_ZEROED=1 || fail "probe of a zeroed lock"
grep -q "algorithm=rcl server=$last .*count=100$" "$out".out ||
	fail "zeroed lock: expected rcl on the last CPU ($last) only: $(cat "$out".out)"
! grep -q "CPU 0" "$out".err || fail "zeroed lock: a server on CPU 0"

run LIBLOCK_LOCK=rcl RCL_STATS=1 || fail "probe with RCL_STATS=1"
grep -q "^rcl: server cpu $last" "$out".err || fail "no statistics printed"
# a --disable-lock-stats build says so and counts no sections
grep -q "built with --disable-lock-stats" "$out".err ||
	grep -q "critical sections 100 remote" "$out".err || fail "wrong CS count"
grep -q "use rate" "$out".err || fail "no use rate"

run LIBLOCK_LOCK=rcl RCL_DEGRADED=1 || fail "probe with RCL_DEGRADED=1"
grep -q "degraded=1" "$out".out || fail "not degraded"
[ "$(grep -c 'degraded mode' "$out".err)" -eq 1 ] ||
	fail "degraded mode must be announced exactly once"

run LIBLOCK_LOCK=rcl RCL_SERVERS=0 || fail "probe with RCL_SERVERS=0"
grep -q "server=0 .*count=100" "$out".out || fail "RCL_SERVERS=0 ignored"

# main() ends in pthread_exit(): once its worker is done the process ends
# (status 0, atexit handlers run, stdio flushed), although the runtime's
# threads live on; they block every signal, so without this the process
# would never end, and neither timeout(1) nor SIGTERM could end it.
for mode in "" RCL_DEGRADED=1; do
	start=$(date +%s)
	timeout -s KILL 30 env LIBLOCK_LOCK=rcl RCL_PROBE_END=pthread_exit $mode \
		"$probe" >"$out".out 2>"$out".err
	rc=$?
	if [ $rc -eq 0 ] && [ "$(cat "$out".out)" = tsan ]; then
		echo "skipped: main() ending in pthread_exit() (ThreadSanitizer's own thread keeps the process alive)"
		break
	fi
	[ $rc -eq 0 ] || fail "main() ending in pthread_exit() ${mode:-(FIFO)}: exit $rc$(
		[ $rc -eq 137 ] && echo ' (killed after 30 s: the process did not end)')"
	printf 'count=100\natexit\n' | cmp -s - "$out".out ||
		fail "main() ending in pthread_exit() ${mode:-(FIFO)}: output $(cat "$out".out)"
	[ $(($(date +%s) - start)) -le 5 ] ||
		fail "main() ending in pthread_exit(): the process took more than 5 s to end"
done

run LIBLOCK_LOCK=rcl RCL_SERVERS=0-1,x
[ $? -eq 2 ] || fail "a bad RCL_SERVERS must make init fail"
grep -q "RCL_SERVERS='0-1,x': not a CPU list" "$out".err ||
	fail "no clear message for a bad RCL_SERVERS"

run LIBLOCK_LOCK=rcl RCL_SERVERS=99999
[ $? -eq 2 ] || fail "an offline server CPU must make init fail"
grep -q "RCL_SERVERS='99999'" "$out".err || fail "no message for CPU 99999"

run LIBLOCK_LOCK=posix || fail "probe with posix"
grep -q "algorithm=posix" "$out".out || fail "LIBLOCK_LOCK=posix ignored"
exit 0
