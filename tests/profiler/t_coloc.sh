#!/bin/sh
# SPDX-License-Identifier: MIT
# Co-location, end to end: rcl-prof finds the two groups of threads that
# mostly share one lock (the thread-by-lock matrix in the JSON, the advice
# under the table), --colocate-plan writes them one CPU each, and
# rcl-run --colocate pins each thread as planned.
. "$(dirname "$0")/lib.sh"
RCL_RUN=$abs_top_builddir/liblock/interpose/rcl-run
unset LIBLOCK_LOCK
ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0"
export ASAN_OPTIONS

"$RCLPROF" -o "$T/p.json" --colocate-plan "$T/plan" -- "$B/prof_coloc" \
	>"$T/out" 2>"$T/table" ||
	{ rc=$?; cat "$T/table"; fail "rcl-prof exit $rc"; }
grep -q '^co-location: 2 groups' "$T/table" || { cat "$T/table"; fail "no advice"; }
check "$T/p.json" \
	'[g["threads"] for g in p["colocation"]["groups"]] == [[1, 3, 5, 7], [2, 4, 6, 8]]' \
	'[g["lock"] for g in p["colocation"]["groups"]] == ["a", "b"]' \
	'len([r for r in p["colocation"]["threads"] if r["thread"] > 0]) == 8' \
	'all("b" in [c["lock"] for c in r["acquisitions"]] for r in p["colocation"]["threads"] if r["thread"] > 0)' \
	'all(c["count"] > 0 and c["id"] for r in p["colocation"]["threads"] for c in r["acquisitions"])'
cat "$T/plan"
cpu_a=$(sed -n 's/^cpu \([0-9]*\): 1 3 5 7$/\1/p' "$T/plan")
cpu_b=$(sed -n 's/^cpu \([0-9]*\): 2 4 6 8$/\1/p' "$T/plan")
[ -n "$cpu_a" ] && [ -n "$cpu_b" ] || fail "plan: $(cat "$T/plan")"

# the plan, applied
timeout -k 5 120 "$RCL_RUN" --lock posix --colocate "$T/plan" -- "$B/prof_coloc" \
	>"$T/run" || fail "rcl-run --colocate: exit $?"
for i in 1 3 5 7; do
	grep -qx "thread $i: cpus $cpu_a" "$T/run" || fail "thread $i: $(cat "$T/run")"
done
for i in 2 4 6 8; do
	grep -qx "thread $i: cpus $cpu_b" "$T/run" || fail "thread $i: $(cat "$T/run")"
done
echo "ok: pinned as planned"

# one group only (every thread on one lock): no advice, no plan
"$RCLPROF" -o "$T/one.json" --colocate-plan "$T/plan1" -- "$B/prof_coloc" \
	one >/dev/null 2>"$T/table1" || fail "rcl-prof (one group): exit $?"
[ ! -e "$T/plan1" ] || fail "a plan for a program without two groups"
grep -q 'no plan written' "$T/table1" || { cat "$T/table1"; fail "no message"; }
"$RCLPROF" --colocate-plan - -- true 2>"$T/e" && fail "--colocate-plan - accepted"
[ "$(wc -l <"$T/e")" -eq 1 ] || fail "--colocate-plan -: $(cat "$T/e")"
exit 0
