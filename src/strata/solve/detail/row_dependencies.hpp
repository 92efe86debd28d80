#pragma once
// The rows of a checked triangular matrix as a dependency list, for the
// planner's general entry point (plan_barriers): used where the device's
// in-edge pass gives up on a very deep matrix (plan_in_edges returns
// nothing). Wave w is row w (lower) or row rows-1-w (upper, levelled from
// the bottom); every off-diagonal entry (row r, column c) is the dependency
// wave(c) -> wave(r). Count, scan, fill: three parallel passes.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/storage.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/solve/triangle.hpp>

namespace strata::solve::detail {

template <class Ordinal, class ExecSpace, class RowMap, class Entries>
Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space> row_dependencies(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, Triangle triangle) {
  using Mem = typename ExecSpace::memory_space;
  const std::uint64_t rows = row_map.extent(0) - 1;
  const bool lower = triangle == Triangle::Lower;
  const auto start = allocate_view<Kokkos::View<std::uint64_t*, Mem>>(rows + 1, "solve::dependency_offsets");
  Kokkos::parallel_scan(
      "strata::solve::count_dependencies", Kokkos::RangePolicy<ExecSpace>(space, 0, rows + 1),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& sum, const bool final) {
        if (final) start(i) = sum;
        if (i == rows) return;
        std::uint64_t off_diagonal = 0;
        for (auto e = row_map(i); e < row_map(i + 1); ++e)
          off_diagonal += static_cast<std::uint64_t>(entries(e)) != i ? 1u : 0u;
        sum += off_diagonal;
      });
  std::uint64_t total = 0;
  Kokkos::deep_copy(space, total, Kokkos::subview(start, rows));
  space.fence();
  using List = Kokkos::View<WaveDependency<Ordinal>*, Mem>;
  const List list = allocate_view<List>(total, "solve::row_dependencies");
  Kokkos::parallel_for(
      "strata::solve::fill_dependencies", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t i) {
        std::uint64_t at = start(i);
        const auto wave = [&](std::uint64_t r) { return Ordinal(lower ? r : rows - 1 - r); };
        for (auto e = row_map(i); e < row_map(i + 1); ++e) {
          const std::uint64_t c = static_cast<std::uint64_t>(entries(e));
          if (c != i) list(at++) = WaveDependency<Ordinal>{wave(c), wave(i)};
        }
      });
  return list;
}

}  // namespace strata::solve::detail
