#pragma once
// A triangular matrix's rows as a wave dependency list: row i is wave
// row_position(i) (lower: i; upper: rows-1-i, so the rows of an upper
// triangular matrix are planned from the bottom, as its solve runs), and
// every off-diagonal entry (i, j) is the dependency "wave of j before wave of
// i". The list is grouped by the waiting wave, in wave order, so it is
// sorted by `after` and every `before` is below its `after`. It is the
// fallback of sptrsv_symbolic: where the device's one-pass levelling gives
// up (plan_in_edges: a matrix deeper than its depth budget), the rows are
// planned from this list by plan_barriers (count, scan, fill).
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/kokkos_kernels/detail/row_position.hpp>

namespace strata::kokkos_kernels::detail {

/// The dependency list of a valid triangular matrix whatever its diagonals:
/// off-diagonal entries counted per wave, scanned into offsets, then written.
template <class Ordinal, class ExecSpace, class RowMap, class Entries>
Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space> counted_row_dependencies(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, bool lower) {
  using Offsets = Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>;
  using Deps = Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space>;
  const std::uint64_t rows = row_map.extent(0) - 1;
  const Offsets offsets = allocate_view<Offsets>(rows + 1, "sptrsv dependency offsets");
  Kokkos::parallel_for(
      "strata::kokkos_kernels::count_dependencies", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t i) {
        std::uint64_t off_diagonal = 0;
        const std::uint64_t end = row_map(i + 1);
        for (std::uint64_t e = row_map(i); e < end; ++e)
          if (static_cast<std::uint64_t>(entries(e)) != i) ++off_diagonal;
        offsets(row_position(i, rows, lower)) = off_diagonal;
      });
  std::uint64_t total = 0;
  Kokkos::parallel_scan(
      "strata::kokkos_kernels::dependency_offsets",
      Kokkos::RangePolicy<ExecSpace>(space, 0, rows + 1),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& running, const bool final) {
        const std::uint64_t c = w < rows ? offsets(w) : 0;
        if (final) offsets(w) = running;
        running += c;
      },
      total);
  const Deps deps = allocate_view<Deps>(total, "sptrsv row dependencies");
  Kokkos::parallel_for(
      "strata::kokkos_kernels::row_dependencies", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t i) {
        const std::uint64_t after = row_position(i, rows, lower);
        std::uint64_t k = offsets(after);
        const std::uint64_t end = row_map(i + 1);
        for (std::uint64_t e = row_map(i); e < end; ++e) {
          const std::uint64_t col = static_cast<std::uint64_t>(entries(e));
          if (col == i) continue;
          deps(k++) = WaveDependency<Ordinal>{Ordinal(row_position(col, rows, lower)), Ordinal(after)};
        }
      });
  return deps;
}

}  // namespace strata::kokkos_kernels::detail
