# SPDX-License-Identifier: MIT
# Sourced by the preload tests (run from the build's tests/ directory).
set -u
: "${top_builddir:=..}"
RCL_RUN=$top_builddir/liblock/interpose/rcl-run
PT_WORK=./preload/pt_work
PT_PROC=./preload/pt_proc
PT_AFORK=./preload/pt_afork
# Sanitizer builds: once librclrun.so is preloaded, the ASan runtime is no
# longer first in the library list; that is expected here.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS
# The type tests misuse mutexes on purpose (unlock by a non-owner, relock
# of an error-checking mutex) to check the error codes; the fork test
# starts threads in the child of a multithreaded process on purpose.
TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}report_mutex_bugs=0:report_destroy_locked=0:die_after_fork=0"
export TSAN_OPTIONS
# Child processes must not inherit a preload from the harness.
unset LIBLOCK_LOCK RCL_RUN_REPORT RCL_RUN_PRELOAD
TMP=$(mktemp -d) || exit 99
trap 'rm -rf "$TMP"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# under ALGO SECONDS CMD [ARGS]: run CMD under rcl-run, killed after SECONDS.
under() {
	_algo=$1 _secs=$2
	shift 2
	timeout -k 5 "$_secs" "$RCL_RUN" --lock "$_algo" -- "$@"
}

# The algorithms rcl-run accepts, one per line.
algos() {
	"$RCL_RUN" --list | awk '{ print $1 }'
}

# report_field FILE NAME: NAME's value on the last line of a report.
report_field() {
	tail -n 1 "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
