#pragma once
// Kokkos Kernels' own sparse triangular solve, as the interop tests
// (tstKokkosKernels.cpp, tstSolveKokkosKernels.cpp) and the benchmarks that
// compare against it (perf_test/strata_bench, strata_execute_bench,
// strata_sptrsv_bench, strata_solve_bench) call it: the handle type (int
// offsets and columns, double values), the symbolic phase and the solve in
// whichever namespace the Kokkos Kernels version has them
// (KokkosSparse::Experimental:: in 3.x, KokkosSparse:: from 4.6), and a test
// matrix (sptrsv_matrices.hpp) copied to the device.
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_sptrsv.hpp>

#include "sptrsv_matrices.hpp"

namespace strata_sptrsv_test {

template <class ExecSpace, class MemSpace = typename ExecSpace::memory_space>
using KkHandle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, double, ExecSpace,
                                                                  MemSpace, MemSpace>;
using KkAlgorithm = KokkosSparse::Experimental::SPTRSVAlgorithm;

/// Kokkos Kernels' symbolic phase: sptrsv_symbolic(&kh, row_map, entries
/// [, values]).
template <class Handle, class... Views>
void kk_symbolic(Handle& kh, const Views&... views) {
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40600
  KokkosSparse::sptrsv_symbolic(&kh, views...);  // promoted out of Experimental
#else
  KokkosSparse::Experimental::sptrsv_symbolic(&kh, views...);
#endif
}

/// Kokkos Kernels' solve: sptrsv_solve(&kh, row_map, entries, values, b, x).
template <class Handle, class... Views>
void kk_solve(Handle& kh, const Views&... views) {
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40600
  KokkosSparse::sptrsv_solve(&kh, views...);
#else
  KokkosSparse::Experimental::sptrsv_solve(&kh, views...);
#endif
}

/// A host vector on the device (`Mem`: a memory space or a Kokkos::Device).
template <class Mem, class T>
Kokkos::View<T*, Mem> device_copy(const std::vector<T>& v, const std::string& label) {
  Kokkos::View<T*, Mem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()));
  return d;
}

/// A HostCsr on the device.
template <class Mem>
struct DeviceCsr {
  Kokkos::View<int*, Mem> row_map, entries;
  Kokkos::View<double*, Mem> values;

  explicit DeviceCsr(const HostCsr& a)
      : row_map(device_copy<Mem>(a.row_map, "row_map")),
        entries(device_copy<Mem>(a.entries, "entries")),
        values(device_copy<Mem>(a.values, "values")) {}
};

}  // namespace strata_sptrsv_test
