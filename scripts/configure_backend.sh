#!/usr/bin/env bash
# Configures and builds one backend configuration of Strata.
#
#   scripts/configure_backend.sh CONFIG BUILD_DIR [extra cmake args...]
#
# CONFIG: serial        Debian's Kokkos 3.4.01 (Serial)
#         openmp        Kokkos 3.4.01 with OpenMP (+ Serial), built by bootstrap_deps.sh;
#                       also the Python module (STRATA_ENABLE_PYTHON, Debian's python3)
#         openmp-debug  the same with Kokkos_ENABLE_DEBUG_BOUNDS_CHECK, Strata in Debug
#         asan          Debian's Kokkos (Serial), Strata built by clang++ with
#                       -fsanitize=address,undefined (STRATA_SANITIZE), RelWithDebInfo
#         fuzz          the libFuzzer harnesses only (STRATA_ENABLE_FUZZERS, clang++; no MPI)
# MPI (distributed planning and execution) is on wherever an MPI is found,
# openmp-debug and fuzz excepted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
config=$1 build=$2; shift 2
STRATA_DEPS_DIR=${STRATA_DEPS_DIR:-/var/cache/strata-deps}
KOKKOS_VERSION=3.4.01

# Tests (unit, CLI, perf smoke) are OFF in a plain cmake build: on here. libstrata
# is shared by default over a shared Kokkos; the sanitizer builds keep it static
# (one instrumented binary per test).
args=(-DCMAKE_BUILD_TYPE=Release -DSTRATA_ENABLE_TESTS=ON)
case "$config" in
  serial) ;;
  openmp) args+=(-DKokkos_ROOT="$STRATA_DEPS_DIR/kokkos-$KOKKOS_VERSION-openmp-release"
                 -DKokkosKernels_ROOT="$STRATA_DEPS_DIR/kokkos-$KOKKOS_VERSION-openmp-release"
                 # the Python module, for Debian's python3 (pybind11-dev, python3-numpy)
                 -DSTRATA_ENABLE_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3
                 # the Serial backend's tests run in the serial build
                 -DSTRATA_TEST_BACKENDS=OPENMP) ;;
  # The debug and sanitizer builds run the unit and CLI tests, not the
  # benchmarks: their smoke tests run in the serial and openmp builds. The
  # bounds-checked build runs its OpenMP tests with 2 threads; the release
  # openmp build runs them with 2 and 4 (4 oversubscribing a 2-core machine,
  # where the spinning modes take most of the test time).
  # The bounds-checked build leaves MPI out: the distributed code and its
  # tests run in the serial, openmp and asan builds, and CI must stay under
  # its time limit.
  openmp-debug) args=(-DCMAKE_BUILD_TYPE=Debug -DSTRATA_ENABLE_TESTS=ON -DSTRATA_ENABLE_PERF_TESTS=OFF
                 -DSTRATA_ENABLE_MPI=OFF
                 -DSTRATA_TEST_OPENMP_THREADS=2 -DSTRATA_TEST_BACKENDS=OPENMP
                 -DKokkos_ROOT="$STRATA_DEPS_DIR/kokkos-$KOKKOS_VERSION-openmp-boundscheck"
                 -DKokkosKernels_ROOT="$STRATA_DEPS_DIR/kokkos-$KOKKOS_VERSION-openmp-boundscheck") ;;
  asan) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DSTRATA_SANITIZE=ON
              -DSTRATA_ENABLE_TESTS=ON -DSTRATA_ENABLE_PERF_TESTS=OFF -DBUILD_SHARED_LIBS=OFF) ;;
  fuzz) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DSTRATA_ENABLE_FUZZERS=ON
              -DSTRATA_ENABLE_TESTS=OFF -DSTRATA_ENABLE_TOOLS=OFF -DSTRATA_ENABLE_MPI=OFF
              -DBUILD_SHARED_LIBS=OFF) ;;
  *) echo "configure_backend.sh: unknown config '$config'" >&2; exit 2 ;;
esac
"$here/bootstrap_deps.sh" "$config"
mkdir -p "$build"
cmake -S "$root" -B "$build" "${args[@]}" "$@" >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" 2>&1 | grep -E "error|warning:|Error" || true
test "${PIPESTATUS[0]}" = 0
