#!/usr/bin/env bash
# Installs one built configuration of Strata to a temporary prefix, MOVES the
# prefix (the install must be relocatable), then builds and runs, against the
# moved copy, the downstream consumers: examples/ (quickstart = README's C++
# example; upwind_sweep, upwind_sweep3d and sparse_trisolve, run through
# strata::Executor in every mode, small sizes; kokkos_kernels_sptrsv = README's
# Kokkos Kernels example), unit_test/c/ (the C11 and Fortran tests of the C
# interface), the C-only and Fortran-only CMake projects of unit_test/consumers/
# (project(x C), project(x Fortran): no C++ compiler enabled; a shared libstrata
# only), a C and a Fortran build through pkg-config (strata.pc, no CMake), and
# the Python module when the configuration builds it (openmp).
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
         lib/cmake/Strata/StrataTargets.cmake lib/cmake/Strata/StrataDependencies.cmake \
         lib/pkgconfig/strata.pc bin/strata; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
"$prefix/bin/strata" --version 2>/dev/null || fail "installed strata tool does not run"
shared=no
[ -e "$prefix/lib/libstrata.so" ] && shared=yes
# Built with the Kokkos Kernels interop: its headers, the package variable and
# strata.pc agree, and examples/ builds kokkos_kernels_sptrsv.
kokkos_kernels=no
grep -Eq "^STRATA_ENABLE_KOKKOS_KERNELS:BOOL=(ON|1|TRUE|YES|Y|On|True)$" "$build/CMakeCache.txt" && kokkos_kernels=yes
[ "$(sed -n 's/^kokkos_kernels=//p' "$prefix/lib/pkgconfig/strata.pc")" = "$kokkos_kernels" ] \
  || fail "strata.pc's kokkos_kernels is not $kokkos_kernels"
grep -q "set(Strata_ENABLE_KOKKOS_KERNELS \"$( [ $kokkos_kernels = yes ] && echo ON || echo OFF)\")" \
  "$prefix/lib/cmake/Strata/StrataConfig.cmake" || fail "StrataConfig.cmake's Strata_ENABLE_KOKKOS_KERNELS is not $kokkos_kernels"
if [ "$kokkos_kernels" = yes ]; then
  [ -e "$prefix/include/strata/kokkos_kernels/sptrsv_symbolic.hpp" ] || fail "missing include/strata/kokkos_kernels/"
else
  [ ! -e "$prefix/include/strata/kokkos_kernels" ] || fail "include/strata/kokkos_kernels/ installed without the interop"
fi
# A first run as a new user's: no OpenMP or Kokkos variable set, nothing on stderr.
env -u OMP_PROC_BIND -u OMP_PLACES -u KOKKOS_DISABLE_WARNINGS "$prefix/bin/strata" plan --demo \
  >"$work/demo.out" 2>"$work/demo.err" || fail "strata plan --demo"
[ -s "$work/demo.err" ] && { cat "$work/demo.err"; fail "strata plan --demo printed on stderr"; }
head -1 "$work/demo.out"

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
projects=(examples unit_test/c)
if [ "$shared" = yes ]; then
  projects+=(unit_test/consumers/c_only unit_test/consumers/fortran_only)
else
  echo "--- install $config: static libstrata: no C-only / Fortran-only / pkg-config consumer (they need libstrata.so)"
