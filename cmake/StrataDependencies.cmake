# Finds Kokkos and Kokkos Kernels and exposes them as two targets with stable
# names, whichever flavour is installed:
#   * a standalone Kokkos (3.4 or 4.x, e.g. from Spack): Kokkos::kokkos, Kokkos::kokkoskernels
#   * Debian's Trilinos-packaged Kokkos 3.4 (libtrilinos-kokkos-dev): plain
#     trilinos_kokkos* targets without include directories (and a broken
#     Kokkos::kokkos).
# Result: Strata::Kokkos and Strata::KokkosKernels, plus STRATA_KOKKOS_DEVICES
# (the enabled backends, upper case: SERIAL;OPENMP;CUDA;HIP).

macro(strata_find_kokkos)
  find_package(Kokkos 3.4 REQUIRED)
  find_package(KokkosKernels REQUIRED)

  # Debian's configs spell their include directory as <cmake dir>/../../../..,
  # which CMake normalises lexically; resolve it on the file system instead.
  foreach(_var Kokkos_INCLUDE_DIRS KokkosKernels_INCLUDE_DIRS)
    set(_resolved)
    foreach(_dir ${${_var}})
      get_filename_component(_dir "${_dir}" REALPATH)
      list(APPEND _resolved "${_dir}")
    endforeach()
    set(${_var} ${_resolved})
  endforeach()

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

  set(STRATA_KOKKOS_DEVICES)
  foreach(_dev SERIAL OPENMP THREADS CUDA HIP SYCL)
    if(Kokkos_ENABLE_${_dev})
      list(APPEND STRATA_KOKKOS_DEVICES ${_dev})
    endif()
  endforeach()
  message(STATUS "Strata: Kokkos ${Kokkos_VERSION} backends: ${STRATA_KOKKOS_DEVICES}")
endmacro()
