#pragma once
// Builds the outgoing-edge CSR of a dependency list on the execution space, in
// four parallel phases: validate, count (atomic out-degree per wave), scan
// (row_map), fill (atomic cursor per row). No host loop touches waves or edges.

#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/scan.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/validate_dependencies.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata {

/// Reusable storage behind a DependencyGraph: capacities only grow, so
/// building an equal or smaller graph again allocates nothing.
template <class ExecSpace, class Ordinal = DefaultOrdinal, class Offset = DefaultOffset>
struct DependencyGraphStorage {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<Offset*, memory_space> row_map;  // capacity >= waves + 1
  Kokkos::View<Ordinal*, memory_space> entries;  // capacity >= dependencies
  Kokkos::View<Offset*, memory_space> cursor;    // capacity >= waves (fill cursor)

  void reserve(std::uint64_t wave_count, std::uint64_t dependency_count) {
    reserve_capacity(row_map, wave_count + 1, "outgoing offsets");
    reserve_capacity(entries, dependency_count, "outgoing targets");
    reserve_capacity(cursor, wave_count, "outgoing target cursor");
  }
};

/// Checks that a shape fits the ordinal and offset types (CountOverflow otherwise).
template <class Ordinal, class Offset>
void check_graph_shape(std::uint64_t wave_count, std::uint64_t dependency_count) {
  checked_count<Ordinal>(wave_count, "wave count");
  checked_count<Offset>(dependency_count, "dependency count");
  if (wave_count == std::numeric_limits<std::uint64_t>::max())
    throw PlanError::count_overflow("outgoing offsets (wave count + 1)");
}

namespace detail {
/// The CSR phases shared by build_dependency_graph and the distributed
/// planner's rank-local graph: count (atomic out-degree per row), scan
/// (row_map), fill (atomic cursor per row). row_of(i) is the row of item i
/// (below wave_count), target_of(i) the entry it stores; nothing is checked.
template <class ExecSpace, class Ordinal, class Offset, class RowOf, class TargetOf>
DependencyGraph<ExecSpace, Ordinal, Offset> build_csr(
    const ExecSpace& space, std::uint64_t wave_count, std::uint64_t dependency_count,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage, const RowOf& row_of,
    const TargetOf& target_of) {
  storage.reserve(wave_count, dependency_count);
  using Graph = DependencyGraph<ExecSpace, Ordinal, Offset>;
  Graph graph;
  graph.row_map = prefix(storage.row_map, wave_count + 1);
  graph.entries = prefix(storage.entries, dependency_count);
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  auto cursor = prefix(storage.cursor, wave_count);
  const std::size_t waves = wave_count;
  const std::size_t edges = dependency_count;

  Kokkos::deep_copy(space, row_map, Offset(0));
  if (edges == 0) return graph;

  // count: row_map(w + 1) = out-degree(w)
  Kokkos::parallel_for(
      "strata::graph::count", Kokkos::RangePolicy<ExecSpace>(space, 0, edges),
      KOKKOS_LAMBDA(const std::size_t i) {
        detail::fetch_add<ExecSpace>(&row_map(row_of(i) + 1), Offset(1));
      });
  // scan: inclusive prefix sum turns the shifted degrees into row offsets.
  // No partial sum exceeds dependency_count, which fits Offset (checked by the caller).
  detail::inclusive_scan_in_place(space, row_map, "strata::graph::scan");
  // fill: each dependency claims the next slot of its row.
  Kokkos::deep_copy(space, cursor, Kokkos::subview(row_map, Kokkos::make_pair(std::size_t(0), waves)));
  Kokkos::parallel_for(
      "strata::graph::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, edges),
      KOKKOS_LAMBDA(const std::size_t i) {
        const Offset slot = detail::fetch_add<ExecSpace>(&cursor(row_of(i)), Offset(1));
        entries(slot) = Ordinal(target_of(i));
      });
  return graph;
}
}  // namespace detail

/// Validates `dependencies` and builds their CSR into `storage`. The returned
/// graph's Views alias `storage`. Throws PlanError (nothing is built then).
template <class ExecSpace, class Ordinal, class Offset, class... P>
DependencyGraph<ExecSpace, Ordinal, Offset> build_dependency_graph(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Kokkos::View<
                                                          const WaveDependency<Ordinal>*,
                                                          P...>::memory_space>::accessible,
                "dependencies must be accessible from the execution space");
  const std::uint64_t dependency_count = dependencies.extent(0);
  check_graph_shape<Ordinal, Offset>(wave_count, dependency_count);
  validate_dependencies(space, wave_count, dependencies);

  return detail::build_csr(
      space, wave_count, dependency_count, storage,
      KOKKOS_LAMBDA(const std::size_t i) { return dependencies(i).before; },
      KOKKOS_LAMBDA(const std::size_t i) { return dependencies(i).after; });
}

/// Convenience: builds a graph into freshly allocated storage.
template <class ExecSpace, class Ordinal, class Offset = DefaultOffset, class... P>
DependencyGraph<ExecSpace, Ordinal, Offset> make_dependency_graph(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies) {
  DependencyGraphStorage<ExecSpace, Ordinal, Offset> storage;
  return build_dependency_graph(space, wave_count, dependencies, storage);
}

}  // namespace strata
