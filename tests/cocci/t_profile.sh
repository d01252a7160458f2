#!/bin/sh
# SPDX-License-Identifier: MIT
# rcl-refactor --locks PROFILE.json reads the profile through
# librcl_profile (shared with rcl-prof): a profile of another schema
# version or without one, an entry without a verdict or with an unknown
# one, or a malformed entry is refused with one line naming the file and
# the version or the entry, exit 2, and nothing written or touched.  A
# good profile with keys this reader does not know is used.
. "$(dirname "$0")/common.sh"
tool_only
cd "$TMP" || exit 1
cp "$CORPUS/counter.c" c.c
cp c.c c.orig

# refuse NAME PATTERN JSON: --locks NAME (holding JSON) fails as said.
refuse() {
	name=$1 pat=$2
	printf '%s\n' "$3" >"$name"
	"$RCLR" --locks "$name" -o out c.c >stdout.txt 2>stderr.txt
	rc=$?
	[ "$rc" -eq 2 ] || { cat stderr.txt; fail "$name: exit $rc, want 2"; }
	[ -s stdout.txt ] && { cat stdout.txt; fail "$name: output on stdout"; }
	[ "$(wc -l <stderr.txt)" -eq 1 ] ||
		{ cat stderr.txt; fail "$name: not a one-line error"; }
	grep -q "^rcl-refactor: --locks: $name: " stderr.txt ||
		{ cat stderr.txt; fail "$name: the error does not name the file"; }
	grep -qF -- "$pat" stderr.txt ||
		{ cat stderr.txt; fail "$name: no '$pat'"; }
	[ -e out ] && fail "$name: output written"
	"$RCLR" --locks "$name" --in-place c.c >/dev/null 2>&1 &&
		fail "$name: accepted with --in-place"
	cmp -s c.c c.orig || fail "$name: c.c was modified"
	echo "ok: $(cat stderr.txt)"
}

good='{"name": "m", "symbol": "m", "verdict": "RCL recommended"}'
refuse noversion.json 'no schema version' "{\"locks\": [$good]}"
refuse v2.json 'schema version 2, this reader knows version 1 only' \
	"{\"version\": 2, \"locks\": [$good]}"
refuse v0.json 'schema version 0' "{\"version\": 0, \"locks\": [$good]}"
refuse vstr.json 'schema version "1" is not an integer' \
	"{\"version\": \"1\", \"locks\": [$good]}"
refuse vfloat.json 'schema version 1.5 is not an integer' \
	"{\"version\": 1.5, \"locks\": [$good]}"
refuse list.json 'not a profile' "[$good]"
refuse noverdict.json 'locks[1] ("hot"): no verdict (expected "RCL recommended", "may help" or "no")' \
	"{\"version\": 1, \"locks\": [$good, {\"name\": \"hot\", \"rank\": 2}]}"
refuse nullverdict.json 'locks[0] ("m"): no verdict' \
	'{"version": 1, "locks": [{"name": "m", "verdict": null}]}'
refuse rclverdict.json 'locks[0] ("m"): unknown verdict "rcl"' \
	'{"version": 1, "locks": [{"name": "m", "verdict": "rcl"}]}'
refuse caseverdict.json 'unknown verdict "rcl recommended"' \
	'{"version": 1, "locks": [{"name": "m", "verdict": "rcl recommended"}]}'
refuse noname.json 'locks[0]: no "name"' \
	'{"version": 1, "locks": [{"verdict": "no"}]}'
refuse notobj.json 'locks[1]: expected an object, not a string' \
	"{\"version\": 1, \"locks\": [$good, \"m\"]}"
refuse badline.json 'locks[0] ("m").line: expected an integer, not a string' \
	'{"version": 1, "locks": [{"name": "m", "file": "c.c", "line": "x", "verdict": "no"}]}'
refuse badhold.json 'locks[0] ("m").hold_ns.avg: expected a number' \
	'{"version": 1, "locks": [{"name": "m", "verdict": "no", "hold_ns": {"total": 1, "avg": "1", "max": 1}}]}'
refuse nolocks.json 'expected a list of lock entries in "locks", not nothing' \
	'{"version": 1}'
refuse empty.json 'the profile lists no lock' '{"version": 1, "locks": []}'
refuse broken.json 'not valid JSON' '{"version": 1,'
refuse badthr.json 'thresholds.lower: expected a number, not a string' \
	"{\"version\": 1, \"thresholds\": {\"lower\": \"x\", \"upper\": 60}, \"locks\": [$good]}"

# A good profile: keys unknown to this reader are ignored (the schema
# only gains fields), "may help" does not select.
cat >ok.json <<EOC
{"version": 1, "future_key": {"a": 1}, "locks": [
 {"name": "m", "symbol": "m", "verdict": "RCL recommended", "rank": 1,
  "pct_time_in_cs": 70.5, "new_field": [1, 2]}]}
EOC
"$RCLR" --locks ok.json -o out c.c >log 2>&1 || { cat log; fail "ok.json refused"; }
grep -q "liblock_exec(&m" out/c.c || fail "ok.json: m not converted"
grep -q "profile: rank 1, 70.5% of time in CS, verdict: RCL recommended" \
	out/rcl-config.h || { cat out/rcl-config.h; fail "ok.json: comment"; }
sed 's/RCL recommended/may help/' ok.json >help.json
"$RCLR" --locks help.json -o out2 c.c >log 2>&1 || { cat log; fail "help.json"; }
grep -q "liblock_exec" out2/c.c && fail "help.json: a 'may help' lock converted"
echo "ok: a good profile is used, 'may help' is not selected"

# A mutex declared static in a function is named by the compiler's
# symbol for it, NAME.N (rcl-prof reports redis' async_free_queue_mutex
# as async_free_queue_mutex.1): that selects NAME.
cat >sl.c <<'EOC'
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
static long n, o;

static void bump(void)
{
	static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&tally_lock);
	n++;
	pthread_mutex_unlock(&tally_lock);
	pthread_mutex_lock(&other);
	o++;
	pthread_mutex_unlock(&other);
}

int main(void)
{
	bump();
	printf("%ld %ld\n", n, o);
	return 0;
}
EOC
cat >sl.json <<EOC
{"version": 1, "locks": [
 {"name": "tally_lock.2", "symbol": "tally_lock.2", "verdict": "RCL recommended"}]}
EOC
"$RCLR" --locks sl.json -o out3 sl.c >log 2>&1 || { cat log; fail "sl.json refused"; }
grep -q "liblock_exec(&tally_lock" out3/sl.c || { cat log; fail "sl.json: tally_lock.2 does not select tally_lock"; }
grep -q "liblock_exec(&other" out3/sl.c && fail "sl.json: other converted"
echo "ok: NAME.N (a block-scope static's symbol) selects NAME"
