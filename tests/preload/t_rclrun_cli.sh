#!/bin/sh
# SPDX-License-Identifier: MIT
# rcl-run's command line: --help, --list, bad input, exit status.
. "$(dirname "$0")/lib.sh"

"$RCL_RUN" --help | grep -q -- '--lock ALGO' || fail "--help"
list=$("$RCL_RUN" --list) || fail "--list exit status"
[ "$(echo "$list" | wc -l)" -ge 2 ] || fail "--list shows fewer than 2 algorithms"
echo "$list" | grep -q '^posix ' || fail "--list lacks posix"
echo "$list" | awk 'NF < 2 { exit 1 }' || fail "--list line without a summary"

# bad algorithm: one line, non-zero, the command never runs
out=$("$RCL_RUN" --lock no-such-lock -- touch "$TMP/ran" 2>&1) && fail "bad algorithm accepted"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "bad algorithm: not one line: $out"
echo "$out" | grep -q "no-such-lock" || fail "bad algorithm: message lacks the name"
[ ! -e "$TMP/ran" ] || fail "bad algorithm: command ran"

# delegation algorithms without a lock word are refused; those that also
# offer lock/unlock (LIBLOCK_CAP_LOCK) are listed and accepted
for d in rcl fc ccsynch dsmsynch; do
	if echo "$list" | grep -q "^$d "; then
		"$RCL_RUN" --lock "$d" -- true || fail "$d listed but refused"
		echo "$d has a lock word: accepted"
		continue
	fi
	out=$("$RCL_RUN" --lock "$d" -- true 2>&1) && fail "$d accepted"
	case "$out" in
	*delegation*) echo "$d refused: $out" ;;
	*unknown*) echo "$d not registered" ;;
	*) fail "$d: unexpected message: $out" ;;
	esac
done

# --no-ship is rcl's; RCL_RUN_SHIP is 0, 1 or always
out=$("$RCL_RUN" --lock posix --no-ship -- touch "$TMP/ran" 2>&1) &&
	fail "--no-ship accepted with posix"
[ "$(echo "$out" | wc -l)" -eq 1 ] && [ ! -e "$TMP/ran" ] || fail "--no-ship with posix: $out"
"$RCL_RUN" --lock rcl --no-ship -- true || fail "--lock rcl --no-ship refused"
out=$(env LIBLOCK_LOCK=rcl RCL_RUN_SHIP=2 \
	LD_PRELOAD="$top_builddir/liblock/interpose/.libs/librclrun.so" \
	touch "$TMP/ran" 2>&1)
[ $? -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && [ ! -e "$TMP/ran" ] ||
	fail "RCL_RUN_SHIP=2 not refused in one line: $out"
echo "$out" | grep -qF "RCL_RUN_SHIP=2" || fail "RCL_RUN_SHIP=2: message lacks the value: $out"

# usage errors
"$RCL_RUN" -- true 2>/dev/null && fail "missing --lock accepted"
"$RCL_RUN" --lock posix 2>/dev/null && fail "missing command accepted"
"$RCL_RUN" --bogus 2>/dev/null && fail "unknown option accepted"

# a report file that cannot be written: refused before the command runs
out=$("$RCL_RUN" --lock posix --report /nonexistent-dir/r -- touch "$TMP/ran" 2>&1) &&
	fail "--report to a bad path accepted"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "--report bad path: not one line: $out"
echo "$out" | grep -q "/nonexistent-dir/r" || fail "--report bad path: message lacks the path"
[ ! -e "$TMP/ran" ] || fail "--report bad path: command ran"

# the interposer's environment, parsed strictly: one line, status 2, the
# program never runs
pre=$top_builddir/liblock/interpose/.libs/librclrun.so
for kv in LIBLOCK_LOCK=no-such-lock LIBLOCK_LOCK= LIBLOCK_LOCK=rcl \
	RCL_RUN_REPORT=/nonexistent-dir/r RCL_RUN_REPORT=; do
	rm -f "$TMP/ran"
	out=$(env "$kv" LD_PRELOAD="$pre" touch "$TMP/ran" 2>&1)
	rc=$?
	if echo "$list" | grep -q "^rcl " && [ "$kv" = LIBLOCK_LOCK=rcl ]; then
		continue
	fi
	[ $rc -eq 2 ] || fail "$kv: status $rc, want 2"
	[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "$kv: not one line: $out"
	echo "$out" | grep -qF "$kv" || fail "$kv: message lacks the value: $out"
	[ ! -e "$TMP/ran" ] || fail "$kv: the program ran"
done
out=$(LIBLOCK_LOG=loud LD_PRELOAD="$pre" /bin/true 2>&1)
[ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q "LIBLOCK_LOG=loud" ||
	fail "bad LIBLOCK_LOG: not one line naming it: $out"

# exit status is the command's; 127 when it cannot be found
"$RCL_RUN" --lock spinlock -- sh -c 'exit 7'
[ $? -eq 7 ] || fail "exit status not passed through"
"$RCL_RUN" --lock posix -- "$TMP/none" 2>/dev/null
[ $? -eq 127 ] || fail "missing command: status not 127"

# the environment the command sees (alias resolved to the canonical name)
env=$("$RCL_RUN" --lock pthread -- env)
echo "$env" | grep -q '^LIBLOCK_LOCK=posix$' || fail "LIBLOCK_LOCK not set"
echo "$env" | grep -q '^LD_PRELOAD=.*librclrun\.so' || fail "LD_PRELOAD not set"
LD_PRELOAD=/nonexistent-first.so "$RCL_RUN" --lock posix -- env 2>/dev/null |
	grep -q '^LD_PRELOAD=/nonexistent-first.so:.*librclrun\.so$' ||
	fail "existing LD_PRELOAD not kept first"
echo "ok"
