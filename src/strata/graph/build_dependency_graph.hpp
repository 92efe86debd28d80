#pragma once
// Builds the outgoing-edge CSR of a dependency list on the execution space:
// validate (optionally also the list's order: whether the ids are a
// topological order, in the same reduction), then count (out-degree per
// wave; optionally the in-degrees in the same pass), scan and fill. Host
// backends do the last three bucket by bucket, without a locked instruction
// (detail/csr_by_row_buckets.hpp); device backends use one atomic per
// dependency and a wave-sized fill cursor. No host loop touches waves or
// edges.

#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/scan.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/detail/csr_by_row_buckets.hpp>
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
  /// capacity >= waves on device backends (their fill cursor; host backends
  /// build without one and grow it only on demand)
  Kokkos::View<Offset*, memory_space> cursor;

  void reserve(std::uint64_t wave_count, std::uint64_t dependency_count) {
    reserve_capacity(row_map, wave_count + 1, "outgoing offsets");
    reserve_capacity(entries, dependency_count, "outgoing targets");
    if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible)
      reserve_cursor(wave_count);
  }
  void reserve_cursor(std::uint64_t wave_count) {
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

/// What build_dependency_graph may learn besides the CSR.
template <class ExecSpace, class Offset = DefaultOffset>
struct GraphCounts {
  enum class InDegrees {
    No,
    Yes,               ///< count them in the count pass
    UnlessTopological  ///< count them unless the ids are a topological order
  };
  /// In: learn the list's order (DependencyOrder: whether every dependency
  /// has before < after, and whether the list is sorted by one endpoint), in
  /// the validation pass (one reduction with the validation's).
  bool check_topological = false;
  /// In (with check_topological): build nothing when order.edges_in_order()
  /// (the caller levels the list itself; the returned graph is empty).
  bool skip_if_edges_in_order = false;
  /// In: whether to count every wave's in-degree in the count pass.
  InDegrees in_degrees = InDegrees::No;
  /// In/out: capacity for the in-degrees (grown to wave_count after the
  /// validation, like the storage); its first wave_count entries hold them
  /// when `in_degrees_counted`.
  Kokkos::View<Offset*, typename ExecSpace::memory_space> in_degree;
  /// Out: every dependency has before < after, i.e. the ids are a topological
  /// order (only set when check_topological).
  bool topological = false;
  /// Out: the list's order (only set when check_topological).
  DependencyOrder order;
  /// Out: the CSR was built (false only with skip_if_edges_in_order).
  bool built = false;
  /// Out: in_degree holds the in-degrees.
  bool in_degrees_counted = false;
};

/// The CSR build's two strategies. Host backends partition the list by row
/// into cache-sized buckets and build each bucket on its own, with no locked
/// instruction and a transient spare of one index per dependency
/// (detail/csr_by_row_buckets.hpp; the planner's memory estimate counts it);
/// each row lists its targets in input order on every thread count. Device
/// backends count and fill with one atomic per dependency and a wave-sized
/// cursor.
template <class ExecSpace>
inline constexpr bool csr_by_row_buckets_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

namespace graph::detail {

/// The CSR phases shared by build_dependency_graph and the distributed
/// planner's rank-local graph: count (out-degree per row, and the in-degree
/// of each target into `in_degree` when it is not empty — wave_count
/// entries), scan (row_map), fill. row_of(i) is the row of item i (below
/// wave_count), target_of(i) the entry it stores (below wave_count when
/// in-degrees are counted); nothing is checked.
template <class ExecSpace, class Ordinal, class Offset, class RowOf, class TargetOf>
DependencyGraph<ExecSpace, Ordinal, Offset> build_csr(
    const ExecSpace& space, std::uint64_t wave_count, std::uint64_t dependency_count,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage, const RowOf& row_of,
    const TargetOf& target_of,
    const Kokkos::View<Offset*, typename ExecSpace::memory_space>& in_degree) {
  storage.reserve(wave_count, dependency_count);
  using Graph = DependencyGraph<ExecSpace, Ordinal, Offset>;
  Graph graph;
  graph.row_map = prefix(storage.row_map, wave_count + 1);
  graph.entries = prefix(storage.entries, dependency_count);
  auto row_map = graph.row_map;
  auto entries = graph.entries;
  const std::size_t waves = wave_count;
  const std::size_t edges = dependency_count;
  const bool in_degrees = in_degree.extent(0) != 0;

  if (edges == 0) {
    Kokkos::deep_copy(space, row_map, Offset(0));
    if (in_degrees) Kokkos::deep_copy(space, in_degree, Offset(0));
    return graph;
  }
  if constexpr (csr_by_row_buckets_v<ExecSpace>) {
    build_csr_by_row_buckets<ExecSpace, Ordinal, Offset>(space, waves, edges, row_map, entries,
                                                         row_of, target_of, in_degree);
  } else {
    Kokkos::deep_copy(space, row_map, Offset(0));
    if (in_degrees) Kokkos::deep_copy(space, in_degree, Offset(0));
    // count: row_map(w + 1) = out-degree(w), one atomic per dependency.
    Kokkos::parallel_for(
        "strata::graph::count", Kokkos::RangePolicy<ExecSpace>(space, 0, edges),
        KOKKOS_LAMBDA(const std::size_t i) {
          strata::fetch_add<ExecSpace>(&row_map(row_of(i) + 1), Offset(1));
          if (in_degrees) strata::fetch_add<ExecSpace>(&in_degree(target_of(i)), Offset(1));
        });
    // scan: the degrees become row offsets. No partial sum exceeds
    // dependency_count, which fits Offset (checked by the caller).
    strata::inclusive_scan_in_place(space, row_map, "strata::graph::scan");
    // fill: each dependency claims the next slot of its row.
    storage.reserve_cursor(wave_count);
    auto cursor = prefix(storage.cursor, wave_count);
    Kokkos::deep_copy(space, cursor,
                      Kokkos::subview(row_map, Kokkos::make_pair(std::size_t(0), waves)));
    Kokkos::parallel_for(
        "strata::graph::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, edges),
        KOKKOS_LAMBDA(const std::size_t i) {
          const Offset slot = strata::fetch_add<ExecSpace>(&cursor(row_of(i)), Offset(1));
          entries(slot) = Ordinal(target_of(i));
        });
  }
  return graph;
}

/// build_csr without in-degrees.
template <class ExecSpace, class Ordinal, class Offset, class RowOf, class TargetOf>
DependencyGraph<ExecSpace, Ordinal, Offset> build_csr(
    const ExecSpace& space, std::uint64_t wave_count, std::uint64_t dependency_count,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage, const RowOf& row_of,
    const TargetOf& target_of) {
  return build_csr(space, wave_count, dependency_count, storage, row_of, target_of,
                   Kokkos::View<Offset*, typename ExecSpace::memory_space>());
}
}  // namespace graph::detail

/// The CSR of `item_count` items that the caller has already checked (the
/// public seam for another module's graph, e.g. the distributed planner's
/// rank-local one): item i stores target_of(i) in row row_of(i) (both below
/// wave_count), in the same count / scan / fill phases as
/// build_dependency_graph, into `storage`; nothing is validated. Throws
/// StorageReserveFailed.
template <class ExecSpace, class Ordinal, class Offset, class RowOf, class TargetOf>
DependencyGraph<ExecSpace, Ordinal, Offset> build_unchecked_csr(
    const ExecSpace& space, std::uint64_t wave_count, std::uint64_t item_count,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage, const RowOf& row_of,
    const TargetOf& target_of) {
  return graph::detail::build_csr(space, wave_count, item_count, storage, row_of, target_of);
}

/// Validates `dependencies` and builds their CSR into `storage`. The returned
/// graph's Views alias `storage`. `counts` asks for the ids' order (checked in
/// the validation pass) and the in-degrees (counted in the count pass), see
/// GraphCounts. Throws PlanError (nothing is built then).
template <class ExecSpace, class Ordinal, class Offset, class... P>
DependencyGraph<ExecSpace, Ordinal, Offset> build_dependency_graph(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage,
    GraphCounts<ExecSpace, Offset>& counts) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Kokkos::View<
                                                          const WaveDependency<Ordinal>*,
                                                          P...>::memory_space>::accessible,
                "dependencies must be accessible from the execution space");
  const std::uint64_t dependency_count = dependencies.extent(0);
  check_graph_shape<Ordinal, Offset>(wave_count, dependency_count);
  counts.topological = false;
  counts.in_degrees_counted = false;
  counts.built = false;
  counts.order = DependencyOrder{};
  validate_dependencies(space, wave_count, dependencies,
                        counts.check_topological ? &counts.order : nullptr);
  counts.topological = counts.check_topological && counts.order.ids_topological;
  if (counts.check_topological && counts.skip_if_edges_in_order && counts.order.edges_in_order())
    return DependencyGraph<ExecSpace, Ordinal, Offset>{};
  using Counts = GraphCounts<ExecSpace, Offset>;
  const bool in_degrees =
      counts.in_degrees == Counts::InDegrees::Yes ||
      (counts.in_degrees == Counts::InDegrees::UnlessTopological &&
       !(counts.check_topological && counts.topological));
  Kokkos::View<Offset*, typename ExecSpace::memory_space> in_degree;
  if (in_degrees) {
    reserve_capacity(counts.in_degree, wave_count, "remaining in-degree");
    in_degree = prefix(counts.in_degree, wave_count);
  }
  const auto graph = graph::detail::build_csr(
      space, wave_count, dependency_count, storage,
      KOKKOS_LAMBDA(const std::size_t i) { return dependencies(i).before; },
      KOKKOS_LAMBDA(const std::size_t i) { return dependencies(i).after; }, in_degree);
  counts.in_degrees_counted = in_degrees;
  counts.built = true;
  return graph;
}

/// Validates `dependencies` and builds their CSR into `storage`. The returned
/// graph's Views alias `storage`. Throws PlanError (nothing is built then).
template <class ExecSpace, class Ordinal, class Offset, class... P>
DependencyGraph<ExecSpace, Ordinal, Offset> build_dependency_graph(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage) {
  GraphCounts<ExecSpace, Offset> counts;
  return build_dependency_graph(space, wave_count, dependencies, storage, counts);
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
