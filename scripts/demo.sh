#!/usr/bin/env bash
# Builds the default configuration (Kokkos with OpenMP), leaves the tool at
# build/bin/strata, and plans the built-in demo graph (a 3-D upwind sweep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
"$here/configure_backend.sh" openmp "$root/build" -DSTRATA_ENABLE_TESTS=OFF
echo "=== build/bin/strata plan --demo"
"$root/build/bin/strata" plan --demo  # sets OMP_PROC_BIND=false itself when no binding is set
