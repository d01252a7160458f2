#!/bin/sh
# SPDX-License-Identifier: MIT
# --locks on structure fields: "TAG.field" selects one structure's lock,
# ".field" and "field" that field of every structure, and a profile entry
# naming an init site (file:line, as rcl-prof does) selects the structure
# initialised there only.  Input: golden/fields_ok.c, where counter_t.mutex
# is initialised at line 31 and shard.mutex at line 30.
. "$(dirname "$0")/common.sh"
tool_only
cd "$TMP" || exit 1
cp "$GOLDEN/fields_ok.c" .

# run NAME LOCKS WANT: rcl-refactor --locks LOCKS; the summary has WANT.
run() {
	"$RCLR" --locks "$2" -o "$1" fields_ok.c >"$1.log" 2>&1 ||
		{ cat "$1.log"; fail "--locks $2: exit status"; }
	grep -q "$3" "$1.log" || { cat "$1.log"; fail "--locks $2: want '$3'"; }
}

run o1 shard.mutex "4 section(s) found, 2 delegated, 0 held, 0 refused, 2 of"
grep -q "liblock_exec(&s->mutex" o1/fields_ok.c &&
	grep -q "pthread_mutex_lock(&c->mutex)" o1/fields_ok.c ||
	fail "--locks shard.mutex converted the wrong sections"
grep -q "^/\* shard.mutex: fields_ok.c:30" o1/rcl-config.h ||
	fail "--locks shard.mutex: no rcl-config.h entry for shard.mutex"
echo "ok: --locks TAG.field"

run o2 .mutex "4 section(s) found, 4 delegated, 0 held, 0 refused$"
run o3 mutex "4 section(s) found, 4 delegated, 0 held, 0 refused$"
run o4 counter_t.mutex,shard.mutex "4 delegated, 0 held, 0 refused$"
echo "ok: --locks .field, field, a list"

cat >prof.json <<'EOC'
{"version": 1, "locks": [
 {"rank": 1, "name": "fields_ok.c:31 table_init", "kind": "init",
  "file": "fields_ok.c", "line": 31, "verdict": "RCL recommended",
  "pct_time_in_cs": 12.5},
 {"rank": 2, "name": "fields_ok.c:30 table_init", "kind": "init",
  "file": "fields_ok.c", "line": 30, "verdict": "no"}
]}
EOC
run o5 prof.json "4 section(s) found, 2 delegated, 0 held, 0 refused, 2 of"
grep -q "liblock_exec(&c->mutex" o5/fields_ok.c &&
	grep -q "pthread_mutex_lock(&s->mutex)" o5/fields_ok.c ||
	fail "profile by init site converted the wrong sections"
grep -q "counter_t.mutex: fields_ok.c:31.*profile: rank 1" o5/rcl-config.h ||
	{ cat o5/rcl-config.h; fail "profile comment of counter_t.mutex"; }
echo "ok: profile init site selects one structure's field"
exit 0
