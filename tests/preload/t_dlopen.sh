#!/bin/sh
# SPDX-License-Identifier: MIT
# librcl.so loaded with dlopen() after start-up: its initial-exec
# thread-local data (LL_TLS_FAST, for rcl-run's fast path) must still load,
# and its locks must work from several threads.
. "$(dirname "$0")/lib.sh"

lib=$top_builddir/runtime/.libs/librcl.so.0
if [ ! -e "$lib" ]; then
	echo "SKIP: no $lib (not a shared libtool build)"
	exit 77
fi
# The case this test is about: the library asks for static TLS.
if command -v readelf >/dev/null 2>&1; then
	if ! readelf -d "$lib" | grep -q STATIC_TLS; then
		echo "SKIP: $lib does not use static TLS"
		exit 77
	fi
fi
timeout -k 5 60 ./preload/pt_dlopen "$lib" || fail "pt_dlopen $lib"