fi
for project in "${projects[@]}"; do
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
if [ "$shared" = yes ]; then
  # pkg-config only (no CMake): the C test and the Fortran program, built with
  # exactly the flags strata.pc gives (its Libs carry the run path to libstrata)
  # and run without LD_LIBRARY_PATH, as a user would.
  echo "--- install $config: C and Fortran through pkg-config (strata.pc)"
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  pc_libdir=$(pkg-config --variable=libdir strata)
  [ "$(cd "$pc_libdir" && pwd -P)" = "$(cd "$prefix/lib" && pwd -P)" ] || fail "strata.pc libdir $pc_libdir is not the moved prefix"
  pkg-config --libs strata | grep -q -- "-Wl,-rpath," || fail "strata.pc: Libs has no run path ($(pkg-config --libs strata))"
  # shellcheck disable=SC2046  # pkg-config's flags are words
  ${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror $(pkg-config --cflags strata) \
    "$root/unit_test/c/tst_c_api.c" -o "$work/pc_c_api" $(pkg-config --libs strata) \
    -pthread >"$work/pc.log" 2>&1 || { cat "$work/pc.log"; fail "pkg-config: C build"; }
  (cd "$work" && ${FC:-gfortran} -std=f2018 -Wall -Werror -Wno-maybe-uninitialized \
    "$(pkg-config --variable=fortran_source strata)" "$root/unit_test/consumers/fortran_only/use_strata.f90" \
    -o "$work/pc_fortran" $(pkg-config --libs strata)) >>"$work/pc.log" 2>&1 \
    || { cat "$work/pc.log"; fail "pkg-config: Fortran build"; }
  env -u LD_LIBRARY_PATH "$work/pc_c_api" >"$work/pc_c_api.log" 2>&1 \
    || { cat "$work/pc_c_api.log"; fail "pkg-config: C test (run without LD_LIBRARY_PATH)"; }
  env -u LD_LIBRARY_PATH "$work/pc_fortran" | sed 's/^/    /' \
    || fail "pkg-config: Fortran program (run without LD_LIBRARY_PATH)"
  echo "    pkg-config consumers: C test and Fortran program passed (strata $(pkg-config --modversion strata))"
  total=$((total + 2))
fi
# The Python module, when this configuration built it: imported from the moved prefix.
pydir=$(cd "$prefix" && ls -d lib/python3*/site-packages 2>/dev/null | head -1 || true)
if [ -n "$pydir" ] && [ -e "$prefix/$pydir/strata/__init__.py" ]; then
  echo "--- install $config: the Python module from the moved prefix ($pydir)"
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  env -u OMP_PROC_BIND PYTHONPATH="$prefix/$pydir" "${python:-python3}" -c '
import numpy as np, strata
p = strata.plan(4, np.array([[0, 1], [0, 2], [1, 3], [2, 3]]))
assert p.group_offsets.tolist() == [0, 1, 3, 4] and p.level.tolist() == [0, 1, 1, 2], p
try:
    strata.plan(2, [[0, 1], [1, 0]])
    raise SystemExit("no CycleError")
except strata.CycleError as e:
    assert e.unscheduled_waves == 2, e.fields
print("    python: strata %s on %s: diamond planned, CycleError raised" % (strata.__version__, strata.execution_space()))
' 2>"$work/python.err" || { cat "$work/python.err"; fail "python module"; }
  [ -s "$work/python.err" ] && { cat "$work/python.err"; fail "python module printed on stderr"; }
  total=$((total + 1))
  with_python=", Python module"
fi
"$work/build-examples/upwind_sweep/upwind_sweep" | sed 's/^/    /'
"$work/build-examples/upwind_sweep3d/upwind_sweep3d" 4 4 4 3 | sed 's/^/    /'
"$work/build-examples/sparse_trisolve/sparse_trisolve" 8 | sed 's/^/    /'
if [ "$kokkos_kernels" = yes ]; then
  "$work/build-examples/kokkos_kernels_sptrsv/kk_sptrsv" 32 | sed 's/^/    /'
fi
# Consumers as a new user runs them (no OMP_PROC_BIND, OMP_PLACES or
# KOKKOS_DISABLE_WARNINGS set, OMP_NUM_THREADS at most the cores): Strata's
# start-up rule (strata_initialize() for C and Fortran,
# strata::runtime::ScopeGuard for C++) leaves Kokkos nothing to warn about.
no_warning() {  # NAME COMMAND...: runs it; fails if stderr mentions a Kokkos warning
  local name=$1; shift
  env -u OMP_PROC_BIND -u OMP_PLACES -u KOKKOS_DISABLE_WARNINGS OMP_NUM_THREADS=1 "$@" \
    >"$work/quiet.out" 2>"$work/quiet.err" || { cat "$work/quiet.out" "$work/quiet.err"; fail "$name failed"; }
  if grep -Eiq "warning|OMP_PROC_BIND" "$work/quiet.err"; then
    cat "$work/quiet.err"; fail "$name printed a Kokkos warning on stderr"
  fi
}
no_warning "C++ example upwind_sweep" "$work/build-examples/upwind_sweep/upwind_sweep"
no_warning "C++ example sparse_trisolve" "$work/build-examples/sparse_trisolve/sparse_trisolve" 8
if [ "$shared" = yes ]; then
  no_warning "C consumer (pkg-config)" "$work/pc_c_api"
  no_warning "Fortran consumer (pkg-config)" "$work/pc_fortran"
fi
quiet_what="C++ examples"; [ "$shared" = yes ] && quiet_what="$quiet_what, C and Fortran consumers"
echo "    without OMP_PROC_BIND: no Kokkos warning ($quiet_what)"
what="examples + C/Fortran interface"
[ "$shared" = yes ] && what="$what, C-only, Fortran-only and pkg-config consumers"
what="$what${with_python:-}"
[ "$kokkos_kernels" = yes ] || what="$what; without Kokkos Kernels"
echo "install $config: $total tests passed (relocated install; $what)"
