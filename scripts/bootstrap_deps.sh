#!/usr/bin/env bash
# Installs what Strata's build needs on Debian 12 and builds the Kokkos
# flavours Debian does not ship, caching them outside the clone.
#
#   scripts/bootstrap_deps.sh [serial] [openmp] [openmp-debug]
#
# serial        Debian's libtrilinos-kokkos-dev / -kernels-dev (Kokkos 3.4.01, Serial)
# openmp        Kokkos 3.4.01 + Kokkos Kernels from Debian's trilinos source
#               package, OpenMP + Serial, Release
# openmp-debug  the same with Kokkos_ENABLE_DEBUG and DEBUG_BOUNDS_CHECK
# asan, fuzz    Debian's Kokkos (Serial) plus clang 14 with its sanitizer and
#               libFuzzer runtimes (clang-14, libclang-rt-14-dev, libfuzzer-14-dev)
#
# Prints nothing but progress; the install prefix of a flavour is
# $STRATA_DEPS_DIR/<key> (key = version + options), reused when present.
set -euo pipefail

STRATA_DEPS_DIR=${STRATA_DEPS_DIR:-/var/cache/strata-deps}
TRILINOS_VERSION=13.2.0
KOKKOS_VERSION=3.4.01
flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(serial openmp openmp-debug)

log() { echo "[bootstrap] $*" >&2; }
sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=(cmake g++ make python3 libgtest-dev libbenchmark-dev
              libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev dpkg-dev
              libopenmpi-dev openmpi-bin  # MPI: distributed planning (STRATA_ENABLE_MPI)
              gfortran pkgconf  # the Fortran and pkg-config consumers (scripts/test_install.sh)
              python3-dev pybind11-dev python3-numpy)  # the Python module (openmp config)
for f in "${flavours[@]}"; do
  case "$f" in asan|fuzz) apt_packages+=(clang clang-14 libclang-rt-14-dev libfuzzer-14-dev) ;; esac
done
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  sudo_if_needed apt-get update -qq
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq "${missing[@]}" >/dev/null
fi

trilinos_source() {
  local src="$STRATA_DEPS_DIR/src/Trilinos-trilinos-release-${TRILINOS_VERSION//./-}"
  if [ ! -d "$src/packages/kokkos-kernels" ]; then
    mkdir -p "$STRATA_DEPS_DIR/src"
    if ! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src" /etc/apt/sources.list; then
      log "adding a deb-src line for bookworm"
      sudo_if_needed tee /etc/apt/sources.list.d/strata-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
      sudo_if_needed apt-get update -qq
    fi
    log "fetching Debian's trilinos ${TRILINOS_VERSION} source package"
    (cd "$STRATA_DEPS_DIR/src" && apt-get source --download-only -qq "trilinos=${TRILINOS_VERSION}-4" >/dev/null 2>&1 \
       || apt-get source --download-only -qq trilinos >/dev/null 2>&1)
    log "unpacking packages/kokkos and packages/kokkos-kernels"
    tar -xzf "$STRATA_DEPS_DIR/src/trilinos_${TRILINOS_VERSION}.orig.tar.gz" -C "$STRATA_DEPS_DIR/src" \
      --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  fi
  echo "$src"
}

build_kokkos() {  # key, extra Kokkos options...
  local key=$1; shift
  local prefix="$STRATA_DEPS_DIR/$key"
  if [ -f "$prefix/.complete" ]; then log "$key: cached at $prefix"; return; fi
  local src; src=$(trilinos_source)
  local build="$STRATA_DEPS_DIR/build/$key"
  rm -rf "$build" "$prefix"
  mkdir -p "$STRATA_DEPS_DIR/build"
  log "$key: building Kokkos ${KOKKOS_VERSION}"
  cmake -S "$src/packages/kokkos" -B "$build/kokkos" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON \
    -DKokkos_ENABLE_SERIAL=ON "$@" >"$build.kokkos.log" 2>&1 || { tail -30 "$build.kokkos.log"; exit 1; }
  cmake --build "$build/kokkos" -j"$(nproc)" >>"$build.kokkos.log" 2>&1 || { tail -30 "$build.kokkos.log"; exit 1; }
  cmake --install "$build/kokkos" >>"$build.kokkos.log" 2>&1
  log "$key: building Kokkos Kernels (ETI off)"
  cmake -S "$src/packages/kokkos-kernels" -B "$build/kernels" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" -DBUILD_SHARED_LIBS=ON \
    -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_INST_DOUBLE=OFF \
    -DKokkosKernels_INST_OFFSET_SIZE_T=OFF -DKokkosKernels_INST_OFFSET_INT=OFF \
    -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_LAYOUTLEFT=OFF \
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF >"$build.kernels.log" 2>&1 || { tail -30 "$build.kernels.log"; exit 1; }
  cmake --build "$build/kernels" -j"$(nproc)" >>"$build.kernels.log" 2>&1 || { tail -30 "$build.kernels.log"; exit 1; }
  cmake --install "$build/kernels" >>"$build.kernels.log" 2>&1
  rm -rf "$build"
  touch "$prefix/.complete"
  log "$key: installed at $prefix"
}

for f in "${flavours[@]}"; do
  case "$f" in
    serial|asan|fuzz) ;;  # Debian's packages, installed above
    openmp) build_kokkos "kokkos-${KOKKOS_VERSION}-openmp-release" -DKokkos_ENABLE_OPENMP=ON ;;
    openmp-debug) build_kokkos "kokkos-${KOKKOS_VERSION}-openmp-boundscheck" -DKokkos_ENABLE_OPENMP=ON \
                    -DKokkos_ENABLE_DEBUG=ON -DKokkos_ENABLE_DEBUG_BOUNDS_CHECK=ON ;;
    *) echo "bootstrap_deps.sh: unknown flavour '$f' (serial, openmp, openmp-debug, asan, fuzz)" >&2; exit 2 ;;
  esac
done
