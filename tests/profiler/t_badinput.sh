#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: one line on stderr naming the culprit, a non-zero status,
# the command not run, and an existing output file left alone.
. "${srcdir:-.}/profiler/lib.sh"

# bad STATUS PATTERN ARGS...: rcl-prof ARGS exits STATUS (any non-zero for
# "nz") with exactly one stderr line matching PATTERN.
bad() {
	want=$1 pat=$2
	shift 2
	"$RCLPROF" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$want" = nz ]; then
		[ "$rc" -ne 0 ] || fail "rcl-prof $*: exit 0"
	else
		[ "$rc" -eq "$want" ] || fail "rcl-prof $*: exit $rc, want $want"
	fi
	[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "rcl-prof $*: not one line"; }
	grep -q -e "^rcl-prof: .*$pat" "$T/err" || { cat "$T/err"; fail "rcl-prof $*: no '$pat'"; }
	echo "ok: rcl-prof $* -> $rc: $(cat "$T/err")"
}

echo precious >"$T/keep.json"
printf '#!/bin/sh\nexit 0\n' >"$T/noexec"
chmod 644 "$T/noexec"
bad 2 "no command" -o "$T/keep.json"
bad 2 "no command" -o "$T/keep.json" --
bad 127 "/nonexistent/prog: no such file" -o "$T/keep.json" -- /nonexistent/prog
bad 127 "no-such-command-xyz: command not found" -- no-such-command-xyz
bad 126 "noexec: not executable" -o "$T/keep.json" -- "$T/noexec"
bad 126 "not executable" -- "$T"
[ "$(cat "$T/keep.json")" = precious ] || fail "output file was touched"

bad 2 "cannot write $T/nodir/p.json: no such directory" -o "$T/nodir/p.json" -- touch "$T/ran"
bad 2 "cannot write $T: is a directory" -o "$T" -- touch "$T/ran"
[ ! -e "$T/ran" ] || fail "the command ran despite an unwritable output"

bad 2 "nothere.json: No such file" --thresholds "$T/nothere.json" -- true
printf 'lower=10\nupper 50\n' >"$T/th"
bad 2 "th:2: expected lower=PCT" --thresholds "$T/th" -- true
bad 2 "lower (70) <= upper (60)" --lower 70 -- true
bad 2 "between 1 and 8" --depth 9 -- true
bad 2 "between 1 and 8" --depth -1 -- true
bad 2 "--top -1: must be 0" --top -1 -- touch "$T/ran"
bad 2 "--top: invalid int value: 'x'" --top x -- touch "$T/ran"
bad 2 "--sample 0: must be at least 1" --sample 0 -- touch "$T/ran"
bad 2 "--table: invalid choice: 'foo'" --table foo -- touch "$T/ran"
bad 2 "--lower nan: must be a percentage" --lower nan -- touch "$T/ran"
bad 2 "--upper 101: must be a percentage" --upper 101 -- touch "$T/ran"
[ ! -e "$T/ran" ] || fail "the command ran despite a bad option"
bad nz "nodump: No such file" --from "$T/nodump"
bad 2 "exclusive" --from "$T" -- true

"$RCLPROF" --help >"$T/help" || fail "--help exited $?"
grep -q "usage: rcl-prof" "$T/help" || fail "--help: no usage"
"$RCLPROF" --version | grep -q "^rcl-prof " || fail "--version"
echo "ok: help and version"
