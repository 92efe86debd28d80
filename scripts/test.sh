#!/usr/bin/env bash
# Builds every backend configuration and runs its tests.
#
#   scripts/test.sh            all configurations: serial openmp openmp-debug asan fuzz
#   scripts/test.sh openmp     just one
#
# asan: ASan + UBSan build (clang, Serial) running every unit and CLI test;
# fuzz: the libFuzzer harnesses, each run $STRATA_FUZZ_SECONDS seconds (20
# here, a smoke run; run_fuzzers.sh's own default is 60) after ctest replays
# their corpus (scripts/run_fuzzers.sh).
#
# Installs what is missing on a fresh Debian 12 machine (run as root, or with
# sudo available). Build trees: build-tests/<config>. Afterwards the serial and
# openmp builds are installed and the downstream consumers tested against the
# install (scripts/test_install.sh). Last, the Spack check (scripts/test_spack.sh)
# when STRATA_SPACK_ROOT names a Spack checkout whose Python imports clingo
# (spack/README.md; STRATA_SPACK_PACKAGES, STRATA_SPACK_MIRROR as there);
# without them (CI) it prints "spack: SKIPPED (...)" at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(serial openmp openmp-debug asan fuzz)
export STRATA_FUZZ_SECONDS=${STRATA_FUZZ_SECONDS:-20}

summary=()
status=0
for config in "${configs[@]}"; do
  build="$root/build-tests/$config"
  mkdir -p "$root/build-tests"
  echo "=== $config: build ($build)"
  start=$(date +%s)
  "$here/configure_backend.sh" "$config" "$build"
  echo "=== $config: ctest"
  # One ctest slot per core: a test declares the cores it takes (PROCESSORS:
  # its OpenMP threads or MPI ranks), so none is oversubscribed by another.
  if (cd "$build" && ctest --output-on-failure -j"$(nproc)" 2>&1 | tee "$build/ctest.log"); then :; else status=1; fi
  line=$(grep -E "tests passed|tests failed" "$build/ctest.log" | tail -1)
  summary+=("$config: $line ($(( $(date +%s) - start )) s)")
  if [ "$config" = fuzz ]; then
    echo "=== fuzz: run each harness (scripts/run_fuzzers.sh)"
    if "$here/run_fuzzers.sh" "$build" 2>&1 | tee "$build/fuzz.log"; then :; else status=1; fi
    while read -r l; do summary+=("$l"); done < <(grep -E "^fuzz " "$build/fuzz.log")
  fi
done

# Install step (serial and openmp): install to a temporary prefix, move it,
# build and run examples/ and the C/Fortran tests (unit_test/c) against it.
for config in "${configs[@]}"; do
  case "$config" in serial|openmp) ;; *) continue ;; esac
  echo "=== $config: install + downstream consumers (scripts/test_install.sh)"
  start=$(date +%s)
  log="$root/build-tests/$config/install-test.log"
  if "$here/test_install.sh" "$config" "$root/build-tests/$config" 2>&1 | tee "$log"; then :; else status=1; fi
  summary+=("$(tail -1 "$log") ($(( $(date +%s) - start )) s)")
done
echo "=== spack (scripts/test_spack.sh)"
start=$(date +%s)
if "$here/test_spack.sh" "${STRATA_SPACK_ROOT:-}" 2>&1 | tee "$root/build-tests/spack-test.log"; then :; else status=1; fi
summary+=("$(grep -E "^spack: " "$root/build-tests/spack-test.log" | tail -1) ($(( $(date +%s) - start )) s)")
echo "=== summary"
printf '%s\n' "${summary[@]}"
exit $status
