# Finds Kokkos and (optionally) Kokkos Kernels and exposes them as two targets
# with stable names, whichever flavour is installed:
#   * a standalone Kokkos (3.4 or 4.x, e.g. from Spack): Kokkos::kokkos, Kokkos::kokkoskernels
#   * Debian's Trilinos-packaged Kokkos 3.4 (libtrilinos-kokkos-dev): plain
#     trilinos_kokkos* targets without include directories (and a broken
#     Kokkos::kokkos).
# Result: strata_find_kokkos() gives Strata::Kokkos, STRATA_KOKKOS_DEVICES
# (the enabled backends, upper case: SERIAL;OPENMP;CUDA;HIP) and
# STRATA_KOKKOS_SHARED (whether Kokkos' core library is shared);
# strata_find_kokkos_kernels() gives Strata::KokkosKernels (only used with
# STRATA_ENABLE_KOKKOS_KERNELS: the header-only interop <strata/kokkos_kernels/...>,
# its test, example and the benchmarks that compare against Kokkos Kernels).
#
# Strata's own build calls strata_find_kokkos(); the installed StrataConfig.cmake
# calls strata_find_kokkos(CONSUMER HINTS...) so the lookup goes through
# find_dependency (a missing Kokkos makes find_package(Strata) fail with
# Strata_FOUND FALSE, honouring QUIET / REQUIRED) and is steered by hints: the
# directories Strata was built against, then the Strata prefix itself.
# Any Kokkos >= 3.4 is accepted, 4.x included (Kokkos' own version file
# would reject 4.x for a plain "3.4" request: SameMajorVersion).

macro(_strata_resolve_include_dirs _var)
  set(_resolved)
  foreach(_dir ${${_var}})
    get_filename_component(_dir "${_dir}" REALPATH)
    list(APPEND _resolved "${_dir}")
  endforeach()
  set(${_var} ${_resolved})
endmacro()

macro(strata_find_kokkos)
  cmake_parse_arguments(_strata_fk "CONSUMER" "" "KOKKOS_HINTS" ${ARGN})
  if(_strata_fk_CONSUMER)
    include(CMakeFindDependencyMacro)
    find_dependency(Kokkos HINTS ${_strata_fk_KOKKOS_HINTS})
  else()
    find_package(Kokkos REQUIRED)
  endif()
  if(Kokkos_VERSION VERSION_LESS 3.4)
    set(_strata_fk_msg "Strata needs Kokkos >= 3.4, found ${Kokkos_VERSION} in ${Kokkos_DIR}. "
      "Fix: point Kokkos_ROOT (and KokkosKernels_ROOT) at a Kokkos 3.4 or newer install.")
    if(_strata_fk_CONSUMER)
      string(CONCAT Strata_NOT_FOUND_MESSAGE ${_strata_fk_msg})
      set(Strata_FOUND FALSE)
      return()  # from StrataConfig.cmake, which invoked this macro
    endif()
    message(FATAL_ERROR ${_strata_fk_msg})
  endif()

  # Debian's configs spell their include directory as <cmake dir>/../../../..,
  # which CMake normalises lexically; resolve it on the file system instead.
  _strata_resolve_include_dirs(Kokkos_INCLUDE_DIRS)

  if(NOT TARGET Strata::Kokkos)
    add_library(Strata::Kokkos INTERFACE IMPORTED GLOBAL)
    # Debian's Trilinos-packaged config also defines a Kokkos::kokkos, but
    # with a wrong include directory (<prefix>/lib/include): use its plain
    # library list there.
    if(TARGET Kokkos::kokkos AND NOT TARGET trilinos_kokkoscore)
      set_target_properties(Strata::Kokkos PROPERTIES INTERFACE_LINK_LIBRARIES Kokkos::kokkos)
    else()
      set_target_properties(Strata::Kokkos PROPERTIES
        INTERFACE_LINK_LIBRARIES "${Kokkos_LIBRARIES}"
        INTERFACE_INCLUDE_DIRECTORIES "${Kokkos_INCLUDE_DIRS}")
    endif()
  endif()

  # Whether Kokkos' core library is shared (Debian's and bootstrap_deps.sh's
  # are; the CUDA install of docs/gpu-cuda.md is static).
  set(STRATA_KOKKOS_SHARED ON)
  foreach(_target Kokkos::kokkoscore trilinos_kokkoscore)
    if(TARGET ${_target})
      get_target_property(_type ${_target} TYPE)
      if(_type STREQUAL "STATIC_LIBRARY")
        set(STRATA_KOKKOS_SHARED OFF)
      endif()
    endif()
  endforeach()

  set(STRATA_KOKKOS_DEVICES)
  foreach(_dev SERIAL OPENMP THREADS CUDA HIP SYCL)
    if(Kokkos_ENABLE_${_dev})
      list(APPEND STRATA_KOKKOS_DEVICES ${_dev})
    endif()
  endforeach()
  message(STATUS "Strata: Kokkos ${Kokkos_VERSION} backends: ${STRATA_KOKKOS_DEVICES}")
