#!/bin/sh
# SPDX-License-Identifier: MIT
# Ground truth: prof_truth measures its own % of thread time in critical
# sections; rcl-prof must agree within 2 points + 5% of the value, rank
# the locks, count instances and acquisitions exactly.  Its sections
# sleep, so the off-CPU probe must find g_heavy's and the buckets' holds
# blocked (80%+) and their verdicts "no" whatever their %CS (a server
# CPU cannot shorten a nap), and the private mutexes' holds, which run,
# not blocked.  Then again with
# --sample 4 (one outermost section in 4 timed, then scaled): counts stay
# exact, %CS within 3 points + 10%, and g_heavy's blame within 15% of its
# waiting and never above it, in both modes.
. "${srcdir:-.}/profiler/lib.sh"

for sample in 1 4; do
timeout -k 5 120 "$RCLPROF" --sample $sample -o "$T/p.json" -- "$B/prof_truth" 0.4 \
	>"$T/truth.json" 2>"$T/table" ||
	{ cat "$T/table"; fail "rcl-prof --sample $sample -- prof_truth exited $?"; }
cat "$T/table"
"$PY" - "$T/p.json" "$T/truth.json" $sample <<'PYEOF' || exit 1
import json, sys
p, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sample = int(sys.argv[3])
errors = []
def expect(cond, msg):
    if not cond:
        errors.append(msg)
def lock(name):
    for l in p["locks"]:
        if l.get("symbol") == name or l["name"] == name:
            return l
    for l in p["locks"]:
        if l["kind"] == "init" and l["function"] == name:
            return l
    raise SystemExit("FAIL: no lock %r" % name)
def verdict(pct):
    return "RCL recommended" if pct >= 60 else "may help" if pct >= 15 else "no"
heavy, bucket = lock("g_heavy"), lock("main")
private, cold, q = lock("medium"), lock("g_cold"), lock("q_lock")
for l, key in ((heavy, "g_heavy"), (bucket, "bucket")):
    truth, got = t[key]["pct"], l["pct_time_in_cs"]
    tol = 2 + 0.05 * truth if sample == 1 else 3 + 0.10 * truth
    expect(abs(got - truth) <= tol,
           "%s: %%CS %.2f, truth %.2f (tolerance %.2f)" % (key, got, truth, tol))
    # Holds that nap: blocked off CPU, so "no" even where %CS alone
    # would recommend RCL (g_heavy's truth is far above 60%), with a note
    # saying why.  Under --sample 4 a bucket hold is rarely the one
    # probed (the next timed hold after the gap is mostly a private
    # mutex's): with fewer than 5 probes its verdict is %CS's, as before.
    if key == "bucket" and sample > 1 and l["probed_holds"] < 5:
        if all(abs(truth - th) > tol for th in (15, 60)):
            expect(l["verdict"] == verdict(truth),
                   "%s: verdict %r for truth %.1f%%" % (key, l["verdict"], truth))
        continue
    expect(l["probed_holds"] >= 5 and l["blocked_pct"] is not None and
           l["blocked_pct"] >= 80,
           "%s: %d holds probed, %s%% blocked" % (key, l["probed_holds"],
                                                  l["blocked_pct"]))
    expect(l["verdict"] == "no" and
           (verdict(truth) == "no" or "blocked off CPU" in l["verdict_note"]),
           "%s: verdict %r, note %r for truth %.1f%%"
           % (key, l["verdict"], l["verdict_note"], truth))
expect(verdict(t["g_heavy"]["pct"]) == "RCL recommended",
       "g_heavy: truth %.1f%% below the upper threshold: the blocked "
       "check tested nothing" % t["g_heavy"]["pct"])
expect(private["probed_holds"] >= 5 and private["blocked_pct"] <= 20,
       "private: %d holds probed, %s%% blocked" % (private["probed_holds"],
                                                  private["blocked_pct"]))
