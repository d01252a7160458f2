#!/bin/sh
# SPDX-License-Identifier: MIT
# `make check-preload-real`: a real Debian program's own multithreaded test
# suite under rcl-run.  Fetches libuv1 with `apt-get source` (needs a
# deb-src line), builds its test runner, runs the whole suite (410 tests:
# thread pool, mutexes incl. recursive, condvars with CLOCK_MONOTONIC,
# barriers, semaphores, fork, ...) once directly and once per algorithm.
# An algorithm passes when it fails no test that passes without rcl-run
# (some tests need a network and fail either way) and its report shows
# that mutexes really went through the interposer.
#
#   RCL_REAL_ALGOS   algorithms (default: a mix of parking, spinning, FIFO,
#                    queue, no-trylock, hierarchical and load-control ones)
#   RCL_REAL_DIR     work directory (default: $abs_top_builddir/preload-real)
# The source is fetched into the work directory, never into the tree.
set -u
: "${abs_top_builddir:?run through make check-preload-real}"
RCL_RUN=$abs_top_builddir/liblock/interpose/rcl-run
DIR=${RCL_REAL_DIR:-$abs_top_builddir/preload-real}
ALGOS=${RCL_REAL_ALGOS:-posix spinlock ticket mcs clh mutexee hmcs malthusian_stp}
PKG=libuv1

die() {
	echo "check-preload-real: $*" >&2
	exit 1
}

mkdir -p "$DIR" && cd "$DIR" || die "cannot use $DIR"
src=$(ls -d "$PKG"-*/ 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	apt-get source -q "$PKG" >fetch.log 2>&1 ||
		die "apt-get source $PKG failed (see $DIR/fetch.log; a deb-src line for bookworm main is needed)"
	src=$(ls -d "$PKG"-*/ | head -n 1)
fi
src=${src%/}
if [ ! -x build/uv_run_tests_a ]; then
	echo "building $src's test runner (a few minutes)"
	cmake -S "$src" -B build -DLIBUV_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release \
		>cmake.log 2>&1 || die "cmake failed (see $DIR/cmake.log)"
	make -C build -j2 uv_run_tests_a >build.log 2>&1 ||
		die "build failed (see $DIR/build.log)"
fi

# The libuv runner refuses to run as root: drop to nobody if we are root.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		chmod -R a+rwX "$DIR"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}

# run NAME [rcl-run args]: the suite; writes NAME.log, prints failures.
run() {
	name=$1
	shift
	(cd "$src" && as_user timeout 900 "$@" ../build/uv_run_tests_a) \
		>"$name.log" 2>&1
	sed -n 's/^not ok [0-9]* - //p' "$name.log" | sort
}

base=$(run direct)
total=$(grep -c '^\(not \)\{0,1\}ok ' direct.log)
echo "direct: $total tests, failing without rcl-run:" ${base:-none}
[ "$total" -gt 100 ] || die "the suite did not run (see $DIR/direct.log)"
status=0
for a in $ALGOS; do
	rm -f "$a.report"
	t0=$(date +%s)
	fails=$(run "$a" "$RCL_RUN" --lock "$a" --report "$DIR/$a.report" --)
	secs=$(($(date +%s) - t0))
	new=$(printf '%s\n' "$fails" | grep -vxF -e "$base" || true)
	[ -n "$base" ] || new=$fails
	# mutexes the interposer saw: with a record, or thin (never found
	# held: still glibc's word, see docs/RCL-RUN.md)
	mutexes=$(awk '{ for (i = 1; i <= NF; i++) if (sub(/^(mutexes|thin)=/, "", $i)) s += $i }
		END { print s + 0 }' "$a.report" 2>/dev/null)
	n=$(grep -c '^\(not \)\{0,1\}ok ' "$a.log")
	if [ -n "$new" ] || [ "$n" -ne "$total" ] || [ "${mutexes:-0}" -eq 0 ]; then
		echo "FAIL $a: $n tests, $mutexes mutexes (${secs}s), new failures:" ${new:-none}
		status=1
	else
		echo "ok   $a: $n tests, no new failure, $mutexes mutexes seen in $(wc -l <"$a.report") processes (${secs}s)"
	fi
done
exit $status
