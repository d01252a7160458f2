#!/bin/sh
# SPDX-License-Identifier: MIT
# The sample app's --check mode: every run verifies the final cache against
# a single-threaded replay, and the digest depends only on the operation
# streams (ops, keys, seed, get %), never on the thread count or the
# interleaving.  Also: bad options are refused with exit 2.
kv=${abs_top_builddir:-..}/apps/sample/kvcache
[ -x "$kv" ] || { echo "kvcache not built: $kv"; exit 1; }
fail=0

digest() {
	out=$(timeout 120 "$kv" --check "$@") || {
		echo "FAIL: kvcache --check $*"; echo "$out"; fail=1; return
	}
	echo "$out" | sed -n 's/^check: ok .*digest=\([0-9a-f]*\)$/\1/p'
}

ref=$(digest -t 1 -n 60000 -k 300 -s 7)
[ -n "$ref" ] || { echo "FAIL: no digest from the 1-thread run"; exit 1; }
for t in 2 4 16; do
	d=$(digest -t "$t" -n 60000 -k 300 -s 7)
	if [ "$d" != "$ref" ]; then
		echo "FAIL: -t $t digest '$d' differs from -t 1 digest '$ref'"
		fail=1
	fi
done
# A different seed or get mix gives a different digest (the check is not
# vacuous), and an all-increments run still checks.
other=$(digest -t 4 -n 60000 -k 300 -s 8)
[ "$other" != "$ref" ] || { echo "FAIL: seed does not change digest"; fail=1; }
[ -n "$(digest -t 3 -n 20001 -g 0)" ] || fail=1

for bad in "-t 0" "-n x" "-g 101" "--check -d 1" "extra"; do
	# shellcheck disable=SC2086
	timeout 10 "$kv" $bad >/dev/null 2>err.$$
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q '^kvcache: ' err.$$; then
		echo "FAIL: 'kvcache $bad' exited $rc: $(cat err.$$)"
		fail=1
	fi
done
rm -f err.$$
timeout 10 "$kv" --help | grep -q '^usage: kvcache' || { echo "FAIL: --help"; fail=1; }
[ "$fail" -eq 0 ] && echo "kvcache --check: digest $ref for 1, 2, 4 and 16 threads"
exit "$fail"
