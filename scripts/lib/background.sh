# shellcheck shell=bash
# One-core jobs run beside other work, their output held back until asked
# for (CI's derive.py, ct-aarch64 and the valgrind levels of ct-check).
# Sourced, not run. Functions:
#
#   bg_start NAME CMD [ARGS...]
#       runs CMD (a command or a shell function) in the background, its
#       stdout and stderr into a temporary file kept under NAME
#   bg_finish NAME
#       waits for NAME's job, prints its output, removes the file and
#       returns the job's exit status

declare -A bg_pid=() bg_log=()

bg_start() {
  local name=$1
  shift
  bg_log[$name]=$(mktemp)
  "$@" > "${bg_log[$name]}" 2>&1 &
  bg_pid[$name]=$!
}

bg_finish() {
  local name=$1 rc=0
  wait "${bg_pid[$name]}" || rc=$?
  cat "${bg_log[$name]}"
  rm -f "${bg_log[$name]}"
  unset "bg_pid[$name]" "bg_log[$name]"
  return "$rc"
}