expect(heavy["rank"] == 1, "g_heavy ranked %d" % heavy["rank"])
expect(bucket["rank"] == 2, "buckets ranked %d" % bucket["rank"])
expect(heavy["kind"] == "static" and heavy["name"] == "g_heavy",
       "g_heavy: kind %s name %s" % (heavy["kind"], heavy["name"]))
expect(bucket["kind"] == "init" and bucket["file"].endswith("prof_truth.c")
       and bucket["line"], "buckets: site %s:%s" % (bucket["file"], bucket["line"]))
for l, key in ((heavy, "g_heavy"), (bucket, "bucket"), (private, "private"),
               (cold, "g_cold"), (q, "q_lock")):
    expect(l["acquisitions"] == t[key]["acq"], "%s: %d acquisitions, truth %d"
           % (key, l["acquisitions"], t[key]["acq"]))
    expect(l["instances"] == t[key]["instances"], "%s: %d instances, truth %d"
           % (key, l["instances"], t[key]["instances"]))
expect(private["contended"] == 0, "private mutexes contended")
for l in (private, cold, q):
    expect(l["verdict"] == "no", "%s: verdict %s" % (l["name"], l["verdict"]))
expect(heavy["blame_ns"] > 0 and heavy["release_sites"] and
       heavy["release_sites"][0]["function"] == "heavy",
       "g_heavy: blame not charged to heavy()")
# All of g_heavy's waiting happens while it is held (its holders sleep
# inside, the next one is already queued), so the blame of its holds is
# its waiting, which is timed exactly in both modes, less the waiting in
# hand-over gaps (1-9% on the loaded VM).  Under --sample most holds find
# waiters queued (the releaser re-locks before the woken waiter runs) and
# are blind outside the sample: no clock at the acquisition, their blame
# starts at the last release's integral, so it takes in the gap before
# them; it must stay within 15% too.  Holds are disjoint and a blind
# one starts no earlier than the release before it, so in both modes
# the blame cannot exceed the waiting (the same cycles; 1% + 1 ms for
# the conversions).
hw = heavy["wait_ns"]["total"]
expect(abs(heavy["blame_ns"] - hw) <= 0.15 * hw,
       "g_heavy: blame %.1f ms, waiting %.1f ms" % (heavy["blame_ns"] / 1e6,
                                                   hw / 1e6))
expect(heavy["blame_ns"] <= 1.01 * hw + 1e6,
       "g_heavy: blame %.1f ms above its waiting %.1f ms"
       % (heavy["blame_ns"] / 1e6, hw / 1e6))
g = p["global"]
expect(g["cond_waits"] == t["q_lock"]["waits"], "cond waits %d, truth %d"
       % (g["cond_waits"], t["q_lock"]["waits"]))
expect(g["cond_signals"] == t["q_lock"]["signals"], "signals %d" % g["cond_signals"])
expect(g["threads"] == t["threads"], "threads %d, truth %d" % (g["threads"], t["threads"]))
expect(abs(g["thread_time_ns"] / 1e9 - t["thread_time_s"]) <= 0.05 * t["thread_time_s"],
       "thread time %.3fs, truth %.3fs" % (g["thread_time_ns"] / 1e9, t["thread_time_s"]))
expect(p["exit_status"] == 0, "exit status")
expect(g["sample"] == sample, "sample %s" % g["sample"])
if sample > 1:
    expect(0 < private["timed_holds"] < private["acquisitions"],
           "private: %d timed holds of %d" % (private["timed_holds"],
                                             private["acquisitions"]))
if errors:
    raise SystemExit("FAIL: " + "; ".join(errors))
print("ok (sample %d): g_heavy %.1f%% (truth %.1f%%), buckets %.1f%% (truth %.1f%%)" % (
    sample, heavy["pct_time_in_cs"], t["g_heavy"]["pct"],
    bucket["pct_time_in_cs"], t["bucket"]["pct"]))
PYEOF
done
