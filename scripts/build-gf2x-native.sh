#!/usr/bin/env bash
# Builds gf2x 1.3.0 from Debian's source package for this CPU into
# /opt/gf2x-native (static library), for peer-bench's `system-peers` feature.
# Debian's libgf2x-dev is a generic build without PCLMULQDQ; this one uses
# gf2x's x86_64_pclmul tuning. Run as root. Takes a few minutes on 2 cores.
set -euo pipefail
prefix=${1:-/opt/gf2x-native}
if [ -f "$prefix/lib/libgf2x.a" ]; then
  echo "gf2x already built in $prefix"; exit 0
fi
src_list=/etc/apt/sources.list.d/fieldwork-deb-src.sources
if [ ! -f "$src_list" ]; then
  cat > "$src_list" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
apt-get update -q
work=$(mktemp -d)
cd "$work"
apt-get source --download-only gf2x
tar xzf gf2x_1.3.0.orig.tar.gz
cd gf2x-1.3.0
./configure --prefix="$prefix" --disable-shared CFLAGS="-O3 -march=native" >/dev/null
make -j2 >/dev/null
make install >/dev/null
echo "gf2x built in $prefix"
