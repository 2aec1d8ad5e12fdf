#!/usr/bin/env bash
# NTL through fieldwork's libgf2x.so.3: builds ntl_check.cpp against Debian's
# NTL (libntl-dev, dynamically linked to libgf2x.so.3), runs it once with the
# system libgf2x and once with ours first on LD_LIBRARY_PATH, proves from the
# loader which library was loaded (ldd, and LD_DEBUG=bindings for gf2x_mul),
# and requires byte-identical outputs.
#
# Before NTL, c_api_check.c exercises every gf2x.h function (gf2x_mul,
# gf2x_mul_r with a pool and with NULL, gf2x_mul_toom with gf2x_toomspace's
# scratch, c aliasing a or b) through Debian's header, against both libraries,
# outputs diffed the same way.
#
# Usage: crates/fieldwork-gf2x-abi/ntl-check/run.sh [max_log2_words]  (default 16)
# Needs: g++, libntl-dev (and its libgmp-dev), cargo. Exit status 0 iff identical.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
max_log="${1:-16}"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$target/ntl-check"
mkdir -p "$work/lib"

echo "== building libfieldwork_gf2x_abi.so (release)"
(cd "$root" && cargo build --release -q -p fieldwork-gf2x-abi)
ours="$target/release/libfieldwork_gf2x_abi.so"
soname="$(readelf -d "$ours" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[ "$soname" = libgf2x.so.3 ] || { echo "FAIL: soname of $ours is '$soname'" >&2; exit 1; }
ln -sf "$ours" "$work/lib/libgf2x.so.3"

echo "== building ntl_check against the system NTL"
g++ -O2 -std=c++17 -o "$work/ntl_check" "$here/ntl_check.cpp" -lntl -lgmp -lpthread
# (ldd's output is captured first: `ldd | grep -q` fails under pipefail
# when grep exits early.)
system_ldd="$(ldd "$work/ntl_check")"
grep -q 'libgf2x\.so\.3' <<<"$system_ldd" \
  || { echo "FAIL: ntl_check does not load libgf2x.so.3 (ldd)" >&2; exit 1; }

echo "== which libgf2x.so.3 each run loads"
system_lib="$(awk '/libgf2x\.so\.3/ {print $3}' <<<"$system_ldd")"
ours_lib="$(LD_LIBRARY_PATH="$work/lib" ldd "$work/ntl_check" | awk '/libgf2x\.so\.3/ {print $3}')"
echo "system run: $system_lib"
echo "ours run:   $ours_lib"
[ "$(readlink -f "$ours_lib")" = "$(readlink -f "$ours")" ] \
  || { echo "FAIL: with LD_LIBRARY_PATH, ldd does not resolve libgf2x.so.3 to ours" >&2; exit 1; }
[ "$(readlink -f "$system_lib")" != "$(readlink -f "$ours")" ] \
  || { echo "FAIL: the system run would load ours too" >&2; exit 1; }
