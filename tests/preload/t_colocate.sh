#!/bin/sh
# SPDX-License-Identifier: MIT
# rcl-run --colocate PLAN: the threads a plan names start pinned to its
# CPUs (by creation index, or by start routine), the others are left
# alone; bad plans are refused in one line before the program runs.
. "$(dirname "$0")/lib.sh"
PT_COLOC=./preload/pt_coloc

# the CPUs this test may use: the plan's two CPUs are the first two
allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
all=$("$PT_COLOC" | sed -n 's/^thread 1: cpus //p')
[ -n "$all" ] || fail "pt_coloc does not run: $allowed"
c0=$(echo "$all" | cut -d, -f1)
c1=$(echo "$all" | cut -d, -f2)
echo "allowed CPUs: $all (plan uses $c0 and $c1)"

cat >"$TMP/plan" <<EOP
# the threads of lock A on one CPU, those of lock B on another
cpu $c0: 1 3
cpu $c1:	@worker_b   # by start routine
EOP
{
	echo "thread 1: cpus $c0"
	echo "thread 2: cpus $c1"
	echo "thread 3: cpus $c0"
	echo "thread 4: cpus $c1"
	echo "thread 5: cpus $all"
} >"$TMP/want"
for a in posix mcs; do
	timeout -k 5 60 "$RCL_RUN" --lock "$a" --colocate "$TMP/plan" -- \
		"$PT_COLOC" >"$TMP/got" || fail "$a: exit status $?"
	diff -u "$TMP/want" "$TMP/got" || fail "$a: threads not pinned as planned"
	echo "ok $a: pinned as planned"
	# without a plan nobody is pinned
	under "$a" 60 "$PT_COLOC" >"$TMP/got" || fail "$a without plan: exit $?"
	[ "$(grep -c ": cpus $all\$" "$TMP/got")" -eq 5 ] ||
		fail "$a: a thread was pinned without a plan: $(cat "$TMP/got")"
done

# bad plans: one line naming the file (and line), non-zero, the command
# never runs
printf 'cpu %s: 1\ncpu x: 2\n' "$c0" >"$TMP/syntax"
printf 'cpu 1023: 1\n' >"$TMP/cpu"
printf '# nothing\n\n' >"$TMP/empty"
printf 'cpu %s: 1 2\ncpu %s: 2\n' "$c0" "$c0" >"$TMP/twice"
printf 'cpu %s: 0\n' "$c0" >"$TMP/zero"
printf 'cpu %s: @\n' "$c0" >"$TMP/noname"
for bad in "$TMP/nonexistent:No such file" "$TMP/syntax:syntax:2: expected a CPU" \
	"$TMP/cpu:CPU 1023 is not one" "$TMP/empty:names no thread" \
	"$TMP/twice:twice:2: thread named twice" "$TMP/zero:zero:1: thread creation indices start at 1" \
	"$TMP/noname:noname:1: expected a function name"; do
	file=${bad%%:*}
	want=${bad#*:}
	rm -f "$TMP/ran"
	out=$("$RCL_RUN" --lock posix --colocate "$file" -- touch "$TMP/ran" 2>&1) &&
		fail "plan $file accepted"
	[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "plan $file: not one line: $out"
	case "$out" in
	"rcl-run: --colocate "*"$want"*) echo "refused: $out" ;;
	*) fail "plan $file: unexpected message: $out (want $want)" ;;
	esac
	[ ! -e "$TMP/ran" ] || fail "plan $file: the command ran"
done

# the interposer parses what it is given as strictly: a bad
# RCL_RUN_COLOCATE (set by hand) stops the program with one line
out=$(RCL_RUN_COLOCATE='0:1,x' timeout 30 "$RCL_RUN" --lock posix -- "$PT_COLOC" 2>&1) &&
	fail "bad RCL_RUN_COLOCATE accepted"
echo "$out" | grep -q "RCL_RUN_COLOCATE='0:1,x'" || fail "bad RCL_RUN_COLOCATE: $out"
echo "refused: $out"
exit 0
