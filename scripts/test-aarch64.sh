#!/usr/bin/env bash
# The library's test suite for AArch64, cross-built and run under qemu's
# user-mode emulation (there is no ARM hardware here: issue 59).
#
# Debian carries what is needed: rustc-web (rustc/cargo 1.96 with an
# aarch64 standard library, libstd-rust-web-dev:arm64), the cross linker and
# qemu-user. They install from the machine's configured apt sources, with
# arm64 added as a foreign architecture. rustc-web installs as the system
# /usr/bin/rustc and /usr/bin/cargo, which rustup's proxies shadow on PATH:
# they are called by path. qemu-aarch64 runs without -L: the multiarch
# libc6:arm64 puts the arm64 loader and libc at their native paths.
#
# What runs: the unit and integration tests (not the doc tests, which
# cargo does not cross-run; the C ABI and the Python extension are
# type-checked for the target (cargo check), not built or run) under `-cpu max` (NEON, AES+PMULL, SHA3, SVE2)
# at every FIELDWORK_MAX_ISA level of the aarch64 ladder with aarch64
# code (sve2, sha3, neon; the capped runs the integration tests alone) and uncapped on a real model (neoverse-n1, aes), the CPU report under three
# models, and scripts/ct-aarch64.py over the test binaries.
# Usage: scripts/test-aarch64.sh [MODEL:LEVEL...] (default: the runs in
# AARCH64_SUITE_RUNS).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
dpkg --print-foreign-architectures | grep -qx arm64 || need_arch=1
for p in rustc-web cargo-web libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ -n "${need_arch:-}" ] || [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  [ -n "${need_arch:-}" ] && dpkg --add-architecture arm64
  apt-get update -q
  apt-get install -y -q "${need[@]}"
fi

export RUSTC=/usr/bin/rustc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_AARCH64:-target/aarch64}"
# The aarch64 build has no warning (x86-only items are configured out or
# allowed dead there): keep it so.
export RUSTFLAGS="${RUSTFLAGS:-} -D warnings"
# No line tables in the cross builds (ct-aarch64.py reads symbols, not
# DWARF): less to compile and link.
export CARGO_PROFILE_RELEASE_DEBUG=false
target=aarch64-unknown-linux-gnu
cargo=(/usr/bin/cargo)
"${cargo[@]}" --version
"$RUSTC" --version

