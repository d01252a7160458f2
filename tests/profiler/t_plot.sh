#!/bin/sh
# SPDX-License-Identifier: MIT
# --plot: the timeline of prof_stacks long (main holds `big` three times
# ~60 ms while three new workers wait).  The PNG must be a valid PNG of a
# sensible size, and the data gnuplot drew (kept with --keep) must be the
# run's: the held boxes add up to the lock's hold time, the waiting boxes
# to its wait time on nine thread rows, and the idle curve shows the
# program serialising most of the time.  Bad --plot names are refused.
. "${srcdir:-.}/profiler/lib.sh"

command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: no gnuplot"; exit 77; }
timeout -k 5 60 "$RCLPROF" --table none -o "$T/p.json" --keep "$T/k" \
	--plot "$T/p.png" -- "$B/prof_stacks" long ||
	fail "rcl-prof --plot exited $?"
"$PY" - "$T/p.json" "$T/p.png" "$T/k" <<'PYEOF' || exit 1
import json, os, struct, sys, zlib
p = json.load(open(sys.argv[1]))
png, k = sys.argv[2], sys.argv[3]
data = open(png, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
    raise SystemExit("FAIL: %s is not a PNG" % png)
w, h = struct.unpack(">II", data[16:24])
if zlib.crc32(data[12:29]) != struct.unpack(">I", data[29:33])[0]:
    raise SystemExit("FAIL: bad IHDR checksum")
if not (800 <= w <= 4000 and 300 <= h <= 4000) or len(data) < 5000 \
        or not data.endswith(b"IEND\xaeB`\x82"):
    raise SystemExit("FAIL: PNG %dx%d, %d bytes" % (w, h, len(data)))
print("PNG %dx%d, %d bytes" % (w, h, len(data)))
big = [l for l in p["locks"] if l["name"] == "big"][0]
blocks, name = {}, None
for ln in open(os.path.join(k, "plot-timeline.dat")):
    if ln.startswith("# block "):
        name = ln.split(": ", 1)[1].strip()
        blocks[name] = []
    elif ln.strip() and not ln.startswith("#") and name:
        f = ln.split()
        if f[0] != "NaN":
            blocks[name].append((float(f[0]), int(f[1]), float(f[2])))
held = blocks.get("holding: big", [])
wait = blocks.get("waiting: big", [])
hold_ms = sum(2 * b[2] for b in held)
wait_ms = sum(2 * b[2] for b in wait)
print("drawn: held %.1f ms (report %.1f), waiting %.1f ms (report %.1f) "
      "on %d rows" % (hold_ms, big["hold_ns"]["total"] / 1e6, wait_ms,
                      big["wait_ns"]["total"] / 1e6, len({b[1] for b in wait})))
for got, want in ((hold_ms, big["hold_ns"]["total"] / 1e6),
                  (wait_ms, big["wait_ns"]["total"] / 1e6)):
    if abs(got - want) > 0.02 * want + 0.5:
        raise SystemExit("FAIL: drawn %.2f ms, report %.2f ms" % (got, want))
if len({b[1] for b in wait}) != 9 or hold_ms < 150:
    raise SystemExit("FAIL: expected 9 waiting threads and ~180 ms held")
if not blocks.get("running"):
    raise SystemExit("FAIL: no running boxes")
idle = [list(map(float, l.split())) for l in
        open(os.path.join(k, "plot-idle.dat")) if not l.startswith("#")]
ser = sum(r[2] for r in idle) / len(idle)
print("idle curve: %d points, serialising %.0f%% of the time"
      % (len(idle), 100 * ser))
if len(idle) < 100 or ser < 0.5 or not all(0 <= r[1] <= 100 for r in idle):
    raise SystemExit("FAIL: idle curve")
gp = open(os.path.join(k, "plot.gp")).read()
for want in (png, "plot-timeline.dat", "plot-idle.dat"):
    if want not in gp:
        raise SystemExit("FAIL: plot.gp does not use %s" % want)
PYEOF

# bad names: one line, non-zero, nothing run
for bad in "$T/p.txt" "$T/nodir/p.png" -; do
	if "$RCLPROF" --plot "$bad" -- true 2>"$T/err"; then
		fail "--plot $bad accepted"
	fi
	[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "--plot" "$T/err" ||
		fail "--plot $bad: $(cat "$T/err")"
done
echo "ok"
