#!/bin/sh
# SPDX-License-Identifier: MIT
# The launcher generated in the build tree finds the driver, the semantic
# patches and <liblock.h> in the source tree by itself (no
# RCL_REFACTOR_DATADIR, nothing installed); RCL_REFACTOR_DATADIR still
# overrides, and a wrong one is a clear error.
. "$(dirname "$0")/common.sh"
unset RCL_REFACTOR_DATADIR RCL_CFLAGS PYTHONPATH
cd "$TMP" || exit 1
[ -x "$RCLR" ] || fail "$RCLR not built"
"$RCLR" --help >log 2>&1 || { cat log; fail "--help"; }
grep -q "^usage: rcl-refactor" log || { cat log; fail "--help output"; }
cat >c.c <<'EOC'
#include <pthread.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long n;
long bump(void)
{
	long v;
	pthread_mutex_lock(&mu);
	v = ++n;
	pthread_mutex_unlock(&mu);
	return v;
}
EOC
# From another directory, as the apps pipeline runs it.
mkdir -p elsewhere
(cd elsewhere && "$RCLR" -o ../out ../c.c) >log 2>&1 ||
	{ cat log; fail "run without RCL_REFACTOR_DATADIR"; }
grep -q "1 section(s) found, 1 delegated" log || { cat log; fail "summary"; }
grep -q "liblock_exec(&mu" out/c.c || fail "section not converted"
[ -f out/rcl-config.h ] || fail "no rcl-config.h"

# Every module of the driver is installed (and distributed): an
# installed rcl-refactor must not miss one the source tree has.
for py in "$top_srcdir"/cocci/rcl_refactor/*.py; do
	grep -q "rcl_refactor/$(basename "$py")" "$top_srcdir/cocci/Makefile.am" ||
		fail "cocci/Makefile.am does not install $(basename "$py")"
done

# Through a symbolic link (a bin/ of links to the build tree).
ln -s "$RCLR" rclr-link
./rclr-link --help >log 2>&1 || { cat log; fail "--help through a link"; }

# The override: a copy of the driver elsewhere is used (it says so).
mkdir -p dd && cp -R "$top_srcdir/cocci/rcl_refactor" "$top_srcdir"/cocci/*.cocci dd/
chmod -R u+w dd
echo 'import sys; sys.stderr.write("t_launcher: the copy\\n")' \
	>>dd/rcl_refactor/__init__.py
RCL_REFACTOR_DATADIR="$TMP/dd" "$RCLR" -o out2 c.c >log 2>&1 ||
	{ cat log; fail "run with RCL_REFACTOR_DATADIR"; }
grep -q "liblock_exec(&mu" out2/c.c || fail "override: not converted"
grep -q "t_launcher: the copy" log || { cat log; fail "override not used"; }
# A wrong override names the directory and fails.
RCL_REFACTOR_DATADIR="$TMP/nowhere" "$RCLR" --help >log 2>&1 &&
	fail "a wrong RCL_REFACTOR_DATADIR was accepted"
grep -q "$TMP/nowhere" log || { cat log; fail "error does not name it"; }
echo "ok launcher"
