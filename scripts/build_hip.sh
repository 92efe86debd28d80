#!/usr/bin/env bash
# Builds Strata for an AMD GPU: Kokkos (HIP + Serial) and Kokkos Kernels from
# source trees you supply, then Strata's library, tool, unit tests and
# benchmarks, all with hipcc. Nothing is downloaded. Fails on any compiler
# warning in Strata's build. See docs/hip.md.
#
#   scripts/build_hip.sh [options] KOKKOS_SRC KOKKOS_KERNELS_SRC [-- extra Strata cmake args]
#
#   --arch GFX     AMD GPU architecture, as Kokkos names it in lower case
#                  (gfx906 gfx908 gfx90a gfx940 gfx942 gfx942_apu gfx1030
#                  gfx1100 gfx1103); default gfx90a
#   --deps DIR     where Kokkos and Kokkos Kernels are built and installed
#                  (DIR/install-GFX); default build-hip/deps
#   --build DIR    Strata's build directory; default build-hip/GFX
#   --jobs N       parallel compile jobs; default: the number of CPUs
#
# Kokkos and Kokkos Kernels are built once per architecture (static, Release,
# Kokkos Kernels without explicit instantiations and without TPLs); a rerun
# reuses their install and rebuilds Strata only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

arch=gfx90a deps=$root/build-hip/deps build= jobs=$(nproc)
positional=() extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=${2:?--arch needs a value}; shift 2 ;;
    --deps) deps=${2:?--deps needs a directory}; shift 2 ;;
    --build) build=${2:?--build needs a directory}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    -h|--help) usage ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "build_hip.sh: unknown option '$1'" >&2; usage ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -eq 2 ] || usage
kokkos_src=$(cd "${positional[0]}" && pwd)
kk_src=$(cd "${positional[1]}" && pwd)
build=${build:-$root/build-hip/$arch}

fail() { echo "build_hip.sh: $*" >&2; exit 1; }

# The source trees: Kokkos 4.x and Kokkos Kernels 4.x (their CMakeLists carry the version).
src_version() {  # <CMakeLists.txt> <variable prefix>
  local major minor patch
  major=$(sed -n "s/^ *set(${2}_VERSION_MAJOR \([0-9]*\))/\1/Ip" "$1")
  minor=$(sed -n "s/^ *set(${2}_VERSION_MINOR \([0-9]*\))/\1/Ip" "$1")
  patch=$(sed -n "s/^ *set(${2}_VERSION_PATCH \([0-9]*\))/\1/Ip" "$1")
  [ -n "$major" ] && echo "$major.$minor.$patch"
}
kokkos_version=$(src_version "$kokkos_src/CMakeLists.txt" Kokkos) \
  || fail "$kokkos_src is not a Kokkos source tree (no Kokkos_VERSION_MAJOR in its CMakeLists.txt)"
kk_version=$(src_version "$kk_src/CMakeLists.txt" KokkosKernels) \
  || fail "$kk_src is not a Kokkos Kernels source tree (no KokkosKernels_VERSION_MAJOR in its CMakeLists.txt)"
case "$kokkos_version" in 4.*) ;; *) fail "Kokkos $kokkos_version in $kokkos_src: this build needs Kokkos 4.x (checked with 4.6)" ;; esac
[ "${kk_version%.*}" = "${kokkos_version%.*}" ] \
  || fail "Kokkos Kernels $kk_version does not match Kokkos $kokkos_version: use the same major.minor release of both"

# The compiler, and whether it knows the architecture (Debian 12's ROCm 5.2,
# clang 15, does not know gfx942: say so before Kokkos' build meets it).
command -v hipcc >/dev/null || fail "hipcc not found (Debian/Ubuntu: apt-get install hipcc libamdhip64-dev)"
# hipcc --version also runs rocm_agent_enumerator, which prints a traceback on a machine without an AMD GPU
echo "build_hip.sh: $(hipcc --version 2>/dev/null | head -2 | tr '\n' ' ')"
case "$arch" in
  gfx906|gfx908|gfx90a|gfx940|gfx942|gfx942_apu|gfx1030|gfx1100|gfx1103) ;;
  *) fail "unknown --arch '$arch' (Kokkos 4.6 knows gfx906 gfx908 gfx90a gfx940 gfx942 gfx942_apu gfx1030 gfx1100 gfx1103)" ;;
esac
offload_arch=${arch%_apu}
# hipcc asks rocm_agent_enumerator for the GPU whenever --offload-arch is not
# on its command line (CMake's compiler probe, link steps); on a machine
# without an AMD GPU that prints a Python traceback. Name the target instead.
export HCC_AMDGPU_TARGET=$offload_arch
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { *p = 1; }\n' > "$probe/probe.hip"
if ! hipcc --offload-arch="$offload_arch" -c "$probe/probe.hip" -o "$probe/probe.o" 2>"$probe/err"; then
  cat "$probe/err" >&2
  fail "this hipcc cannot compile for $offload_arch; use a ROCm whose compiler knows it"
