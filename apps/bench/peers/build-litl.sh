#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds LiTL (Guiroux et al., USENIX ATC'16, github.com/multicore-locks/litl)
# for `rcl-bench compare`, from the user's checkout, into a build directory:
# LiTL's sources are never part of librcl.
#
# Usage: build-litl.sh LITL_DIR OUT_DIR LOCK...
#   LITL_DIR  a LiTL checkout, with its hash-table dependencies where its
#             Makefile clones them: LITL_DIR/obj/CLHT, obj/CLHT/ssmem and
#             obj/CLHT/sspfd (github.com/HugoGuiroux/{CLHT,ssmem,sspfd})
#   OUT_DIR   receives OUT_DIR/libLOCK.so for each LOCK (LiTL's names:
#             mcs_spinlock, mcs_spin_then_park, ticket_original, ...)
#
# The sources are copied to OUT_DIR and two things are patched in the copy,
# both needed on glibc 2.34 and later:
#  - utils.h defines a static gettid(), which glibc now declares;
#  - interpose.map exports pthread_create in version GLIBC_2.2.5 only,
#    while programs linked against glibc 2.34+ ask for GLIBC_2.34: the
#    dynamic linker then skips LiTL's wrapper, threads never get LiTL's
#    per-thread id and its MCS and CLH hang with two threads.
set -eu

[ $# -ge 3 ] || {
	echo "usage: build-litl.sh LITL_DIR OUT_DIR LOCK..." >&2
	exit 2
}
src=$1
out=$2
shift 2
for f in src/interpose.c src/utils.h src/interpose.map include/topology.in \
	obj/CLHT/Makefile obj/CLHT/ssmem/Makefile obj/CLHT/sspfd/Makefile; do
	[ -f "$src/$f" ] || {
		echo "build-litl.sh: $src/$f: missing (a LiTL checkout with" \
			"obj/CLHT, obj/CLHT/ssmem and obj/CLHT/sspfd cloned" \
			"into it, as its Makefile does)" >&2
		exit 1
	}
done
for lock in "$@"; do
	case $lock in
	*[!a-z_]* | "" | *_*_*_*_*)
		echo "build-litl.sh: bad lock name '$lock'" >&2
		exit 2
		;;
	esac
	algo=${lock%%_*}
	[ -f "$src/src/$algo.c" ] || {
		echo "build-litl.sh: no algorithm '$algo' in $src/src" >&2
		exit 1
	}
done

mkdir -p "$out"
log=$out/build.log
: >"$log"
trap 'echo "build-litl.sh: failed, see $log" >&2' EXIT

# A fresh copy each time: the patches are applied to the copy only.
rm -rf "$out/src" "$out/include" "$out/CLHT"
cp -R "$src/src" "$src/include" "$out/"
cp -R "$src/obj/CLHT" "$out/CLHT"
sed -i 's/static inline int gettid()/static inline int litl_gettid(void)/' \
	"$out/src/utils.h"
printf '\nGLIBC_2.34 {\n   global:\n      pthread_create;\n} GLIBC_2.3.2;\n' \
	>>"$out/src/interpose.map"
sed -i '/^GLIBC_2.2.5 {/,/^}/{/^ *pthread_create;/d}' "$out/src/interpose.map"

# include/topology.h, as LiTL's Makefile writes it
nodes=$(numactl -H 2>/dev/null | head -1 | cut -f 2 -d' ')
case $nodes in '' | *[!0-9]*) nodes=1 ;; esac
mhz=$(awk '/MHz/ { printf("%0.2g", $4 / 1000); exit }' /proc/cpuinfo)
sed -e "s/@nodes@/$nodes/g" -e "s/@cpus@/$(nproc)/g" \
	-e "s/@cachelinesize@/128/g" -e "s/@pagesize@/$(getconf PAGESIZE)/g" \
	-e "s#@cpufreq@#${mhz:-2}#g" "$out/include/topology.in" \
	>"$out/include/topology.h"

# its hash table and that table's allocator, as LiTL's Makefile builds them
mkdir -p "$out/CLHT/external/lib" "$out/CLHT/external/include"
sed -i 's/^CFLAGS = -O3 -Wall$/CFLAGS = -O3 -Wall -fPIC/' \
	"$out/CLHT/sspfd/Makefile"
(
	cd "$out/CLHT/ssmem" && make -s libssmem.a &&
		cp libssmem.a ../external/lib/ &&
		cp include/ssmem.h ../external/include/
	cd ../sspfd && make -s libsspfd.a && cp libsspfd.a ../external/lib/ &&
		cp sspfd.h ../external/include/
	cd .. && rm -f libclht.a && make -s libclht_lb_res.a
) >>"$log" 2>&1

cc=${CC:-cc}
for lock in "$@"; do
	algo=${lock%%_*}
	policy=$(echo "${lock#*_}" | tr '[:lower:]' '[:upper:]')
	ALGO=$(echo "$algo" | tr '[:lower:]' '[:upper:]')
	obj=$out/obj/$lock
	mkdir -p "$obj"
	for f in interpose utils "$algo"; do
		# LiTL's own flags (src/Makefile), less -Werror
		$cc -I"$out/include" -I"$out/CLHT/include" \
			-I"$out/CLHT/external/include" -fPIC -Wall -O3 -g \
			-D"$ALGO" -DCOND_VAR=1 -DFCT_LINK_SUFFIX="$algo" \
			-DWAITING_"$policy" -o "$obj/$f.o" -c "$out/src/$f.c" \
			>>"$log" 2>&1
	done
	$cc -shared -o "$out/lib$lock.so" "$obj/interpose.o" "$obj/utils.o" \
		"$obj/$algo.o" -L"$out/CLHT/external/lib" -L"$out/CLHT" \
		-Wl,--whole-archive -Wl,--version-script="$out/src/interpose.map" \
		-lsspfd -lssmem -lclht -Wl,--no-whole-archive -lrt -lm -ldl \
		-lpapi -pthread >>"$log" 2>&1
done
trap - EXIT
