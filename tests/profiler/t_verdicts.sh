#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdicts and thresholds, deterministically: a hand-written dump with
# three sites at 70%, 30% and 10% of thread time in critical sections,
# reported with `rcl-prof --from` under default, option and file
# thresholds; the JSON carries the fields rcl-refactor reads.
. "${srcdir:-.}/profiler/lib.sh"

mkdir "$T/d"
{
	printf 'rclprof-dump 1\npid 100\nppid 1\nexe /nonexistent/app\n'
	printf 'tsc_hz 1000000000\nwall_ns 1000000000\nwall_cycles 1000000000\n'
	printf 'threads 2\nthread_time 2000000000\ncs_union 1000000000\n'
	printf 'untracked 0\ncond 0 0 0\ncalls 1 0 3 0 0 3 0 0 0 0 1 1 0\n'
	printf 'misses n/a: no hardware counters\n'
	zeros=$(printf ' 0%.0s' $(seq 40))
	for s in 1:1400000000:4 2:600000000:1 3:200000000:2; do
		id=${s%%:*}; rest=${s#*:}; cs=${rest%%:*}; inst=${rest#*:}
		printf 'site %s 1 %s 1\n' "$id" "$inst"
		printf 'frame %s 0 %#x - /nonexistent/app\n' "$id" $((4096 * id + 1))
		printf 'stat %s 1000 10 2 0 %s 0 %s 0 5000 0 0 0 0\n' "$id" $((cs / 2)) "$cs"
		printf 'hhold %s 0 0 0 1000%s\n' "$id" "${zeros# 0 0 0 0}"
		printf 'hwait %s%s\n' "$id" "$zeros"
	done
	printf 'end\n'
} >"$T/d/rclprof.100.dump"

"$RCLPROF" --from "$T/d" -o "$T/a.json" --table stdout >"$T/table" ||
	fail "--from exited $?"
cat "$T/table"
grep -q 'app+0x1000 .*RCL recommended' "$T/table" || fail "table: first row"
check "$T/a.json" 'p["version"] == 1' \
	'[l["verdict"] for l in p["locks"]] == ["RCL recommended", "may help", "no"]' \
	'[round(l["pct_time_in_cs"], 6) for l in p["locks"]] == [70, 30, 10]' \
	'[l["instances"] for l in p["locks"]] == [4, 1, 2]' \
	'[l["rank"] for l in p["locks"]] == [1, 2, 3]' \
	'all(k in l for l in p["locks"] for k in ("id", "name", "kind", "symbol", "file", "line", "function", "backtrace", "verdict", "acquisitions", "contention_pct", "hold_ns", "wait_ns", "misses_per_cs", "misses_per_cs_note", "blame_ns", "release_sites"))' \
	'p["locks"][0]["misses_per_cs"] is None and p["locks"][0]["misses_per_cs_note"] == "n/a: no hardware counters"' \
	'p["locks"][0]["contention_pct"] == 1.0 and p["locks"][0]["trylock_failures"] == 2' \
	'abs(p["locks"][0]["hold_ns"]["avg"] - 700000) < 1e-6' \
	'p["thresholds"] == {"lower": 15.0, "upper": 60.0, "source": "default"}' \
	'p["global"]["pct_time_in_cs"] == 50.0'

"$RCLPROF" --from "$T/d" -o "$T/b.json" --table none --lower 35 --upper 75 ||
	fail "--lower/--upper exited $?"
check "$T/b.json" '[l["verdict"] for l in p["locks"]] == ["may help", "no", "no"]'

echo '{"lower": 5, "upper": 25}' >"$T/th.json"
"$RCLPROF" --from "$T/d" -o "$T/c.json" --table none --thresholds "$T/th.json" ||
	fail "--thresholds (JSON) exited $?"
check "$T/c.json" '[l["verdict"] for l in p["locks"]] == ["RCL recommended", "RCL recommended", "may help"]'

printf '# calibrated\nlower = 12\nupper=40\n' >"$T/th.txt"
"$RCLPROF" --from "$T/d" -o "$T/e.json" --table none --thresholds "$T/th.txt" --upper 80 ||
	fail "--thresholds (text) exited $?"
check "$T/e.json" '[l["verdict"] for l in p["locks"]] == ["may help", "may help", "no"]' \
	'p["thresholds"]["lower"] == 12 and p["thresholds"]["upper"] == 80'
echo "ok: verdicts follow the thresholds"
