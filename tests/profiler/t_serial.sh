#!/bin/sh
# SPDX-License-Identifier: MIT
# The serialising share: prof_stacks long has three threads wait on one
# ~60 ms section (only the holder can run: most of the hold time
# serialises the program); prof_stacks short has four threads run in
# parallel with ~2 us sections, phases staggered by a quarter round.  Loose bounds (loaded 2-CPU machines): at
# least 60% for the first, at most 25% for the second, in the JSON profile
# and in the table's ser% column.
. "${srcdir:-.}/profiler/lib.sh"

for mode in long short; do
	timeout -k 5 60 "$RCLPROF" --table stdout -o "$T/$mode.json" \
		-- "$B/prof_stacks" $mode >"$T/$mode.txt" ||
		fail "rcl-prof -- prof_stacks $mode exited $?"
	cat "$T/$mode.txt"
done
check "$T/long.json" 'lock("big")["serialising_pct"] >= 60' \
	'lock("big")["serialising_ns"] <= lock("big")["hold_ns"]["total"]' \
	'lock("big")["serialising_ns"] > 0'
check "$T/short.json" 'lock("big")["serialising_pct"] <= 25' \
	'lock("big")["acquisitions"] == 32'
# the column: header "ser%", the value as in the JSON
"$PY" - "$T/long.json" "$T/long.txt" <<'PYEOF' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2])]
hdr = [r for r in rows if r[:2] == ["#", "site"]][0]
row = [r for r in rows if len(r) > 1 and r[1] == "big"][0]
col = row[hdr.index("ser%")]
want = "%.0f" % p["locks"][0]["serialising_pct"]
if col != want:
    raise SystemExit("FAIL: ser%% column %s, JSON %s" % (col, want))
PYEOF
echo "ok"
