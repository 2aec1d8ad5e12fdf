#!/usr/bin/env bash
# ct-check: every secret-handling operation of fieldwork under valgrind
# memcheck with its secrets marked undefined (crates/ct-check), at each ISA
# level valgrind 3.19 can execute, then the deliberately leaky variants,
# which must all be reported. Needs valgrind (apt-get install -y valgrind).
#
#   scripts/ct-check.sh [FILTER]     e.g. scripts/ct-check.sh gcm
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q --release -p ct-check
bin=target/release/ct-check
vg=(valgrind -q --error-limit=no --suppressions=crates/ct-check/declassify.supp)

status=0
for level in portable clmul avx2; do
  echo "--- FIELDWORK_MAX_ISA=$level"
  # ct-check's own exit status counts the reports per operation;
  # --error-exitcode also fails the run on a report outside any operation.
  FIELDWORK_MAX_ISA=$level "${vg[@]}" --error-exitcode=1 "$bin" "$@" || status=1
done

echo "--- self-test: the deliberately leaky variants must be reported"
FIELDWORK_MAX_ISA=portable "${vg[@]}" "$bin" --leaky 2>/dev/null || status=1

exit $status