endmacro()

# Kokkos Kernels, after strata_find_kokkos(): REQUIRED in Strata's own build
# (called only when STRATA_ENABLE_KOKKOS_KERNELS is on), find_dependency in
# the installed StrataConfig.cmake (CONSUMER, only when Strata was built with it).
#
# Kokkos Kernels is looked up where Kokkos was found before anywhere else:
# KokkosKernels_ROOT defaults to Kokkos_ROOT, and the prefix of the Kokkos
# found is a hint. Otherwise `-DKokkos_ROOT=<prefix with both>` would take a
# system Kokkos Kernels (Debian's in /usr) built against another Kokkos.
# A Kokkos Kernels built against another Kokkos is refused
# (strata_check_kokkos_kernels_matches_kokkos).
macro(strata_kokkos_kernels_search_defaults)
  if(NOT DEFINED KokkosKernels_ROOT AND NOT DEFINED ENV{KokkosKernels_ROOT})
    if(DEFINED Kokkos_ROOT)
      set(KokkosKernels_ROOT "${Kokkos_ROOT}")
    elseif(DEFINED ENV{Kokkos_ROOT})
      set(KokkosKernels_ROOT "$ENV{Kokkos_ROOT}")
    endif()
  endif()
  # <prefix>/lib*/cmake/Kokkos -> <prefix>: a hint, searched before the system paths
  get_filename_component(STRATA_KOKKOS_PREFIX "${Kokkos_DIR}/../../.." ABSOLUTE)
endmacro()

macro(strata_find_kokkos_kernels)
  cmake_parse_arguments(_strata_fkk "CONSUMER" "" "HINTS" ${ARGN})
  strata_kokkos_kernels_search_defaults()
  if(_strata_fkk_CONSUMER)
    include(CMakeFindDependencyMacro)
    find_dependency(KokkosKernels HINTS ${_strata_fkk_HINTS} "${STRATA_KOKKOS_PREFIX}")
  else()
    find_package(KokkosKernels REQUIRED HINTS "${STRATA_KOKKOS_PREFIX}")
  endif()
  if(KokkosKernels_FOUND)
    strata_check_kokkos_kernels_matches_kokkos()
  endif()
  _strata_resolve_include_dirs(KokkosKernels_INCLUDE_DIRS)
  if(NOT TARGET Strata::KokkosKernels)
    add_library(Strata::KokkosKernels INTERFACE IMPORTED GLOBAL)
    if(TARGET Kokkos::kokkoskernels AND NOT TARGET trilinos_kokkoskernels)
      set_target_properties(Strata::KokkosKernels PROPERTIES INTERFACE_LINK_LIBRARIES Kokkos::kokkoskernels)
    else()
      set_target_properties(Strata::KokkosKernels PROPERTIES
        INTERFACE_LINK_LIBRARIES "${KokkosKernels_LIBRARIES}"
        INTERFACE_INCLUDE_DIRECTORIES "${KokkosKernels_INCLUDE_DIRS}")
    endif()
  endif()
