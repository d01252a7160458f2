#!/bin/sh
# Prints "N passed, N failed[, N skipped]" for a finished `make check`,
# counting individual checks: Check programs report "Checks: N, Failures:
# F, Errors: E" in their logs; every other test counts by its :test-result:
# lines (one per TAP line or per program).  Usage: summary.sh BUILDDIR...
set -eu
passed=0 failed=0 skipped=0
for dir in "$@"; do
	for trs in $(find "$dir/tests" -name '*.trs' 2>/dev/null); do
		log=${trs%.trs}.log
		line=$(grep -E '^[0-9]+%: Checks: [0-9]+' "$log" 2>/dev/null | tail -n 1 || true)
		if [ -n "$line" ]; then
			n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
			f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
			e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
			passed=$((passed + n - f - e))
			failed=$((failed + f + e))
			# a crash after the checks ran still fails the program
			if grep -qE '^:test-result: (FAIL|ERROR)' "$trs" && [ $((f + e)) -eq 0 ]; then
				failed=$((failed + 1))
			fi
			continue
		fi
		p=$(grep -cE '^:test-result: (PASS|XFAIL)' "$trs" || true)
		f=$(grep -cE '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || true)
		s=$(grep -cE '^:test-result: SKIP' "$trs" || true)
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + s))
	done
done
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
