#!/usr/bin/env bash
# Alternates two builds of a timing example and prints the fastest run of
# each, in µs per iteration (wall clock): a quick A/B check between two
# variants of a kernel that peer-bench does not hold side by side (for
# example two comb tables, `KUMMER_COMB_W`). Figures for the docs come from
# peer-bench; this decides between variants.
#
#   scripts/ab-time.sh BIN_A BIN_B [ITERS] [ROUNDS]
#
# Each run's wall time includes the process start (about 3 ms on the Zen 3
# VM: 218 against 140 ns an iteration for a 140 ns call at 40 000
# iterations): differences between A and B hold, ratios are compressed
# unless ITERS makes the start small (the default, 300 000, leaves about
# 10 ns an iteration).
#   e.g. scripts/ab-time.sh /tmp/w6/kummer_keygen_one target/release/examples/kummer_keygen_one 50000 12
set -euo pipefail
a=$1 b=$2 n=${3:-300000} rounds=${4:-10}
best_a=inf best_b=inf
for _ in $(seq "$rounds"); do
  for which in a b; do
    bin=$a; [ "$which" = b ] && bin=$b
    s=$(date +%s%N); "$bin" "$n" > /dev/null; e=$(date +%s%N)
    t=$(awk -v s="$s" -v e="$e" -v n="$n" 'BEGIN { printf "%.4f", (e - s) / 1000 / n }')
    if [ "$which" = a ]; then
      best_a=$(awk -v x="$t" -v y="$best_a" 'BEGIN { print (y == "inf" || x < y) ? x : y }')
    else
      best_b=$(awk -v x="$t" -v y="$best_b" 'BEGIN { print (y == "inf" || x < y) ? x : y }')
    fi
  done
done
printf 'A %s us  B %s us  (fastest of %s runs each, %s iterations)\n' "$best_a" "$best_b" "$rounds" "$n"
