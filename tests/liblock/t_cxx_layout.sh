#!/bin/sh
# SPDX-License-Identifier: MIT
# liblock.h compiles as C++ (C++11 and later, -Wall -Wextra -Werror
# -pedantic), and a C++ file sees liblock's types laid out as its C files
# do: layout.c, built both ways, prints the same offsets and sizes.
set -u
srcdir=${top_srcdir:-../..}/tests/liblock
inc=${top_srcdir:-../..}/liblock
CC=${CC:-cc} CXX=${CXX:-c++}
command -v "$CXX" >/dev/null 2>&1 || {
	echo "SKIP: no C++ compiler ($CXX)"
	exit 77
}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
$CC -std=gnu11 -Wall -Wextra -Werror -I"$inc" "$srcdir/layout.c" \
	-o "$tmp/c" || exit 99
"$tmp/c" >"$tmp/c.out" || exit 99
for std in c++11 c++17 c++20; do
	# _Alignof is C's; C++ spells it alignof
	if ! $CXX -x c++ -std=$std -Wall -Wextra -Werror -pedantic \
		-D_Alignof=alignof -I"$inc" "$srcdir/layout.c" \
		-o "$tmp/cxx" 2>"$tmp/cxx.err"; then
		echo "FAIL: liblock.h does not build as $std:"
		head -20 "$tmp/cxx.err"
		fail=1
		continue
	fi
	"$tmp/cxx" >"$tmp/cxx.out" || { echo "FAIL: $std: exit $?"; fail=1; }
	if cmp -s "$tmp/c.out" "$tmp/cxx.out"; then
		echo "ok: $std lays liblock's types out as C does"
	else
		echo "FAIL: $std and C disagree on the layout:"
		diff -u "$tmp/c.out" "$tmp/cxx.out"
		fail=1
	fi
done
exit $fail