fi

mkdir -p "$deps" "$build"
deps=$(cd "$deps" && pwd) build=$(cd "$build" && pwd)

# Kokkos: HIP + Serial for the architecture, static, no rocThrust (Debian has none).
install=$deps/install-$arch
kokkos_arch=AMD_$(echo "$arch" | tr '[:lower:]' '[:upper:]')
start=$SECONDS
if [ ! -f "$install/.kokkos-$kokkos_version" ]; then
  cmake -S "$kokkos_src" -B "$deps/build-kokkos-$arch" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=hipcc -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_HIP=ON -DKokkos_ARCH_$kokkos_arch=ON -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_ROCTHRUST=OFF -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$install" \
    >"$deps/kokkos-$arch-configure.log" 2>&1 || { cat "$deps/kokkos-$arch-configure.log"; fail "Kokkos configure failed"; }
  cmake --build "$deps/build-kokkos-$arch" -j"$jobs" >"$deps/kokkos-$arch-build.log" 2>&1 \
    || { tail -40 "$deps/kokkos-$arch-build.log"; fail "Kokkos build failed (log: $deps/kokkos-$arch-build.log)"; }
  cmake --install "$deps/build-kokkos-$arch" >/dev/null
  touch "$install/.kokkos-$kokkos_version"
  echo "build_hip.sh: Kokkos $kokkos_version ($kokkos_arch) installed in $install ($((SECONDS - start)) s)"
fi

# Kokkos Kernels: only its headers are used (the sparse triangular solve
# interop): no explicit instantiations, no TPLs.
start=$SECONDS
if [ ! -f "$install/.kokkos-kernels-$kk_version" ]; then
  off=()
  for o in ADD_DEFAULT_ETI INST_DOUBLE INST_FLOAT INST_COMPLEX_DOUBLE INST_COMPLEX_FLOAT \
           INST_ORDINAL_INT INST_ORDINAL_INT64_T INST_OFFSET_INT INST_OFFSET_SIZE_T \
           INST_LAYOUTLEFT INST_LAYOUTRIGHT INST_EXECSPACE_SERIAL INST_EXECSPACE_HIP \
           INST_MEMSPACE_HIPSPACE INST_MEMSPACE_HIPMANAGEDSPACE \
           ENABLE_TPL_ROCBLAS ENABLE_TPL_ROCSPARSE ENABLE_TPL_ROCSOLVER \
           ENABLE_TPL_BLAS ENABLE_TPL_LAPACK ENABLE_TESTS ENABLE_PERFTESTS ENABLE_EXAMPLES; do
    off+=("-DKokkosKernels_$o=OFF")
  done
  cmake -S "$kk_src" -B "$deps/build-kokkos-kernels-$arch" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=hipcc -DCMAKE_CXX_STANDARD=17 -DKokkos_ROOT="$install" "${off[@]}" \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$install" \
    >"$deps/kokkos-kernels-$arch-configure.log" 2>&1 \
    || { cat "$deps/kokkos-kernels-$arch-configure.log"; fail "Kokkos Kernels configure failed"; }
  cmake --build "$deps/build-kokkos-kernels-$arch" -j"$jobs" >"$deps/kokkos-kernels-$arch-build.log" 2>&1 \
    || { tail -40 "$deps/kokkos-kernels-$arch-build.log"; fail "Kokkos Kernels build failed (log: $deps/kokkos-kernels-$arch-build.log)"; }
  cmake --install "$deps/build-kokkos-kernels-$arch" >/dev/null
  touch "$install/.kokkos-kernels-$kk_version"
  echo "build_hip.sh: Kokkos Kernels $kk_version installed in $install ($((SECONDS - start)) s)"
fi

# Strata: library, tool, unit tests (Serial and HIP) and benchmarks; MPI
# where one is found. The build log is kept; any warning fails the build.
start=$SECONDS
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=hipcc \
  -DKokkos_ROOT="$install" -DKokkosKernels_ROOT="$install" \
  -DSTRATA_ENABLE_TESTS=ON -DSTRATA_ENABLE_PERF_TESTS=ON "${extra[@]}" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; fail "Strata configure failed"; }
grep -E "^-- Strata:" "$build/configure.log" || true
if ! cmake --build "$build" -j"$jobs" >"$build/build.log" 2>&1; then
  grep -E -B2 -A12 "error:" "$build/build.log" | head -80
  fail "Strata build failed (log: $build/build.log)"
fi
warnings=$(grep -c "warning:" "$build/build.log" || true)
if [ "$warnings" -ne 0 ]; then
  grep -E -A6 "warning:" "$build/build.log" | head -80
  fail "$warnings warning(s) in Strata's build (log: $build/build.log)"
fi
echo "build_hip.sh: Strata built for $arch in $build ($((SECONDS - start)) s, 0 warnings)."
echo "build_hip.sh: compile-checked only: run ctest in $build on a machine with an $arch GPU."