endmacro()

# Kokkos Kernels is built against one Kokkos, and its version follows that
# Kokkos' (Kokkos Kernels 4.6.x needs Kokkos 4.6.x). Mixing two Kokkos in one
# program breaks at link or run time, far from the cause, so:
#   * a version whose major.minor differs from Kokkos' is a configure error;
#   * a standalone Kokkos Kernels names the Kokkos it was built with
#     (find_dependency(Kokkos HINTS <dir>) in its config): another directory
#     than the Kokkos found is a warning (the same version, another install);
#   * an empty version (Debian's Trilinos-packaged Kokkos Kernels records
#     none) cannot be checked: a warning, unless it lives in Kokkos' prefix.
macro(strata_check_kokkos_kernels_matches_kokkos)
  set(_strata_kkc_where "Kokkos Kernels ${KokkosKernels_VERSION} (${KokkosKernels_DIR}) and Kokkos ${Kokkos_VERSION} (${Kokkos_DIR})")
  set(_strata_kkc_fix "Fix: -DKokkosKernels_ROOT=<the Kokkos Kernels built with this Kokkos>, or -DKokkos_ROOT=<the Kokkos this Kokkos Kernels was built with>, or -DSTRATA_ENABLE_KOKKOS_KERNELS=OFF.")
  get_filename_component(_strata_kkc_kk_prefix "${KokkosKernels_DIR}/../../.." REALPATH)
  get_filename_component(_strata_kkc_kokkos_prefix "${Kokkos_DIR}/../../.." REALPATH)
  if("${KokkosKernels_VERSION}" STREQUAL "")
    if(NOT _strata_kkc_kk_prefix STREQUAL _strata_kkc_kokkos_prefix)
      message(WARNING "Strata: ${_strata_kkc_where}: this Kokkos Kernels records no version and lives "
                      "in another prefix than Kokkos, so whether it was built against this Kokkos cannot "
                      "be checked. ${_strata_kkc_fix}")
    endif()
  else()
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" _strata_kkc_kk_mm "${KokkosKernels_VERSION}")
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" _strata_kkc_kokkos_mm "${Kokkos_VERSION}")
    if(NOT _strata_kkc_kk_mm STREQUAL _strata_kkc_kokkos_mm)
      set(_strata_kkc_msg "Strata: ${_strata_kkc_where}: Kokkos Kernels ${_strata_kkc_kk_mm} is built "
                          "against Kokkos ${_strata_kkc_kk_mm}, not ${_strata_kkc_kokkos_mm}. ${_strata_kkc_fix}")
      if(_strata_fkk_CONSUMER)
        string(CONCAT Strata_NOT_FOUND_MESSAGE ${_strata_kkc_msg})
        set(Strata_FOUND FALSE)
        return()  # from StrataConfig.cmake, which invoked this macro
      endif()
      message(FATAL_ERROR ${_strata_kkc_msg})
    endif()
    set(_strata_kkc_config "${KokkosKernels_DIR}/KokkosKernelsConfig.cmake")
    if(EXISTS "${_strata_kkc_config}")
      file(STRINGS "${_strata_kkc_config}" _strata_kkc_line REGEX "find_dependency\\(Kokkos HINTS ")
      if(_strata_kkc_line MATCHES "HINTS +\"?([^\" )]+)")
        get_filename_component(_strata_kkc_recorded "${CMAKE_MATCH_1}" REALPATH)
        get_filename_component(_strata_kkc_found "${Kokkos_DIR}" REALPATH)
        if(NOT _strata_kkc_recorded STREQUAL _strata_kkc_found)
          message(WARNING "Strata: ${_strata_kkc_where}: this Kokkos Kernels was built against the "
                          "Kokkos in ${CMAKE_MATCH_1}, not the one found. ${_strata_kkc_fix}")
        endif()
      endif()
    endif()
  endif()
endmacro()
