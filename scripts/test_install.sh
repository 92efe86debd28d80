#!/usr/bin/env bash
# Installs one built configuration of Strata to a temporary prefix, MOVES the
# prefix (the install must be relocatable), then builds and runs, against the
# moved copy, the downstream consumers: examples/ (quickstart = README's C++
# example; upwind_sweep, upwind_sweep3d and sparse_trisolve, run through
# strata::Executor in every mode, small sizes; kokkos_kernels_sptrsv = README's
# Kokkos Kernels example) and unit_test/c/ (the C11 and Fortran tests of the C
# interface).
#
#   scripts/test_install.sh CONFIG [BUILD_DIR]     (BUILD_DIR: build-tests/CONFIG, already built)
#
# Prints "install CONFIG: N tests passed" (or failed) as its last line; exit 0 iff all passed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
config=${1:?usage: test_install.sh CONFIG [BUILD_DIR]}
build=${2:-$root/build-tests/$config}
jobs=${STRATA_JOBS:-2}
[ -f "$build/CMakeCache.txt" ] || { echo "test_install.sh: $build is not a configured build (Fix: run scripts/configure_backend.sh $config $build)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-install-$config.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "install $config: FAILED ($1)"; exit 1; }

echo "--- install $config: cmake --install into $work/prefix, then moved to $work/moved"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
mv "$work/prefix" "$work/moved"
prefix="$work/moved"
if grep -rl "$work/prefix" "$prefix" >"$work/abs.txt" 2>/dev/null; then
  echo "installed files that still name the original prefix:"; cat "$work/abs.txt"; fail "not relocatable"
fi
for f in include/strata/strata.hpp include/strata/c/strata_c.h include/strata/c/strata_c.f90 \
         lib/cmake/Strata/StrataConfig.cmake lib/cmake/Strata/StrataConfigVersion.cmake \
         lib/cmake/Strata/StrataTargets.cmake lib/cmake/Strata/StrataDependencies.cmake bin/strata; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
"$prefix/bin/strata" --version 2>/dev/null || fail "installed strata tool does not run"

# README quotes examples/quickstart/quickstart.cpp and
# examples/kokkos_kernels_sptrsv/kk_sptrsv.cpp verbatim: keep them in sync.
for example in examples/quickstart/quickstart.cpp examples/kokkos_kernels_sptrsv/kk_sptrsv.cpp; do
python3 - "$root/README.md" "$root/$example" "$example" <<'PY' || fail "README out of sync"
import sys
readme, source, name = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
marker = "<!-- %s -->\n```cpp\n" % name
start = readme.find(marker)
if start < 0:
    sys.exit("README.md: no block for %s (marker %r)" % (name, marker.splitlines()[0]))
block = readme[start + len(marker):readme.index("```\n", start + len(marker))]
if block != source:
    sys.exit("README.md's C++ example differs from %s: copy the file into README" % name)
PY
done

export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_PROC_BIND=false
total=0
for project in examples unit_test/c; do
  out="$work/build-$(echo "$project" | tr / -)"
  echo "--- install $config: $project against the moved install"
  # Only the prefix is given: Kokkos must come through Strata's package config.
  cmake -S "$root/$project" -B "$out" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    >"$out.configure.log" 2>&1 || { cat "$out.configure.log"; fail "configure $project"; }
  cmake --build "$out" -j"$jobs" >"$out.build.log" 2>&1 || { cat "$out.build.log"; fail "build $project"; }
  (cd "$out" && ctest --output-on-failure -j1 >"$out.ctest.log" 2>&1) || { cat "$out.ctest.log"; fail "ctest $project"; }
  grep -E "^ *[0-9]+/[0-9]+ Test" "$out.ctest.log"
  n=$(grep -Eo "out of [0-9]+" "$out.ctest.log" | tail -1 | grep -Eo "[0-9]+")
  total=$((total + n))
done
"$work/build-examples/upwind_sweep/upwind_sweep" | sed 's/^/    /'
"$work/build-examples/upwind_sweep3d/upwind_sweep3d" 4 4 4 3 | sed 's/^/    /'
"$work/build-examples/sparse_trisolve/sparse_trisolve" 8 | sed 's/^/    /'
"$work/build-examples/kokkos_kernels_sptrsv/kk_sptrsv" 32 | sed 's/^/    /'
echo "install $config: $total tests passed (relocated install; examples + C/Fortran interface)"
