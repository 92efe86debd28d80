#!/usr/bin/env bash
# Prints a Spack packages.yaml that registers this machine's Kokkos, Kokkos
# Kernels and GoogleTest (which `spack external find` cannot detect: they
# install no executable), and its gcc, cmake, gmake, Python and Open MPI, as
# externals with `buildable: false`, so that `spack install strata` builds
# strata only (and Spack's own compiler-wrapper and gcc-runtime).
#
#   spack/packages_yaml.sh KOKKOS_PREFIX [KOKKOS_KERNELS_PREFIX] > packages.yaml
#
# KOKKOS_PREFIX: a CMake install of Kokkos (lib*/cmake/Kokkos); its enabled
# backends and shared/static are read from it. KOKKOS_KERNELS_PREFIX: its
# Kokkos Kernels (default: KOKKOS_PREFIX, left out when not there). Versions
# are read from the tools and the CMake package files; GoogleTest's from
# Debian's libgtest-dev (STRATA_GTEST_VERSION and STRATA_GTEST_PREFIX
# override it elsewhere).
set -euo pipefail
kokkos=${1:?usage: packages_yaml.sh KOKKOS_PREFIX [KOKKOS_KERNELS_PREFIX]}
kk=${2:-$kokkos}
die() { echo "packages_yaml.sh: $*" >&2; exit 2; }
version_of() {  # a CMake package's version file
  sed -n 's/^set(PACKAGE_VERSION "\([^"]*\)")$/\1/p' "$1" 2>/dev/null | head -1
}
kokkos_cfg=$(ls -d "$kokkos"/lib*/cmake/Kokkos 2>/dev/null | head -1)
[ -n "$kokkos_cfg" ] || die "no lib*/cmake/Kokkos under $kokkos"
kokkos_v=$(version_of "$kokkos_cfg/KokkosConfigVersion.cmake")
[ -n "$kokkos_v" ] || die "no version in $kokkos_cfg/KokkosConfigVersion.cmake"
kk_cfg=$(ls -d "$kk"/lib*/cmake/KokkosKernels 2>/dev/null | head -1 || true)
kk_v=""
[ -z "$kk_cfg" ] || kk_v=$(version_of "$kk_cfg/KokkosKernelsConfigVersion.cmake")
variants=""
for b in SERIAL OPENMP CUDA HIP; do
  v=$(echo "$b" | tr 'A-Z' 'a-z'); [ "$v" = hip ] && v=rocm
  if grep -q "^#define KOKKOS_ENABLE_$b\$" "$kokkos/include/KokkosCore_config.h"; then
    variants+="+$v"; else variants+="~$v"; fi
done
if ls "$kokkos"/lib*/libkokkoscore.so >/dev/null 2>&1; then variants+="+shared"; else variants+="~shared"; fi
gtest_v=${STRATA_GTEST_VERSION:-$(dpkg-query -W -f='${Version}' libgtest-dev 2>/dev/null | sed 's/-.*//' || true)}
gtest_prefix=${STRATA_GTEST_PREFIX:-/usr}
gcc_v=$(gcc -dumpfullversion)
cmake_v=$(cmake --version | sed -n '1s/.* //p')
make_v=$(make --version | sed -n '1s/.* //p')
py=${STRATA_PYTHON:-/usr/bin/python3}
py_v=$("$py" -c 'import platform; print(platform.python_version())')
py_prefix=$("$py" -c 'import sys; print(sys.prefix)')
mpi_v=$( (ompi_info --version 2>/dev/null || true) | head -1 | sed -n 's/.* v//p')
for what in gcc_v cmake_v make_v py_v; do
  [ -n "${!what}" ] || die "could not read the version of ${what%_v}"
done

cat <<YAML
packages:
  gcc:
    externals:
    - spec: gcc@$gcc_v languages:='c,c++,fortran'
      prefix: /usr
      extra_attributes:
        compilers:
          c: $(command -v gcc)
          cxx: $(command -v g++)
          fortran: $(command -v gfortran || echo /usr/bin/gfortran)
    buildable: false
  cmake:
    externals:
    - spec: cmake@$cmake_v
      prefix: $(dirname "$(dirname "$(command -v cmake)")")
    buildable: false
  gmake:
    externals:
    - spec: gmake@$make_v
      prefix: $(dirname "$(dirname "$(command -v make)")")
    buildable: false
  python:
    externals:
    - spec: python@$py_v
      prefix: $py_prefix
    buildable: false
  kokkos:
    externals:
    - spec: kokkos@$kokkos_v$variants cxxstd=17
      prefix: $kokkos
    buildable: false
YAML
if [ -n "$kk_v" ]; then
cat <<YAML
  kokkos-kernels:
    externals:
    - spec: kokkos-kernels@$kk_v
      prefix: $kk
    buildable: false
YAML
fi
if [ -n "$gtest_v" ]; then
cat <<YAML
  googletest:
    externals:
    - spec: googletest@$gtest_v
      prefix: $gtest_prefix
    buildable: false
YAML
fi
if [ -n "$mpi_v" ]; then
cat <<YAML
  openmpi:
    externals:
    - spec: openmpi@$mpi_v
      prefix: /usr
    buildable: false
  mpi:
    require: openmpi
YAML
fi
