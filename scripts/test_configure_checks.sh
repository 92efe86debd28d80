#!/usr/bin/env bash
# Scripted checks of what Strata's CMake configure refuses or warns about
# (configure only, nothing is built; ~1 minute):
#
#   scripts/test_configure_checks.sh [KOKKOS_PREFIX]
#
# KOKKOS_PREFIX: a Kokkos with Kokkos Kernels in one prefix (default: the one
# scripts/bootstrap_deps.sh openmp builds). Debian's Kokkos Kernels (/usr,
# libtrilinos-kokkos-kernels-dev, no recorded version) is the "other" one.
#  1. -DKokkos_ROOT=<prefix> alone finds that prefix's Kokkos Kernels, not /usr's;
#  2. a Kokkos Kernels whose version is another Kokkos' (a copy of the prefix's
#     config saying 4.6.1) is a configure error naming both and a Fix;
#  3. Debian's Kokkos Kernels (empty version, another prefix) next to that Kokkos
#     is a warning;
#  4. -DSTRATA_ENABLE_PYTHON=ON with a Python that cannot import NumPy is a
#     configure error naming Python3_EXECUTABLE.
# Last line: "configure checks: N passed" or "configure checks: FAILED (which)".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
kokkos=${1:-${STRATA_DEPS_DIR:-/var/cache/strata-deps}/kokkos-3.4.01-openmp-release}
[ -f "$kokkos/lib/cmake/KokkosKernels/KokkosKernelsConfigVersion.cmake" ] || {
  echo "test_configure_checks.sh: no Kokkos Kernels in $kokkos (Fix: scripts/bootstrap_deps.sh openmp)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-configure.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
fail() { echo "configure checks: FAILED ($1)"; exit 1; }
ok() { echo "    ok: $1"; passed=$((passed + 1)); }
# Configure only: no tools, tests or MPI, so that nothing else is looked up.
configure() {
  local dir=$1; shift
  cmake -S "$root" -B "$work/$dir" -DSTRATA_ENABLE_TOOLS=OFF -DSTRATA_ENABLE_TESTS=OFF \
    -DSTRATA_ENABLE_PERF_TESTS=OFF -DSTRATA_ENABLE_MPI=OFF "$@" >"$work/$dir.log" 2>&1
}
# CMake wraps its messages: match on the log with line breaks as spaces.
has() { tr -s '\n ' '  ' <"$work/$1.log" | grep -q -- "$2"; }
cache() { sed -n "s|^$2:[A-Z]*=||p" "$work/$1/CMakeCache.txt"; }

echo "--- 1. -DKokkos_ROOT=$kokkos: Kokkos Kernels from that prefix"
configure one -DKokkos_ROOT="$kokkos" -DSTRATA_ENABLE_KOKKOS_KERNELS=ON || { cat "$work/one.log"; fail "1: configure"; }
kk_dir=$(cache one KokkosKernels_DIR)
[ "$(cd "$kk_dir" && pwd -P)" = "$(cd "$kokkos/lib/cmake/KokkosKernels" && pwd -P)" ] \
  || fail "1: KokkosKernels_DIR is $kk_dir, not in $kokkos"
! grep -q "CMake Warning" "$work/one.log" || { cat "$work/one.log"; fail "1: a warning"; }
ok "KokkosKernels_DIR=$kk_dir"

echo "--- 2. a Kokkos Kernels recording another Kokkos version: refused"
fake="$work/kk-4.6"
mkdir -p "$fake/lib/cmake"
for f in "$kokkos"/*; do [ "$(basename "$f")" = lib ] || ln -s "$f" "$fake/"; done
for f in "$kokkos"/lib/*; do [ "$(basename "$f")" = cmake ] || ln -s "$f" "$fake/lib/"; done
cp -r "$kokkos/lib/cmake/KokkosKernels" "$fake/lib/cmake/"
sed -i 's/^set(PACKAGE_VERSION "[^"]*")/set(PACKAGE_VERSION "4.6.1")/' "$fake/lib/cmake/KokkosKernels/KokkosKernelsConfigVersion.cmake"
if configure two -DKokkos_ROOT="$kokkos" -DKokkosKernels_ROOT="$fake" -DSTRATA_ENABLE_KOKKOS_KERNELS=ON; then
  cat "$work/two.log"; fail "2: configure accepted Kokkos Kernels 4.6.1 with Kokkos 3.4"
fi
grep -A4 "CMake Error" "$work/two.log" | sed 's/^/    /'
has two "Kokkos Kernels 4.6 is built against Kokkos 4.6, not 3.4" && has two "Fix: -DKokkosKernels_ROOT=" \
  || { cat "$work/two.log"; fail "2: no message naming both versions and a Fix"; }
ok "refused"

if [ -f /usr/lib/x86_64-linux-gnu/cmake/KokkosKernels/KokkosKernelsConfig.cmake ]; then
  echo "--- 3. Debian's Kokkos Kernels (no version) next to $kokkos: a warning"
  configure three -DKokkos_ROOT="$kokkos" -DKokkosKernels_ROOT=/usr -DSTRATA_ENABLE_KOKKOS_KERNELS=ON \
    || { cat "$work/three.log"; fail "3: configure"; }
  grep -A3 "CMake Warning" "$work/three.log" | sed 's/^/    /'
  has three "records no version" || { cat "$work/three.log"; fail "3: no warning"; }
  ok "warned"
else
  echo "--- 3. skipped: no Debian Kokkos Kernels in /usr"
fi

echo "--- 4. STRATA_ENABLE_PYTHON=ON with a Python without NumPy: refused, naming it"
# The system Python without its site directories: no NumPy.
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$work/python3-no-numpy"
chmod +x "$work/python3-no-numpy"
if "$work/python3-no-numpy" -c "import numpy" 2>/dev/null; then
  echo "--- 4. skipped: NumPy importable without site directories"
else
  if configure four -DKokkos_ROOT="$kokkos" -DSTRATA_ENABLE_KOKKOS_KERNELS=OFF -DSTRATA_ENABLE_PYTHON=ON \
       -DPython3_EXECUTABLE="$work/python3-no-numpy"; then
    cat "$work/four.log"; fail "4: configure accepted a Python without NumPy"
  fi
  grep -A4 "CMake Error" "$work/four.log" | sed 's/^/    /'
  has four "python3-no-numpy (Python3_EXECUTABLE) cannot import numpy" \
    || { cat "$work/four.log"; fail "4: the message does not name Python3_EXECUTABLE"; }
  ok "refused"
fi
echo "configure checks: $passed passed"
