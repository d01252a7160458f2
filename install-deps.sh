#!/bin/sh
# Installs every Debian package librcl needs to build, test and run its
# demos.  Idempotent; run as root on Debian bookworm (or with sudo).
# --corpus: also the build dependencies of the applications of
# `make check-corpus` (apps/harness/apps.py's recipes).
set -eu

# liburcu-dev: userspace RCU's headers, which rcl-refactor's golden test of
# a section reading under RCU includes (tests/cocci/golden/rcu_ok.c).
PACKAGES="
  build-essential autoconf automake libtool pkg-config
  check libsubunit-dev
  libnuma-dev numactl
  libpapi-dev papi-tools
  libdw-dev
  coccinelle python3 python3-clang-16 libclang-16-dev bear
  liburcu-dev
  clang-format
  gnuplot-nox
  libevent-dev
  dpkg-dev
  libsasl2-dev libio-socket-ssl-perl
  cmake liblz4-dev libzstd-dev libsnappy-dev zlib1g-dev
"

case "${1:-}" in
--corpus)
	PACKAGES="$PACKAGES $(python3 "$(dirname "$0")/apps/harness/harness.py" \
		--list-deps)" || exit 1 ;;
"") ;;
*)
	echo "install-deps.sh: unknown option '$1' (usage: install-deps.sh [--corpus])" >&2
	exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo "$0" "$@"
	fi
	echo "install-deps.sh: must run as root (apt-get install)" >&2
	exit 1
fi

# The harnesses (make check-memcached, ...) fetch Debian sources with
# `apt-get source`: that needs a deb-src entry for bookworm.
SRCLIST=/etc/apt/sources.list.d/librcl-deb-src.sources
if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list \
	/etc/apt/sources.list.d/; then
	printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' \
		'Suites: bookworm' 'Components: main' \
		'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
		>"$SRCLIST"
	echo "install-deps.sh: added $SRCLIST (for apt-get source)"
	need_update=1
fi

missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ -z "${need_update:-}" ] || apt-get update -qq
	echo "install-deps.sh: all packages already installed"
	exit 0
fi
echo "install-deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
