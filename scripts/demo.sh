#!/usr/bin/env bash
# Builds the default configuration (Kokkos with OpenMP), leaves the tool at
# build/bin/strata, and plans the built-in demo graph (a 3-D upwind sweep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
"$here/configure_backend.sh" openmp "$root/build" -DSTRATA_ENABLE_TESTS=OFF
echo "=== build/bin/strata plan --demo"
OMP_PROC_BIND=${OMP_PROC_BIND:-false} "$root/build/bin/strata" plan --demo
