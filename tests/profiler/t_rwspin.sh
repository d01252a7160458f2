#!/bin/sh
# SPDX-License-Identifier: MIT
# Reader-writer locks (read and write sides as two rows), spin locks and
# the timed calls are profiled like mutexes: prof_rwspin measures its own
# hold and wait times; rcl-prof's counts must be exact, its hold and wait
# totals must contain the program's figures and exceed them by little,
# and the table must name each row's type.
. "${srcdir:-.}/profiler/lib.sh"

timeout -k 5 120 "$RCLPROF" --table stdout -o "$T/p.json" -- \
	"$B/prof_rwspin" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "rcl-prof -- prof_rwspin exited $?"; }
head -1 "$T/out" >"$T/truth.json"
cat "$T/out"
"$PY" - "$T/p.json" "$T/truth.json" <<'PYEOF' || exit 1
import json, sys
p, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = {(l["name"], l["type"]): l for l in p["locks"]}
def row(name, typ):
    if (name, typ) not in rows:
        raise SystemExit("FAIL: no %s row %s in %s" % (typ, name, sorted(rows)))
    return rows[(name, typ)]
def near(what, got_ns, want_ns, n, slack_ns):
    # the profiler's hold contains the program's own measurement, plus at
    # most its clock reads and bookkeeping (2 us per hold: sanitizers);
    # in a hold during which the thread was preempted, plus at most the
    # time from before the lock call to after the unlock call (the
    # program's slack: 0 on an idle machine)
    lo, hi = 0.97 * want_ns, 1.15 * want_ns + n * 2000 + 1e6 + slack_ns
    if not lo <= got_ns <= hi:
        raise SystemExit("FAIL: %s: %.3f ms, program measured %.3f ms "
                         "(preempted holds: %.3f ms more at most)"
                         % (what, got_ns / 1e6, want_ns / 1e6, slack_ns / 1e6))
    print("ok: %s %.3f ms (program %.3f ms, preempted holds %.3f ms more at most)"
          % (what, got_ns / 1e6, want_ns / 1e6, slack_ns / 1e6))
rd, wr = row("g_rw", "rwlock-read"), row("g_rw", "rwlock-write")
sp = [l for l in p["locks"] if l["type"] == "spinlock"]
if len(sp) != 1 or sp[0]["kind"] != "init" or sp[0]["instances"] != 1:
    raise SystemExit("FAIL: spin lock rows %s" % sp)
sp = sp[0]
for what, l, n in (("read", rd, t["reads"]), ("write", wr, t["writes"]),
                   ("spin", sp, t["spins"])):
    if l["acquisitions"] != n:
        raise SystemExit("FAIL: %s acquisitions %d, want %d" % (what, l["acquisitions"], n))
    near(what + " hold", l["hold_ns"]["total"], t[what + "_ns"], n,
         t[what + "_slack_ns"])
mx = row("g_mx", "mutex")
rd2, wr2 = row("g_rw2", "rwlock-read"), row("g_rw2", "rwlock-write")
# Each timed wait is bracketed by the program: the waiter's clock reads
# around the call contain the profiler's wait (key), and the wait
# contains the interval from the holder's sighting of the waiter blocked
# in the kernel to its release (key_min, 20 ms or more).  The profiler
# converts its TSC ticks at a rate measured against CLOCK_MONOTONIC over
# the run, between clock reads that a loaded machine can separate by a
# time slice: its figures are trusted to 3%, as the hold lower bound.
CAL = 0.03
for what, l, key in (("timedlock", mx, "timed_mx_ns"),
                     ("timedwrlock", wr2, "timed_wr_ns"),
                     ("clockrdlock", rd2, "clock_rd_ns")):
    if l["contended"] != 1 or l["acquisitions"] != 2:
        raise SystemExit("FAIL: %s: %d contended of %d, want 1 of 2"
                         % (what, l["contended"], l["acquisitions"]))
    w, lo = l["wait_ns"]["total"], t[key.replace("_ns", "_min_ns")]
    if not lo >= 20e6:
        raise SystemExit("FAIL: %s: the holder released %.3f ms after seeing "
                         "the waiter blocked, want 20 ms or more" % (what, lo / 1e6))
    if not (1 - CAL) * lo <= w <= (1 + CAL) * t[key]:
        raise SystemExit("FAIL: %s waited %.3f ms, program measured %.3f to %.3f ms"
                         % (what, w / 1e6, lo / 1e6, t[key] / 1e6))
    print("ok: %s waited %.3f ms (program %.3f to %.3f ms)"
          % (what, w / 1e6, lo / 1e6, t[key] / 1e6))
# the waits on g_rw2 are blamed on the holds that caused them (the part
# of each wait until the release: not the wake-up that follows it)
if not (0 < rd2["blame_ns"] <= t["timed_wr_ns"] + 2e6 and
        0 < wr2["blame_ns"] <= t["clock_rd_ns"] + 2e6):
    raise SystemExit("FAIL: g_rw2 blame read %.3f ms write %.3f ms" % (rd2["blame_ns"] / 1e6, wr2["blame_ns"] / 1e6))
print("ok: blame on both sides of g_rw2")
PYEOF
for typ in rw:read rw:write spin mutex; do
	grep -q " $typ " "$T/out" || fail "the table has no '$typ' row"
done
echo "ok: table types"
