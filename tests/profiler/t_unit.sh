#!/bin/sh
# SPDX-License-Identifier: MIT
# The unit tests of rcl-prof's Python package (rcl_prof), of the JSON
# profile's reader and writer shared with rcl-refactor (librcl_profile),
# and of rcl-refactor's --locks PROFILE.json: Python's unittest, with the
# Python configure found, on the source tree's packages.  Also: every
# module of both packages is installed (and distributed).
. "${srcdir:-.}/profiler/lib.sh"
src=$(cd "${top_srcdir:?}" && pwd)
for py in "$src"/profiler/rcl_prof/*.py "$src"/profiler/librcl_profile/*.py; do
	rel=${py#"$src/profiler/"}
	grep -q "^	$rel\( \\\\\)\{0,1\}$" "$src/profiler/Makefile.am" ||
		fail "profiler/Makefile.am does not install $rel"
done
for t in "$src"/tests/profiler/unit/*.py; do
	grep -q "profiler/unit/$(basename "$t")" "$src/tests/profiler/Makefile.inc" ||
		fail "tests/profiler/Makefile.inc does not distribute unit/$(basename "$t")"
done
PYTHONDONTWRITEBYTECODE=1 \
	PYTHONPATH="$src/profiler:$src/cocci:$src/tests/profiler/unit" \
	"$PY" -m unittest discover -v -s "$src/tests/profiler/unit" \
	-p 'test_*.py' 2>&1 || fail "unit tests (above)"
