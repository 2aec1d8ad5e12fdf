#!/usr/bin/env bash
# Fails if a function of fieldwork's calls a SIMD intrinsic compiled out of
# line in the binary BIN: a closure (or helper) LLVM did not inline into a
# kernel loses the kernel's target features, and its intrinsics become
# calls to `core::core_arch::...` functions — the AES-GCM kernel ran 4×
# slower so in one peer-bench build (docs/ARCHITECTURE.md, "Closures in
# kernels"). Peers' functions (RustCrypto's poly1305 has such calls) and the
# CPU detection's `_xgetbv` are listed, not failed.
# Usage: scripts/outlined-intrinsics.sh BIN [PATTERN] — PATTERN (default
# `fieldwork`) is what a failing caller's demangled name contains.
set -euo pipefail
bin=$1
ours=${2:-fieldwork}
callers=$(objdump -d --no-show-raw-insn -C "$bin" |
  awk '/^[0-9a-f]+ <.*>:$/ { fn = $0 } /call.*core::core_arch::/ && !/_xgetbv/ { print fn }' |
  sort | uniq -c)
if [ -n "$callers" ]; then
  echo "functions calling an outlined intrinsic in $bin:"
  echo "$callers"
fi
if grep -q -- "$ours" <<<"$callers"; then
  echo "outlined intrinsics called from $ours's code (above)" >&2
  exit 1
fi
echo "no outlined intrinsic called from $ours's code in $bin"
