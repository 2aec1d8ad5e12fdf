#!/usr/bin/env bash
# ct-check: every secret-handling operation of fieldwork under valgrind
# memcheck with its secrets marked undefined (crates/ct-check), at each ISA
# level valgrind 3.19 can execute, then the deliberately leaky variants,
# which must all be reported; then the ymm backends (gf2x, gf2m, ghash, the
# AVX2 AES-GCM kernel), whose VPCLMULQDQ and VAES no valgrind executes, with
# those two instructions emulated by their 128-bit forms
# (crates/fieldwork/src/vex256.rs), and the ADX-stitched ChaCha20-Poly1305
# (valgrind runs adcx/adox but hides ADX from CPUID; the host must have
# ADX), under valgrind 3.24, which scripts/fetch-valgrind.sh fetches (the
# build feature valgrind-isa). Needs valgrind (apt-get install -y
# valgrind), apt-get and dpkg-deb.
#
#   scripts/ct-check.sh [FILTER]     e.g. scripts/ct-check.sh gcm
#
# CT_CHECK_BUILD (default `-p ct-check`) is the selection the plain binary
# is built with: CI passes `--workspace --all-targets`, whose features are
# those `cargo test --workspace` unified, so the library built for the
# tests is reused and only the binary is linked (a build with `-p ct-check`
# alone compiles the library again: about 90 s on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."

read -r -a build_sel <<<"${CT_CHECK_BUILD:--p ct-check}"
cargo build -q --release "${build_sel[@]}"
bin="${CARGO_TARGET_DIR:-target}/release/ct-check"
vg_opts=(-q --error-limit=no --suppressions=crates/ct-check/declassify.supp)
vg=(valgrind "${vg_opts[@]}")

# The three levels and the leaky self-test run side by side (valgrind runs
# a program on one core), their output printed in order.
. scripts/lib/background.sh
level_run() {
  # ct-check's own exit status counts the reports per operation;
  # --error-exitcode also fails the run on a report outside any operation.
  FIELDWORK_MAX_ISA=$1 "${vg[@]}" --error-exitcode=1 "$bin" "${@:2}"
}
leaky_run() { FIELDWORK_MAX_ISA=portable "${vg[@]}" "$bin" --leaky 2>/dev/null; }
status=0
for level in portable clmul avx2; do
  bg_start "$level" level_run "$level" "$@"
done
bg_start leaky leaky_run
for level in portable clmul avx2; do
  echo "--- FIELDWORK_MAX_ISA=$level"
  bg_finish "$level" || status=1
done
echo "--- self-test: the deliberately leaky variants must be reported"
bg_finish leaky || status=1

echo "--- FIELDWORK_MAX_ISA=avx2, VPCLMULQDQ and VAES emulated, ADX reported (valgrind 3.24)"
scripts/fetch-valgrind.sh
cargo build -q --release -p ct-check --features valgrind-isa
out=$(mktemp)
FIELDWORK_MAX_ISA=avx2 target/valgrind/bin/valgrind "${vg_opts[@]}" --error-exitcode=1 "$bin" "$@" | tee "$out" || status=1
# The tier must have reached the ymm backends, or it checked nothing new.
for b in gf2x=vpclmulqdq-ymm gf2m=vpclmulqdq-ymm ghash=vpclmulqdq-ymm gcm=vaes-avx2; do
  grep -q "backends in effect:.* $b" "$out" || { echo "ct-check: emulated tier did not reach $b"; status=1; }
done
# ADX (the stitched ChaCha20-Poly1305) where the host has it.
if grep -qw adx /proc/cpuinfo; then
  grep -q "features in effect:.* adx" "$out" || { echo "ct-check: emulated tier did not enable ADX"; status=1; }
fi
rm -f "$out"
FIELDWORK_MAX_ISA=avx2 target/valgrind/bin/valgrind "${vg_opts[@]}" "$bin" --leaky 2>/dev/null || status=1
# Leave the plain binary behind (dudect and later runs expect it).
cargo build -q --release "${build_sel[@]}"

exit $status
