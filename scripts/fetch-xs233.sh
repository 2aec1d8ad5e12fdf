#!/usr/bin/env bash
# Unpacks Thomas Pornin's c-xs233 (public domain; GF(2^233) and the xsb233 /
# xsk233 curves, ePrint 2022/1325) for peer-bench's `xs233` feature, the
# constant-time GF(2^233) reference of issue 24. The sources come from the
# crates.io package xs233-sys 0.2.0, which vendors them (checked against a
# pinned SHA-256); nothing of them is committed to this repository.
#
#   scripts/fetch-xs233.sh [DIR]     (default: target/xs233)
#
# then build peer-bench with `--features xs233` (XS233_DIR=DIR/c-xs233 when
# DIR is not the default).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/xs233}
if [ -f "$dir/c-xs233/gf233.h" ]; then
  echo "c-xs233 already in $dir/c-xs233"; exit 0
fi
url=https://static.crates.io/crates/xs233-sys/0.2.0/download
sha=c69193ec17ee413f676e700b6b98b795e0e87f1b36099bcc8e786efe552288c1
mkdir -p "$dir"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
curl -sSfL --retry 3 -o "$tmp" "$url"
echo "$sha  $tmp" | sha256sum -c --quiet -
tar -xzf "$tmp" -C "$dir" --strip-components=1 xs233-sys-0.2.0/c-xs233
echo "c-xs233 unpacked in $dir/c-xs233"
