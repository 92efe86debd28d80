#pragma once
// In-place inclusive prefix sum of a rank-1 View on an execution space: turns
// per-slot counts stored one slot to the right (counts(i + 1) = count of i,
// counts(0) = 0) into CSR-style offsets. Used by the CSR builds and the
// group offsets. Each element is read and written by its own iteration only,
// so the in-place scan is safe on every backend.
#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>

namespace strata {

template <class ExecSpace, class View>
void inclusive_scan_in_place(const ExecSpace& space, const View& values, const char* label) {
  using T = typename View::non_const_value_type;
  // Kokkos 3.4's OpenMP backend initialised with 0 threads (--kokkos-threads=0,
  // KOKKOS_NUM_THREADS=0) has a pool of 0 threads and no reduction scratch:
  // its parallel_scan dereferences null. The scan is the first reduction of
  // every planning path, so a typed error here replaces the SIGSEGV.
  if (space.concurrency() < 1)
    throw PlanError::invalid_argument(
        std::string("the execution space ") + ExecSpace::name() + " reports concurrency " +
            std::to_string(space.concurrency()) + " (Kokkos initialised with 0 threads)",
        "initialise Kokkos with at least one thread (--kokkos-threads=N or KOKKOS_NUM_THREADS=N, "
        "N >= 1)");
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<ExecSpace>(space, 0, values.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, scan_value_t<T>& running, const bool final) {
        running += values(i);
        if (final) values(i) = T(running);
      });
}

}  // namespace strata
