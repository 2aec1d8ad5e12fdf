#!/usr/bin/env bash
# Installs fieldwork's drop-in libgf2x (crates/fieldwork-gf2x-abi) under a
# prefix, laid out as gf2x 1.3.0's own install:
#
#   LIBDIR/libgf2x.so.3.0.0        the shared library (soname libgf2x.so.3)
#   LIBDIR/libgf2x.so.3, .so       symlinks to it
#   LIBDIR/libgf2x.a               the static library
#   LIBDIR/pkgconfig/gf2x.pc       pkg-config file (Version: 1.3.0)
#   PREFIX/include/gf2x.h          the header (written for fieldwork)
#   PREFIX/share/fieldwork-gf2x/manifest   what was installed, for --uninstall
#
# Usage:
#   scripts/install-gf2x.sh --prefix DIR [--libdir DIR] [--no-build]
#   scripts/install-gf2x.sh --prefix DIR --uninstall
#
# LIBDIR defaults to PREFIX/lib. The library is built with
# `cargo build --release -p fieldwork-gf2x-abi` first (unless --no-build);
# CARGO_TARGET_DIR is honoured. The library dispatches on the CPU at run
# time, so one build serves every x86-64 machine.
#
# To make every program on the machine use it (Debian: /usr/local/lib is
# searched before /usr/lib/x86_64-linux-gnu):
#   sudo scripts/install-gf2x.sh --prefix /usr/local && sudo ldconfig
# and --uninstall (then ldconfig) to go back to the system's libgf2x.
set -euo pipefail

prefix=""
libdir=""
build=1
uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --libdir) libdir="${2:?--libdir needs a directory}"; shift 2 ;;
    --libdir=*) libdir="${1#--libdir=}"; shift ;;
    --no-build) build=0; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-gf2x.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] || { echo "install-gf2x.sh: --prefix DIR is required (see --help)" >&2; exit 2; }
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
libdir="${libdir:-$prefix/lib}"
manifest="$prefix/share/fieldwork-gf2x/manifest"

if [ "$uninstall" = 1 ]; then
  [ -f "$manifest" ] || { echo "install-gf2x.sh: no $manifest: nothing installed here" >&2; exit 1; }
  while IFS= read -r f; do
    rm -f -- "$f"
  done <"$manifest"
  rm -f -- "$manifest"
  rmdir -p --ignore-fail-on-non-empty "$(dirname "$manifest")" 2>/dev/null || true
  echo "removed fieldwork's libgf2x from $prefix"
  exit 0
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
crate="$root/crates/fieldwork-gf2x-abi"

static_libs="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
if [ "$build" = 1 ]; then
  # --print native-static-libs: the system libraries the static library
  # needs (Rust's standard library's), for the .pc file's Libs.private.
  notes="$(cd "$root" && cargo rustc --release -q -p fieldwork-gf2x-abi --lib \
    -- --print native-static-libs 2>&1 >/dev/null || true)"
  printed="$(sed -n 's/.*native-static-libs: //p' <<<"$notes" | head -n1)"
  [ -n "$printed" ] && static_libs="$printed"
fi
so="$target/release/libfieldwork_gf2x_abi.so"
a="$target/release/libfieldwork_gf2x_abi.a"
for f in "$so" "$a"; do
  [ -f "$f" ] || { echo "install-gf2x.sh: $f missing: build with cargo build --release -p fieldwork-gf2x-abi" >&2; exit 1; }
done
soname="$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[ "$soname" = libgf2x.so.3 ] || { echo "install-gf2x.sh: soname of $so is '$soname', not libgf2x.so.3" >&2; exit 1; }

mkdir -p "$libdir/pkgconfig" "$prefix/include" "$(dirname "$manifest")"
install -m 0755 "$so" "$libdir/libgf2x.so.3.0.0"
# Cargo's release profile keeps line tables; an installed library needs none.
if command -v strip >/dev/null; then
  strip --strip-debug "$libdir/libgf2x.so.3.0.0"
fi
ln -sf libgf2x.so.3.0.0 "$libdir/libgf2x.so.3"
ln -sf libgf2x.so.3.0.0 "$libdir/libgf2x.so"
install -m 0644 "$a" "$libdir/libgf2x.a"
if command -v strip >/dev/null; then
  strip --strip-debug "$libdir/libgf2x.a"
fi
install -m 0644 "$crate/include/gf2x.h" "$prefix/include/gf2x.h"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)"
cat >"$libdir/pkgconfig/gf2x.pc" <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=$libdir
includedir=\${prefix}/include

Name: gf2x
Description: gf2x 1.3 C API for GF(2)[x] multiplication, served by fieldwork $version (fieldwork-gf2x-abi)
Version: 1.3.0
Libs: -L\${libdir} -lgf2x
Libs.private: $static_libs
Cflags: -I\${includedir}
PC
printf '%s\n' "$libdir/libgf2x.so.3.0.0" "$libdir/libgf2x.so.3" "$libdir/libgf2x.so" \
  "$libdir/libgf2x.a" "$libdir/pkgconfig/gf2x.pc" "$prefix/include/gf2x.h" >"$manifest"
echo "installed fieldwork's libgf2x (gf2x 1.3.0 API) under $prefix:"
sed 's/^/  /' "$manifest"