# The runs of the suite, MODEL:LEVEL (qemu's -cpu model, FIELDWORK_MAX_ISA
# or "unset"): every level of the ladder. Under `max` uncapped the level
# is sve2 (ChaCha20's `sve2` backend, sha3's code elsewhere); capped to
# sha3, the pmull-eor3 GHASH with the NEON ChaCha20; neoverse-n1 uncapped
# is the aes level on a real model (PMULL and AES, no SHA3; the tuning
# tables key N1 by its MIDR); neon keeps only the NEON backends. Dropped
# from CI to keep it within 45 minutes on a Zen 3 (pass them to run
# them): cortex-a53:unset, the aes level too, ran the same code as N1 but
# for N1's table entries (its CPU report is checked above); max:portable
# selects no aarch64 code: the portable backends run at every level above
# as the differential tests' reference, the cap to portable is checked
# above, and the x86-64 CI runs the portable level's suite. A capped run
# runs the integration tests only (the public API on the cap's default
# backends): the unit tests test every backend the CPU reports, each
# against the portable one, and a cap only removes backends, so an
# uncapped run on the same model already ran every unit test a capped
# one would (their cap-dependent parts compute the cap themselves); they
# were about 100 s of each capped run's 146–230 s.
AARCH64_SUITE_RUNS="${AARCH64_SUITE_RUNS:-max:unset max:sha3 neoverse-n1:unset max:neon}"
runs=("$@")
[ ${#runs[@]} -gt 0 ] || read -r -a runs <<<"$AARCH64_SUITE_RUNS"

# The CLI is built without optimisation: it only reports the CPU here,
# and a release build of it compiled the library a second time (the
# tests' dev-dependencies unify other features of shared crates, so
# the two builds of the library differ): ≈ 50 s against ≈ 3 min.
echo "==> [$(date -u +%H:%M:%S)] cross-build of the library's tests (release) and the CLI (debug) for $target"
"${cargo[@]}" build -q --target "$target" -p fieldwork-cli
"${cargo[@]}" test -q --release --target "$target" -p fieldwork-crypto --lib --tests --no-run
# No secret-dependent branch or address in the AArch64 kernels, read from
# the test binaries' machine code (valgrind cannot run them here; see
# scripts/ct-aarch64.py), after its self-test shows that it can fail.
# (On one core, beside the cargo checks below; its report is printed after them.)
echo "==> [$(date -u +%H:%M:%S)] ct-aarch64 over the test binaries (in the background)"
mapfile -t test_bins < <("${cargo[@]}" test -q --release --target "$target" -p fieldwork-crypto --lib --tests \
  --no-run --message-format=json | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p')
. scripts/lib/background.sh
bg_start ct-aarch64 python3 scripts/ct-aarch64.py --self-test "${test_bins[@]}"
# The C ABI (libgf2x.so.3 for NTL) and the Python extension (abi3: no
# target interpreter needed) must at least compile for the target: checked,
# not built (their code is the library's, built above; a release build of
# each took minutes of CI).
echo "==> [$(date -u +%H:%M:%S)] cargo check of the C ABI and the Python extension for $target"
"${cargo[@]}" check -q --release --target "$target" -p fieldwork-gf2x-abi
# (PYO3_BUILD_EXTENSION_MODULE, as maturin sets it: an extension does not
# link libpython.)
PYO3_BUILD_EXTENSION_MODULE=1 "${cargo[@]}" check -q --release --target "$target" --manifest-path crates/fieldwork-py/Cargo.toml

# Every level of the ladder is a valid cap, and the CLI reports what each
# CPU model has: max (everything), neoverse-n1 (NEON, AES+PMULL; no SHA3,
# no SVE2), cortex-a53 (NEON, AES+PMULL).
cli="$CARGO_TARGET_DIR/$target/debug/fieldwork"
for model in max neoverse-n1 cortex-a53; do
  echo "==> fieldwork cpu under qemu-aarch64 -cpu $model"
  qemu-aarch64 -cpu "$model" "$cli" cpu
done
for level in portable neon aes sha3 sve2; do
  got=$(FIELDWORK_MAX_ISA=$level qemu-aarch64 -cpu max "$cli" cpu | sed -n 's/^level in effect: //p')
  [ "$got" = "$level" ] || { echo "cap $level: level in effect is '$got'" >&2; exit 1; }
done
if FIELDWORK_MAX_ISA=avx2 qemu-aarch64 -cpu max "$cli" cpu >/dev/null 2>&1; then
  echo "an x86-64 level was accepted as an aarch64 cap" >&2
  exit 1
fi
got=$(qemu-aarch64 -cpu neoverse-n1 "$cli" cpu | sed -n 's/^level in effect: //p')
[ "$got" = aes ] || { echo "neoverse-n1: level in effect is '$got', expected aes" >&2; exit 1; }
# The core the tuning tables key by: MIDR_EL1, which qemu emulates per model.
for pair in "neoverse-n1:Arm part 0xd0c (Neoverse N1)" "cortex-a53:Arm part 0xd03 (Cortex-A53)"; do
  got=$(qemu-aarch64 -cpu "${pair%%:*}" "$cli" cpu | sed -n 's/^core: *//p')
  [ "$got" = "${pair#*:}" ] || { echo "${pair%%:*}: core is '$got'" >&2; exit 1; }
done

echo "==> ct-aarch64's report"
bg_finish ct-aarch64 || { echo "ct-aarch64 failed" >&2; exit 1; }

for run in "${runs[@]}"; do
  model=${run%%:*} level=${run#*:}
  echo "==> [$(date -u +%H:%M:%S)] tests under qemu-aarch64 -cpu $model, FIELDWORK_MAX_ISA=$level"
  export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -cpu $model"
  start=$SECONDS
  if [ "$level" = unset ]; then
    env -u FIELDWORK_MAX_ISA "${cargo[@]}" test -q --release --target "$target" -p fieldwork-crypto --lib --tests
  else
    # Capped: the integration tests only (see AARCH64_SUITE_RUNS above).
    FIELDWORK_MAX_ISA=$level "${cargo[@]}" test -q --release --target "$target" -p fieldwork-crypto --test integration
  fi
  echo "    ($((SECONDS - start)) s)"
done
echo "==> aarch64 tests passed ($SECONDS s in all)"
