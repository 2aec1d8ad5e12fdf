#!/usr/bin/env bash
# Regenerates every generated benchmark page of this CPU in one go, in the
# order a session needs them: the page (docs/benchmarks/<cpu>.md), its
# avx2-capped twin where the CPU has AVX-512, the ChaCha20-Poly1305 sweeps
# (native and capped) and the Poly1305 sweep, each with `--passes 3`
# (docs/benchmarks/README.md says what each one is). <cpu> is the slug
# `peer-bench --cpu-slug` prints.
#
#   scripts/cpu-pages.sh [STEP...]
#
# STEP is any of `page`, `capped`, `chachapoly`, `chachapoly-capped`,
# `poly1305`, `isa-rates` (the last prints `peer-bench --isa-rates` to
# target/isa-rates-<cpu>.md: the inputs of the kernels' floor analyses,
# not a page); no STEP runs the five page steps. Capped steps are
# skipped on a CPU without AVX-512 (there the page is already the avx2
# tier). About 20 minutes on a 2-vCPU VM for the five.
#
# A page records the commit it measured, and `-dirty` if tracked files
# other than the generated pages differ from it, so the script refuses to
# start with modified tracked files (`ALLOW_DIRTY=1` to measure them
# anyway), and nothing should edit the tree while it runs. It needs the system peers (README: the apt-get
# line; scripts/build-gf2x-native.sh for the CPU-built gf2x) and
# `scripts/fetch-xs233.sh` (c-xs233, the `xs233` feature; without it the
# pages lack that column and the script says so). Commit the pages
# afterwards with the commit they name checked out, after
# `scripts/page-diff.py` against the committed ones.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  steps=(page capped chachapoly chachapoly-capped poly1305)
fi
for s in "${steps[@]}"; do
  case $s in
    page | capped | chachapoly | chachapoly-capped | poly1305 | isa-rates) ;;
    *)
      echo "unknown step '$s' (page, capped, chachapoly, chachapoly-capped, poly1305, isa-rates)" >&2
      exit 2
      ;;
  esac
done

if [ -n "$(git status --porcelain --untracked-files=no -- ':(top)' \
  ':(top,exclude)docs/benchmarks' ':(top,exclude)docs/reproduce')" ] &&
  [ "${ALLOW_DIRTY:-0}" != 1 ]; then
  echo "tracked files are modified: the pages would record a -dirty commit." >&2
  echo "Commit first, or set ALLOW_DIRTY=1." >&2
  exit 1
fi

features=system-peers
if [ -f target/xs233/c-xs233/gf233.h ] || [ -n "${XS233_DIR:-}" ]; then
  features=$features,xs233
else
  echo "note: c-xs233 not unpacked (scripts/fetch-xs233.sh): pages without its column" >&2
fi
if [ ! -f /opt/gf2x-native/lib/libgf2x.a ] && [ -z "${GF2X_DIR:-}" ]; then
  echo "note: no CPU-built gf2x in /opt/gf2x-native (scripts/build-gf2x-native.sh):" >&2
  echo "      the 'gf2x native' columns will be the system's generic build" >&2
fi

cargo build --release -p fieldwork-gf2x-abi
cargo build --release -p peer-bench --features "$features"
pb=target/release/peer-bench
slug=$("$pb" --cpu-slug)
avx512=0
if grep -qw avx512f /proc/cpuinfo; then
  avx512=1
fi
echo "CPU: $slug (commit $(git rev-parse --short HEAD); AVX-512: $avx512)"

run() {
  local name=$1
  shift
  local start
  start=$(date +%s)
  echo "==> $name: $*"
  "$@" > /dev/null
  echo "==> $name: $(($(date +%s) - start)) s"
}

for s in "${steps[@]}"; do
  case $s in
    page)
      run page "$pb" --out-dir docs/benchmarks --passes 3
      ;;
    capped)
      if [ $avx512 = 1 ]; then
        run capped env FIELDWORK_MAX_ISA=avx2 "$pb" --out-dir docs/benchmarks --passes 3
      else
        echo "==> capped: skipped (no AVX-512: the page is the avx2 tier)"
      fi
      ;;
    chachapoly)
      run chachapoly "$pb" --chachapoly-sweep "docs/benchmarks/chachapoly-sweep-$slug.csv" --passes 3
      ;;
    chachapoly-capped)
      if [ $avx512 = 1 ]; then
        run chachapoly-capped env FIELDWORK_MAX_ISA=avx2 "$pb" \
          --chachapoly-sweep "docs/benchmarks/chachapoly-sweep-$slug-max-avx2.csv" --passes 3
      else
        echo "==> chachapoly-capped: skipped (no AVX-512)"
      fi
      ;;
    poly1305)
      run poly1305 "$pb" --poly1305-sweep "docs/benchmarks/poly1305-sweep-$slug.csv" --passes 3
      ;;
    isa-rates)
      run isa-rates sh -c "\"$pb\" --isa-rates > target/isa-rates-$slug.md"
      ;;
  esac
done
git status --short docs/benchmarks
