#!/usr/bin/env bash
# Fetches Debian trixie's valgrind (3.24) into target/valgrind/ without
# installing it, for ct-check's emulated ymm tier (scripts/ct-check.sh).
# Debian 12's valgrind 3.19 stops at `vmovq xmm, xmm` in its 66 0F D6
# register form, which LLVM emits in the ymm kernels; 3.24 executes it.
# The package is fetched by apt (signatures checked against the keyring the
# configured source names, else debian-archive-keyring) from a throwaway
# source list: suite trixie on the Debian archive this machine's own apt
# sources point at (scripts/lib/apt-sources.sh), with its own lists and
# cache, so nothing on the system changes.
# Its launcher needs glibc 2.34, its tools are static.
#
#   scripts/fetch-valgrind.sh        then target/valgrind/bin/valgrind ...
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source-path=SCRIPTDIR source=lib/apt-sources.sh
. scripts/lib/apt-sources.sh

dest=target/valgrind
if [ -x "$dest/bin/valgrind" ]; then
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
apt_sources_opts "$tmp"
apt_sources_debian_archive trixie main > "$tmp/sources.list.d/trixie.sources"
apt-get "${apt_opts[@]}" -q update > /dev/null
(cd "$tmp" && apt-get "${apt_opts[@]}" -q download valgrind > /dev/null)

rm -rf "$dest.tmp"
mkdir -p "$dest.tmp/root"
dpkg-deb -x "$tmp"/valgrind_*_amd64.deb "$dest.tmp/root"
mkdir -p "$dest.tmp/bin"
# The package's /usr/bin/valgrind is a wrapper script for Debian's debug
# paths; call the launcher with the tools' directory instead.
cat > "$dest.tmp/bin/valgrind" <<'EOF'
#!/bin/sh
here=$(cd "$(dirname "$0")/.." && pwd)
VALGRIND_LIB="$here/root/usr/libexec/valgrind" exec "$here/root/usr/bin/valgrind.bin" "$@"
EOF
chmod +x "$dest.tmp/bin/valgrind"
"$dest.tmp/bin/valgrind" --version
mv "$dest.tmp" "$dest"
