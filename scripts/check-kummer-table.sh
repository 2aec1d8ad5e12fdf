#!/usr/bin/env bash
# Regenerates the Kummer fixed-base table with scripts/kummer_fixed_base/derive.py
# into a temporary file, formats it as the committed file is formatted
# (rustfmt, edition 2024) and compares it with
# crates/fieldwork/src/kummer/fixed_base_table.rs: exit 0 when they are
# identical, 1 (with the start of the diff) when they differ.
#
#   scripts/check-kummer-table.sh
#
# Needs python3 (standard library only: derive.py computes everything with
# Python integers, its random draws seeded) and rustfmt. derive.py takes
# about 45 s of one core: it re-derives the curve, the map to the surface
# and the base point's preimage, checks them and a comb over the new table
# against its own Kummer ladder, then prints the table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
committed=$root/crates/fieldwork/src/kummer/fixed_base_table.rs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$SECONDS
# KUMMER_COMB_W changes the table derive.py writes; the committed one is W = 7.
env -u KUMMER_COMB_W python3 "$root/scripts/kummer_fixed_base/derive.py" \
  > "$tmp/fixed_base_table.rs" 2> "$tmp/derive.log" || {
  cat "$tmp/derive.log" >&2
  echo "check-kummer-table: derive.py failed" >&2
  exit 1
}
rustfmt --edition 2024 "$tmp/fixed_base_table.rs"
if ! diff -u "$committed" "$tmp/fixed_base_table.rs" > "$tmp/diff"; then
  head -n 40 "$tmp/diff" >&2
  echo "check-kummer-table: $committed differs from derive.py's output" \
    "($(grep -c '^[-+][^-+]' "$tmp/diff") lines)" >&2
  exit 1
fi
echo "check-kummer-table: fixed_base_table.rs is derive.py's output ($((SECONDS - start)) s)"
