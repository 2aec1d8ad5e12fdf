#!/usr/bin/env bash
# Builds gf2x (1.3.0 in Debian 12 and 13) from Debian's source package for
# this CPU into /opt/gf2x-native (static library), for peer-bench's
# `system-peers` feature. Debian's libgf2x-dev is a generic build without
# PCLMULQDQ; this one uses gf2x's x86_64_pclmul tuning. Run as root. Takes a
# few minutes on 2 cores.
#
# The source package is fetched by apt (signatures and hashes checked) from
# a throwaway source list: a deb-src twin of each `deb` source this
# machine's apt is configured with (same archive or mirror, suites,
# components and Signed-By; scripts/lib/apt-sources.sh), with its own lists
# and cache, so the system's sources, lists and cache stay as they were.
#
#   scripts/build-gf2x-native.sh [PREFIX]     (default: /opt/gf2x-native)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/apt-sources.sh
. "$here/lib/apt-sources.sh"
prefix=${1:-/opt/gf2x-native}
if [ -f "$prefix/lib/libgf2x.a" ]; then
  echo "gf2x already built in $prefix"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apt_sources_opts "$work/apt"
apt_sources_deb_src > "$work/apt/sources.list.d/deb-src.sources"
if [ ! -s "$work/apt/sources.list.d/deb-src.sources" ]; then
  echo "no deb source configured in apt to take a deb-src from" >&2
  exit 1
fi
apt-get "${apt_opts[@]}" -q update > /dev/null
cd "$work"
apt-get "${apt_opts[@]}" -q source --download-only gf2x > /dev/null
orig=$(echo gf2x_*.orig.tar.*)
version=${orig#gf2x_}
version=${version%.orig.tar.*}
tar xf "$orig"
cd "$(tar tf "$orig" | awk -F/ 'NR == 1 { print $1 }')"
./configure --prefix="$prefix" --disable-shared CFLAGS="-O3 -march=native" >/dev/null
make -j2 >/dev/null
make install >/dev/null
echo "gf2x $version built in $prefix"
