#!/usr/bin/env bash
# Unpacks Thomas Pornin's c-xs233 (public domain; GF(2^233) and the xsb233 /
# xsk233 curves, ePrint 2022/1325) for peer-bench's `xs233` feature, the
# constant-time GF(2^233) reference of issue 24. The sources come from the
# crate xs233-sys 0.2.0, which vendors them; nothing of them is committed to
# this repository.
#
# The crate is fetched by cargo itself (`cargo vendor` of a throwaway
# manifest that depends on it, nothing built), so it comes from whatever
# registry or mirror this machine's cargo configuration names, and cargo
# checks the downloaded .crate against the registry index's checksum. That
# checksum, as the throwaway Cargo.lock records it, must also equal the
# SHA-256 pinned below.
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
crate=xs233-sys
version=0.2.0
sha=c69193ec17ee413f676e700b6b98b795e0e87f1b36099bcc8e786efe552288c1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/proj/src"
cat > "$tmp/proj/Cargo.toml" <<EOF
[package]
name = "fieldwork-fetch-xs233"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$crate = "=$version"

[workspace]
EOF
: > "$tmp/proj/src/lib.rs"
# Run from the repository so that its (and its parents') .cargo/config.toml
# apply as well as $CARGO_HOME's; --respect-source-config makes vendor use
# the configured source replacement (a mirror) instead of the default.
(cd "$root" && cargo vendor --quiet --respect-source-config \
  --manifest-path "$tmp/proj/Cargo.toml" "$tmp/vendor" > /dev/null)

got=$(awk -v name="$crate" -v ver="$version" '
  /^\[\[package\]\]/ { n = ""; v = "" }
  /^name = /     { n = $3; gsub(/"/, "", n) }
  /^version = /  { v = $3; gsub(/"/, "", v) }
  /^checksum = / { c = $3; gsub(/"/, "", c); if (n == name && v == ver) print c }
' "$tmp/proj/Cargo.lock")
if [ "$got" != "$sha" ]; then
  echo "$crate $version: checksum ${got:-missing} in Cargo.lock, expected $sha" >&2
  exit 1
fi
src=$tmp/vendor/$crate
[ -d "$src" ] || src=$tmp/vendor/$crate-$version
if [ ! -f "$src/c-xs233/gf233.h" ]; then
  echo "$crate $version: no c-xs233/gf233.h in the vendored crate" >&2
  exit 1
fi

mkdir -p "$dir"
rm -rf "$dir/c-xs233.tmp"
cp -R "$src/c-xs233" "$dir/c-xs233.tmp"
rm -rf "$dir/c-xs233"
mv "$dir/c-xs233.tmp" "$dir/c-xs233"
echo "c-xs233 unpacked in $dir/c-xs233"
