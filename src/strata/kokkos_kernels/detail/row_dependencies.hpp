#pragma once
// A triangular matrix's rows as a wave dependency list: row i is wave
// row_position(i) (lower: i; upper: rows-1-i, so the rows of an upper
// triangular matrix are planned from the bottom, as its solve runs), and
// every off-diagonal entry (i, j) is the dependency "wave of j before wave of
// i". The list is written grouped by the waiting wave, in wave order, so it
// is sorted by `after` and every `before` is below its `after`: the planner
// learns in its validation pass that the ids are a topological order (on a
// host backend it then levels the list in one pass and builds no CSR).
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/kokkos_kernels/detail/triangle_check.hpp>

namespace strata::kokkos_kernels::detail {

/// counts(0..rows-1) = off-diagonal entries per wave (first_row_defect's
/// output) in, exclusive offsets out (counts(rows) = the total). Returns the
/// total.
template <class ExecSpace, class Counts>
std::uint64_t offsets_from_counts(const ExecSpace& space, const Counts& counts) {
  const std::size_t rows = counts.extent(0) - 1;
  std::uint64_t total = 0;
  Kokkos::parallel_scan(
      "strata::kokkos_kernels::dependency_offsets",
      Kokkos::RangePolicy<ExecSpace>(space, 0, rows + 1),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& running, const bool final) {
        const std::uint64_t c = w < rows ? std::uint64_t(counts(w)) : 0;
        if (final) counts(w) = typename Counts::non_const_value_type(running);
        running += c;
      },
      total);
  return total;
}

/// The dependency list of a valid triangular matrix (offsets from
/// offsets_from_counts).
template <class Ordinal, class ExecSpace, class RowMap, class Entries, class Offsets>
Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space> row_dependencies(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, bool lower,
    const Offsets& offsets, std::uint64_t dependency_count) {
  using Deps = Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space>;
  const Deps deps = allocate_view<Deps>(dependency_count, "sptrsv row dependencies");
  const std::uint64_t rows = row_map.extent(0) - 1;
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
