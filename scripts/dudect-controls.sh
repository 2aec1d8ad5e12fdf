#!/usr/bin/env bash
# The dudect protocol that tells a leak in the code from the core's power
# channel (SECURITY.md, "Controls for the long-message failures"): each
# long-message entry with the fixed class and with `--same-weight`, then
# the controls, for fixed seeds 1 and 2; one line per run. About 4 minutes
# on a Zen 3 at 10^6 measurements. Run it on a quiet machine.
#
#   scripts/dudect-controls.sh [MEASUREMENTS]
set -euo pipefail
n=${1:-1000000}
cargo build -q --release -p ct-check --bin dudect
bin=target/release/dudect
grep -m1 "model name" /proc/cpuinfo || true
grep -m1 "cpu family" /proc/cpuinfo || true
grep -m1 "^model" /proc/cpuinfo || true
entries=(poly1305/mac-4096 chachapoly/seal-1420 chachapoly/seal-4096 gcm/aes128-seal-4096 ghash/ghash-1420)
for seed in 1 2; do
  for mode in "" --same-weight; do
    for e in "${entries[@]}"; do
      printf 'seed %s %-13s' "$seed" "${mode:-fixed}"
      # A failing entry is a result here, not an error.
      DUDECT_FIXED_SEED=$seed "$bin" --n "$n" $mode "$e" | tail -n 1 || true
    done
    printf 'seed %s %-13s portable:' "$seed" "${mode:-fixed}"
    DUDECT_FIXED_SEED=$seed FIELDWORK_MAX_ISA=portable "$bin" --n "$n" $mode poly1305/mac-4096 | tail -n 1 || true
    echo "seed $seed ${mode:-fixed} controls:"
    DUDECT_FIXED_SEED=$seed "$bin" --n "$n" --controls $mode | tail -n +2 || true
  done
done
