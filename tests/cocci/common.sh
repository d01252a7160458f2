# SPDX-License-Identifier: MIT
# Shared setup for the rcl-refactor tests (sourced).  Exits 77 (skip) when
# spatch is missing; sets RCLR (the command), TMP (scratch, removed on
# exit), CORPUS, GOLDEN, and cc_rcl (compile against librcl).
set -u
: "${top_srcdir:=../..}" "${top_builddir:=..}"
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$top_builddir/tests/cocci/cocci-env.sh" ] &&
	. "$top_builddir/tests/cocci/cocci-env.sh"
: "${CC:=cc}" "${SAN_CFLAGS:=}" "${SPATCH:=spatch}"
if ! command -v "$SPATCH" >/dev/null 2>&1 || [ "$SPATCH" = no ]; then
	echo "SKIP: spatch not found"
	exit 77
fi
export SPATCH
export RCL_REFACTOR_DATADIR="$top_srcdir/cocci"
export RCL_CFLAGS="-I$top_srcdir/liblock -I$top_srcdir/runtime"
RCLR="$top_builddir/cocci/rcl-refactor"
CORPUS="$top_srcdir/tests/cocci/corpus"
GOLDEN="$top_srcdir/tests/cocci/golden"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t-cocci.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
LIBDIR="$top_builddir/runtime/.libs"

fail() {
	echo "FAIL: $*"
	exit 1
}

# tool_only: for a test that runs rcl-refactor and compares its text
# output, and builds and runs nothing: rcl-refactor is Python, spatch and
# libclang, none of it built here, so a sanitizer build has nothing to
# instrument and the run would repeat the plain build's.  Skips there.
tool_only() {
	if [ -n "$SAN_CFLAGS" ]; then
		echo "SKIP: runs no code this build instruments ($SAN_CFLAGS);" \
			"the plain build runs it"
		exit 77
	fi
}

# cc_rcl OUT SRC [FLAGS...]: build a transformed program against librcl
# (and $CC_RCL_LIBS, linked after it).
cc_rcl() {
	out=$1 src=$2
	shift 2
	$CC -std=gnu11 -O2 -Wall -Werror $SAN_CFLAGS -pthread \
		-I"$top_srcdir/liblock" -I"$top_srcdir/runtime" "$@" "$src" -o "$out" \
		-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lrcl ${CC_RCL_LIBS:-}
}

# registered_algorithms: sets $avail to the algorithms librcl registers,
# one per line (asked of the library itself, through a program built
# against it).
registered_algorithms() {
	cat >"$TMP/algos.c" <<'EOC'
#include <liblock.h>
#include <stdio.h>
int main(void)
{
	const char *const *a;

	for (a = liblock_algorithms(); *a; a++)
		puts(*a);
	return 0;
}
EOC
	cc_rcl "$TMP/algos" "$TMP/algos.c" || fail "cannot build against librcl"
	avail=$("$TMP/algos") || fail "liblock_algorithms() failed"
}
