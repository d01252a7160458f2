#!/bin/sh
# SPDX-License-Identifier: MIT
# Locks initialised through the program's own wrappers (issue #16):
# prof_wrapinit creates four locks through app_mutex_init() (out of
# line), app_mutex_init_inline() (inlined) and a first use through
# app_mutex_lock(); rcl-prof names each by the caller of the wrapper
# (four distinct names, at the INIT: markers), lists the wrapper in
# `wrappers`, ranks table.lock first ("RCL recommended"), and
# rcl-refactor --locks PROFILE then selects table.lock and only it.
. "$(dirname "$0")/lib.sh"
S=$(cd "$(dirname "$0")" && pwd)
line() { grep -n "INIT:$1 " "$S/prof_wrapinit.c" | cut -d: -f1; }
LT=$(line table) LS=$(line stats) LQ=$(line logq) LL=$(line later)
[ -n "$LT" ] && [ -n "$LS" ] && [ -n "$LQ" ] && [ -n "$LL" ] ||
	fail "INIT: markers not found in $S/prof_wrapinit.c"

timeout -k 5 120 "$RCLPROF" -o "$T/p.json" -- "$B/prof_wrapinit" \
	>"$T/out" 2>"$T/table" ||
	{ rc=$?; cat "$T/table"; fail "rcl-prof exit $rc"; }
cat "$T/table"
T1="prof_wrapinit.c:$LT make_table" T2="prof_wrapinit.c:$LS make_stats"
T3="prof_wrapinit.c:$LQ make_logq"
T4="first used at prof_wrapinit.c:$LL touch_later"
check "$T/p.json" \
	"sorted(l['name'] for l in p['locks']) == sorted(['$T1', '$T2', '$T3', '$T4'])" \
	"lock('$T1')['rank'] == 1" \
	"lock('$T1')['verdict'] == 'RCL recommended'" \
	"lock('$T1')['acquisitions'] == 240 and lock('$T2')['acquisitions'] == 240" \
	"lock('$T3')['acquisitions'] == 4 and lock('$T4')['acquisitions'] == 4" \
	"all(l['verdict'] == 'no' for l in p['locks'] if l['rank'] > 1)" \
	"lock('$T1')['file'].endswith('prof_wrapinit.c') and lock('$T1')['line'] == $LT and lock('$T1')['function'] == 'make_table'" \
	"lock('$T2')['line'] == $LS and lock('$T3')['line'] == $LQ" \
	"[w.split(' ')[1] for w in lock('$T1')['wrappers']] == ['app_mutex_init']" \
	"[w.split(' ')[1] for w in lock('$T2')['wrappers']] == ['app_mutex_init']" \
	"[w.split(' ')[1] for w in lock('$T3')['wrappers']] == ['app_mutex_init_inline']" \
	"[w.split(' ')[1] for w in lock('$T4')['wrappers']] == ['app_mutex_lock']" \
	"lock('$T1')['backtrace'][0].split(' ')[1] == 'app_mutex_init'" \
	"lock('$T1')['kind'] == 'init' and lock('$T4')['kind'] == 'first-use'"
grep -q "^1  $T1 " "$T/table" || fail "the table's first row is not $T1"
echo "ok: four names, $T1 first"

# rcl-refactor with that profile: the wrappers given as macros (as the
# corpus harness does for libuv), table.lock selected through the
# profile's file and line, the others left alone.
ENV=$abs_top_builddir/tests/cocci/cocci-env.sh
[ -f "$ENV" ] && . "$ENV"
if [ -z "${SPATCH:-}" ] || [ "$SPATCH" = no ] ||
	! command -v "$SPATCH" >/dev/null 2>&1; then
	echo "rcl-refactor part not run: spatch not found"
	exit 0
fi
export SPATCH
export RCL_REFACTOR_DATADIR="$S/../../cocci" RCL_CFLAGS="-I$S/../../liblock -I$S/../../runtime"
mkdir "$T/src" && cp "$S/prof_wrapinit.c" "$S/prof_wrapinit.h" "$T/src/" ||
	fail "copy"
cat >"$T/src/macros.h" <<'EOM'
#define app_mutex_t pthread_mutex_t
#define app_mutex_init(m) pthread_mutex_init((m), NULL)
#define app_mutex_init_inline(m) pthread_mutex_init((m), NULL)
#define app_mutex_lock(m) pthread_mutex_lock((m))
#define app_mutex_unlock(m) pthread_mutex_unlock((m))
EOM
(cd "$T/src" && timeout -k 5 300 "$abs_top_builddir/cocci/rcl-refactor" \
	--locks "$T/p.json" --macro-file macros.h -o out prof_wrapinit.c) \
	>"$T/rr.log" 2>&1
rc=$?
cat "$T/rr.log"
[ "$rc" -le 1 ] || fail "rcl-refactor exit $rc"
CONF=$T/src/out/rcl-config.h
[ -f "$CONF" ] || fail "no rcl-config.h"
grep -q "^/\* table.lock: prof_wrapinit.c:$LT, .*profile: rank 1, .*verdict: RCL recommended \*/" \
	"$CONF" || { cat "$CONF"; fail "table.lock not selected by the profile"; }
[ "$(grep -c '_ALGO "rcl"' "$CONF")" -eq 1 ] ||
	{ cat "$CONF"; fail "not exactly one lock converted"; }
for l in stats.lock logq.lock; do
	grep -q "^ \* $l (prof_wrapinit.c): not selected by --locks" "$CONF" ||
		{ cat "$CONF"; fail "$l: not left alone as unselected"; }
done
echo "ok: rcl-refactor selects table.lock only"
exit 0
