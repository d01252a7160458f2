#!/bin/sh
# SPDX-License-Identifier: MIT
# Blame shifting: prof_blame holds a lock ~100 ms in hold_long() while 3
# threads wait, ~10 ms in hold_short() while 1 waits, and measures the
# waiting each hold caused.  rcl-prof must charge that waiting to the two
# release call sites within 5% + 2 ms, also with --sample 1000000 (no
# uncontended hold is timed: blame stays exact, because an untimed hold
# that found no waiter and gets some reads the clock at its release;
# only holds that find waiters already queued are estimated, t_truth.sh).
. "${srcdir:-.}/profiler/lib.sh"

for sample in 1 1000000; do
timeout -k 5 60 "$RCLPROF" --sample $sample --table none -o "$T/p.json" \
	-- "$B/prof_blame" >"$T/truth.json" ||
	fail "rcl-prof --sample $sample -- prof_blame exited $?"
echo "--sample $sample"
"$PY" - "$T/p.json" "$T/truth.json" <<'PYEOF' || exit 1
import json, sys
p, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
lk = [l for l in p["locks"] if l["name"] == "lk"]
if not lk:
    raise SystemExit("FAIL: no lock lk")
sites = {r["function"]: r["blame_ns"] / 1e6 for r in lk[0]["release_sites"]}
for fn in ("hold_long", "hold_short"):
    want, got = t[fn + "_ms"], sites.get(fn, 0.0)
    if abs(got - want) > 2 + 0.05 * want:
        raise SystemExit("FAIL: %s: blame %.2f ms, caused %.2f ms (sites %s)"
                         % (fn, got, want, sites))
    print("ok: %s blamed %.2f ms, caused %.2f ms" % (fn, got, want))
if lk[0]["release_sites"][0]["function"] != "hold_long":
    raise SystemExit("FAIL: hold_long is not the most blamed release site")
PYEOF
done
