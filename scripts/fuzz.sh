#!/usr/bin/env bash
# Coverage-guided fuzzing of one target with libFuzzer (libfuzzer-sys) on
# the stable toolchain: the instrumentation flags cargo-fuzz passes
# (SanitizerCoverage through -Cpasses=sancov-module, stable options), with
# debug assertions and overflow checks, without AddressSanitizer (that needs
# nightly's -Zsanitizer). Built in target/fuzz so that the normal build
# cache is untouched.
#
#   scripts/fuzz.sh TARGET [SECONDS] [libFuzzer options...]
#   scripts/fuzz.sh list
#
# New coverage goes to target/fuzz/corpus/TARGET (seeded from
# fuzz/corpus/TARGET, which stays small: merge by hand with -merge=1);
# a crash is written to target/fuzz/artifacts/TARGET/ — copy it to
# fuzz/regressions/TARGET/ so that `cargo test -p fieldwork-fuzz` replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-list}" = list ]; then
  sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v fieldwork-fuzz
  exit 0
fi
target=$1
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))

export CARGO_TARGET_DIR=target/fuzz
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
toolchain=()
# FUZZ_ASAN=1: AddressSanitizer too (out-of-bounds SIMD loads and stores in
# the unsafe kernels); needs a nightly toolchain (-Zsanitizer).
if [ "${FUZZ_ASAN:-0}" = 1 ]; then
  toolchain=(+nightly)
  export CARGO_TARGET_DIR=target/fuzz-asan
  RUSTFLAGS="$RUSTFLAGS -Zsanitizer=address"
fi
# --target: RUSTFLAGS then instrument the fuzzed code only, not build scripts.
triple=$(rustc -vV | sed -n 's/^host: //p')
cargo "${toolchain[@]}" build -q --release --target "$triple" -p fieldwork-fuzz --features libfuzzer --bin "$target"

work=target/fuzz/corpus/$target
artifacts=target/fuzz/artifacts/$target/
mkdir -p "$work" "$artifacts"
exec "$CARGO_TARGET_DIR/$triple/release/$target" "$work" "fuzz/corpus/$target" \
  -max_total_time="$seconds" -artifact_prefix="$artifacts" -print_final_stats=1 "$@"