# The loader's own account of where NTL's gf2x_mul calls go (a short run).
LD_DEBUG=bindings LD_LIBRARY_PATH="$work/lib" "$work/ntl_check" 7 2>"$work/bindings.txt" >/dev/null
binding="$(grep -m1 "normal symbol \`gf2x_mul'" "$work/bindings.txt" || true)"
echo "LD_DEBUG: ${binding#*binding }"
case "$binding" in
  *"$work/lib/libgf2x.so.3"*) ;;
  *) echo "FAIL: LD_DEBUG=bindings does not show gf2x_mul bound to ours" >&2; exit 1 ;;
esac

echo "== c_api_check: gf2x.h's functions through Debian's header"
"${CC:-gcc}" -O2 -Wall -o "$work/c_api_check" "$here/c_api_check.c" -lgf2x
"$work/c_api_check" >"$work/c_system.txt"
LD_LIBRARY_PATH="$work/lib" "$work/c_api_check" >"$work/c_ours.txt"
if cmp -s "$work/c_system.txt" "$work/c_ours.txt"; then
  echo "OK: c_api_check outputs byte-identical ($(wc -l <"$work/c_ours.txt") lines)"
else
  echo "FAIL: c_api_check outputs differ:" >&2
  diff "$work/c_system.txt" "$work/c_ours.txt" | head -20 >&2
  exit 1
fi

echo "== the installed library: scripts/install-gf2x.sh, our gf2x.h, gf2x.pc, libgf2x.a"
prefix="$work/prefix"
rm -rf "$prefix"
"$root/scripts/install-gf2x.sh" --prefix "$prefix" >/dev/null
pc() { PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config "$@" gf2x; }
[ "$(pc --modversion)" = 1.3.0 ] || { echo "FAIL: gf2x.pc does not say 1.3.0" >&2; exit 1; }
[ "$(pc --variable=includedir)/gf2x.h" -ef "$prefix/include/gf2x.h" ] \
  || { echo "FAIL: gf2x.pc's includedir is not the installed one" >&2; exit 1; }
# header_check.c compiles only against a header with gf2x 1.3's exact
# declarations: Debian's and ours, as C and as C++, each run against the
# library it linked.
strict="-Wall -Wextra -Werror -pedantic"
gcc -std=c11 $strict -o "$work/hc_system" "$here/header_check.c" -lgf2x
g++ -std=c++17 $strict -x c++ -o "$work/hcxx_system" "$here/header_check.c" -lgf2x
gcc -std=c11 $strict $(pc --cflags) -o "$work/hc_ours" "$here/header_check.c" $(pc --libs)
g++ -std=c++17 $strict $(pc --cflags) -x c++ -o "$work/hcxx_ours" "$here/header_check.c" $(pc --libs)
"$work/hc_system" && "$work/hcxx_system"
LD_LIBRARY_PATH="$prefix/lib" "$work/hc_ours"
LD_LIBRARY_PATH="$prefix/lib" "$work/hcxx_ours"
echo "OK: header_check (C and C++) with Debian's gf2x.h and with ours"
# c_api_check through our header: dynamically (pkg-config's flags) and
# statically (libgf2x.a with the .pc file's Libs.private), outputs as above.
"${CC:-gcc}" -O2 -Wall $(pc --cflags) -o "$work/c_api_hdr" "$here/c_api_check.c" $(pc --libs)
"${CC:-gcc}" -O2 -Wall $(pc --cflags) -o "$work/c_api_static" "$here/c_api_check.c" \
  "$prefix/lib/libgf2x.a" $(pc --static --libs-only-l | sed 's/-lgf2x\b//')
if ldd "$work/c_api_static" | grep -q libgf2x; then
  echo "FAIL: c_api_static loads a shared libgf2x" >&2; exit 1
fi
LD_LIBRARY_PATH="$prefix/lib" "$work/c_api_hdr" >"$work/c_hdr.txt"
"$work/c_api_static" >"$work/c_static.txt"
for out in c_hdr c_static; do
  cmp -s "$work/c_system.txt" "$work/$out.txt" \
    || { echo "FAIL: $out differs from the system library's output" >&2; diff "$work/c_system.txt" "$work/$out.txt" | head >&2; exit 1; }
done
echo "OK: c_api_check through the installed header, shared and static, byte-identical"

echo "== ntl_check (sizes up to 2^$max_log words)"
t0=$(date +%s.%N)
"$work/ntl_check" "$max_log" >"$work/system.txt"
t1=$(date +%s.%N)
LD_LIBRARY_PATH="$work/lib" "$work/ntl_check" "$max_log" >"$work/ours.txt"
t2=$(date +%s.%N)
printf 'system libgf2x: %.2f s, %s lines\n' "$(awk "BEGIN{print $t1 - $t0}")" "$(wc -l <"$work/system.txt")"
printf 'fieldwork:      %.2f s, %s lines\n' "$(awk "BEGIN{print $t2 - $t1}")" "$(wc -l <"$work/ours.txt")"
if cmp -s "$work/system.txt" "$work/ours.txt"; then
  echo "OK: outputs byte-identical ($(sha256sum <"$work/ours.txt" | cut -c1-16)…), $work/{system,ours}.txt"
else
  echo "FAIL: outputs differ:" >&2
  diff "$work/system.txt" "$work/ours.txt" | head -20 >&2
  exit 1
fi
