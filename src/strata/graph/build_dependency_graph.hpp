#pragma once
// Builds the outgoing-edge CSR of a dependency list on the execution space, in
// four parallel phases: validate (optionally also the list's order: whether
// the ids are a topological order, in the same reduction), count (out-degree
// per wave; optionally the in-degrees, in the same pass), scan (row_map),
// fill. Host backends count and fill without a locked instruction (each
// thread owns a part of the rows, detail::csr_by_owner_v), with the row
// offsets as their own fill cursor (no wave-sized cursor) and software
// prefetch of the scattered counters and slots; device backends use one
// atomic per dependency and a cursor. No host loop touches waves or edges.

#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/prefetch.hpp>
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
  /// capacity >= waves on device backends (their fill cursor; host backends
  /// fill with the row offsets as the cursor and grow it only on demand)
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

namespace detail {

/// The CSR build's two strategies. Host backends give each thread a part of
/// the rows (and of the in-degrees) that it alone writes: every thread reads
/// the whole dependency list and skips what it does not own, so no store is
/// a locked instruction and each row lists its targets in input order (the
/// same order on every thread count). Device backends count and fill with
/// one atomic per dependency (reading the list once per thread would not
/// scale to thousands of threads).
template <class ExecSpace>
inline constexpr bool csr_by_owner_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

/// Parts of the rows on a host backend: one per hardware thread, none empty.
template <class ExecSpace>
std::size_t csr_owner_parts(const ExecSpace& space, std::uint64_t wave_count) {
  std::uint64_t parts = static_cast<std::uint64_t>(space.concurrency());
  if (parts > wave_count) parts = wave_count;
  return parts == 0 ? 1 : static_cast<std::size_t>(parts);
}

/// First row of part p of `parts` equal parts of [0, n).
KOKKOS_INLINE_FUNCTION std::uint64_t even_part_begin(std::uint64_t n, std::uint64_t parts,
                                                     std::uint64_t p) {
  const std::uint64_t q = n / parts, r = n % parts;
  return q * p + (p < r ? p : r);
}

/// The first row r in [0, n] with row_map(r) >= target (row_map nondecreasing).
template <class RowMap>
KOKKOS_INLINE_FUNCTION std::uint64_t first_row_at(const RowMap& row_map, std::uint64_t n,
                                                  std::uint64_t target) {
  std::uint64_t lo = 0, hi = n;  // answer in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (std::uint64_t(row_map(mid)) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

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

  if (edges == 0 || !csr_by_owner_v<ExecSpace>) {
    Kokkos::deep_copy(space, row_map, Offset(0));
    if (in_degrees) Kokkos::deep_copy(space, in_degree, Offset(0));
  }
  if (edges == 0) return graph;

  if (csr_by_owner_v<ExecSpace>) {
    // The row offsets are their own fill cursor (no wave-sized cursor):
    // the count puts row w's degree at row_map(w + 2), so that after the
    // scan row_map(w + 1) is the start of row w; the fill advances
    // row_map(w + 1) past each entry it writes, leaving the end of row w,
    // i.e. the start of row w + 1, there. row_map(0) stays 0.
    //
    // count: part p owns rows (and in-degrees) [begin, end), i.e.
    // row_map(begin + 2 .. end + 1): it zeroes those counters, then counts
    // with plain increments (the last row's degree is never needed).
    const std::size_t parts = csr_owner_parts(space, waves);
    Kokkos::parallel_for(
        "strata::graph::count_owned", Kokkos::RangePolicy<ExecSpace>(space, 0, parts),
        KOKKOS_LAMBDA(const std::size_t p) {
          const std::uint64_t begin = even_part_begin(waves, parts, p);
          const std::uint64_t end = even_part_begin(waves, parts, p + 1);
          const std::uint64_t span = end - begin;
          if (p == 0) {
            row_map(0) = 0;
            row_map(1) = 0;
          }
          for (std::uint64_t w = begin; w < end; ++w) {
            if (w + 2 <= waves) row_map(w + 2) = 0;
            if (in_degrees) in_degree(w) = 0;
          }
          // Branch-free ownership (a shuffled list makes it a coin flip): a
          // dependency this part does not own counts into `sink`, and so
          // does the last row's. The counters of dependency
          // i + prefetch_distance are prefetched (the loop is bound by
          // those scattered misses).
          Offset sink = 0;
          const std::uint64_t counted = waves - 1;  // rows whose degree is stored
          const std::size_t last = edges - 1;
          for (std::size_t i = 0; i < edges; ++i) {
            const std::size_t ahead = i + prefetch_distance < last ? i + prefetch_distance : last;
            const std::uint64_t next_row = row_of(ahead);
            prefetch_write(next_row - begin < span && next_row < counted ? &row_map(next_row + 2)
                                                                        : &sink);
            const std::uint64_t row = row_of(i);
            Offset* const out = row - begin < span && row < counted ? &row_map(row + 2) : &sink;
            ++*out;
            if (in_degrees) {
              const std::uint64_t next_t = target_of(ahead);
              prefetch_write(next_t - begin < span ? &in_degree(next_t) : &sink);
              const std::uint64_t t = target_of(i);
              Offset* const in = t - begin < span ? &in_degree(t) : &sink;
              ++*in;
            }
          }
        });
  } else {
    // count: row_map(w + 1) = out-degree(w), one atomic per dependency.
    Kokkos::parallel_for(
        "strata::graph::count", Kokkos::RangePolicy<ExecSpace>(space, 0, edges),
        KOKKOS_LAMBDA(const std::size_t i) {
          strata::fetch_add<ExecSpace>(&row_map(row_of(i) + 1), Offset(1));
          if (in_degrees) strata::fetch_add<ExecSpace>(&in_degree(target_of(i)), Offset(1));
        });
  }
  // scan: inclusive prefix sum turns the shifted degrees into row offsets
  // (on host backends, into row starts shifted by one: see above).
  // No partial sum exceeds dependency_count, which fits Offset (checked by the caller).
  strata::inclusive_scan_in_place(space, row_map, "strata::graph::scan");
  if (csr_by_owner_v<ExecSpace>) {
    // fill: part p owns the rows holding dependencies [E p / P, E (p+1) / P)
    // (whole rows, found by a binary search over the row starts before any
    // part moves them), and fills them in input order.
    const std::size_t parts = csr_owner_parts(space, waves);
    Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> bounds(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::graph::fill bounds"), parts + 1);
    const auto starts = Kokkos::subview(row_map, Kokkos::make_pair(std::size_t(1), waves + 1));
    Kokkos::parallel_for(
        "strata::graph::fill_bounds", Kokkos::RangePolicy<ExecSpace>(space, 0, parts + 1),
        KOKKOS_LAMBDA(const std::size_t p) {
          bounds(p) = p == 0       ? 0
                      : p == parts ? waves
                                   : first_row_at(starts, waves, even_part_begin(edges, parts, p));
        });
    Kokkos::parallel_for(
        "strata::graph::fill_owned", Kokkos::RangePolicy<ExecSpace>(space, 0, parts),
        KOKKOS_LAMBDA(const std::size_t p) {
          const std::uint64_t begin = bounds(p);
          const std::uint64_t end = bounds(p + 1);
          if (begin >= end) return;
          const std::uint64_t span = end - begin;
          // Branch-free ownership: a dependency of another part's row claims
          // slot 0 of `sink` and writes into `spare`. Two-stage prefetch:
          // the cursor of dependency i + 2d, then (read from the now cached
          // cursor) the slot of dependency i + d.
          Offset sink = 0;
          Ordinal spare = 0;
          const std::size_t last = edges - 1;
          Ordinal* const slots = entries.data();
          for (std::size_t i = 0; i < edges; ++i) {
            {
              const std::size_t far =
                  i + 2 * prefetch_distance < last ? i + 2 * prefetch_distance : last;
              const std::uint64_t far_row = row_of(far);
              prefetch_read(far_row - begin < span ? &row_map(far_row + 1) : &sink);
              const std::size_t near = i + prefetch_distance < last ? i + prefetch_distance : last;
              const std::uint64_t near_row = row_of(near);
              const bool near_own = near_row - begin < span;
              const Offset near_slot = *(near_own ? &row_map(near_row + 1) : &sink);
              prefetch_write(near_own ? slots + near_slot : &spare);
            }
            const std::uint64_t row = row_of(i);
            const bool own = row - begin < span;
            Offset* const c = own ? &row_map(row + 1) : &sink;
            const Offset slot = *c;
            *c = own ? Offset(slot + 1) : Offset(0);
            Ordinal* const to = own ? &entries(slot) : &spare;
            *to = Ordinal(target_of(i));
          }
        });
  } else {
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
}  // namespace detail

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
  return detail::build_csr(space, wave_count, item_count, storage, row_of, target_of);
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
  const auto graph = detail::build_csr(
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
