#pragma once
// DependencyGraph: compressed sparse rows of the outgoing edges of each wave,
// in plain Kokkos Views (row_map / entries, as Kokkos Kernels' graphs are
// laid out; Kokkos::StaticCrsGraph is deprecated in Kokkos 4.6).
//
// The order of the targets inside one row is unspecified: host backends keep
// the input order (each thread fills whole rows), device backends' atomic fill
// does not. Nothing Strata computes from the graph depends on it.

#include <cstddef>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>

namespace strata {

template <class ExecSpace, class Ordinal = DefaultOrdinal, class Offset = DefaultOffset>
struct DependencyGraph {
  static_assert(is_index_type_v<Ordinal> && is_index_type_v<Offset>,
                "Ordinal and Offset must be unsigned integer types");
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using row_map_type = Kokkos::View<Offset*, memory_space>;
  using entries_type = Kokkos::View<Ordinal*, memory_space>;

  row_map_type row_map;  ///< size wave_count + 1; row_map(w)..row_map(w+1) are w's targets
  entries_type entries;  ///< size dependency_count; the `after` of each edge

  std::size_t wave_count() const { return row_map.extent(0) == 0 ? 0 : row_map.extent(0) - 1; }
  std::size_t dependency_count() const { return entries.extent(0); }
  /// Bytes of the CSR itself (row_map + entries).
  std::size_t bytes() const {
    return row_map.extent(0) * sizeof(Offset) + entries.extent(0) * sizeof(Ordinal);
  }
};

}  // namespace strata
