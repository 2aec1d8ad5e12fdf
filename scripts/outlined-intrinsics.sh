#!/usr/bin/env bash
# Fails if the binary BIN calls a SIMD intrinsic compiled out of line from
# any function but a peer's: a closure (or helper, or a generic of core such
# as `array::from_fn` instantiated for a kernel) that LLVM did not inline
# into a kernel loses the kernel's target features, and its intrinsics
# become calls to `core::core_arch::...` functions — the AES-GCM kernel ran
# 4× slower so in one peer-bench build (docs/ARCHITECTURE.md, "Closures in
# kernels"). The CPU detection's `_xgetbv` is expected. Callers whose
# demangled name starts with a crate in PEERS (an extended regex; default
# none) are listed, not failed: RustCrypto's poly1305 and peer-bench's own
# harness have such calls.
# Usage: scripts/outlined-intrinsics.sh BIN [PEERS]
#   e.g. scripts/outlined-intrinsics.sh target/release/fieldwork
#        scripts/outlined-intrinsics.sh target/release/peer-bench 'poly1305|peer_bench'
set -euo pipefail
bin=$1
peers=${2:-}
callers=$(objdump -d --no-show-raw-insn -C "$bin" |
  awk '/^[0-9a-f]+ <.*>:$/ { fn = $0 } /call.*core::core_arch::/ && !/_xgetbv/ { print fn }' |
  sort | uniq -c)
if [ -n "$callers" ]; then
  echo "functions calling an outlined intrinsic in $bin:"
  echo "$callers"
fi
failing=$callers
if [ -n "$peers" ]; then
  failing=$(grep -v -E -- "<<*($peers)::" <<<"$callers" || true)
fi
if [ -n "$failing" ]; then
  echo "outlined intrinsics called from code that is not a listed peer's:" >&2
  echo "$failing" >&2
  exit 1
fi
echo "no outlined intrinsic called in $bin${peers:+ outside the peers ($peers)}"
