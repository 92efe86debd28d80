#pragma once
// PlannerScratch: caller-owned, reusable storage for every planning buffer.
// Capacities only grow: planning an equal or smaller shape again allocates
// nothing (the Views keep their data pointers). Only the BarrierPlan that is
// returned is freshly allocated, because the caller owns it; the planner's
// walk writes its scheduled waves straight into the plan's `waves` View
// (handed over, sorted in place at the end), so the scratch holds no
// wave-sized ordinal buffer of its own unless a host one-pass rule counts
// levels in it, chains are contracted with offsets narrower than ordinals,
// or the layout needs a spare of the ordinal type (reserved then).
// What each buffer means during a walk: plan/detail/plan_state.hpp.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/policy/plan_step.hpp>

namespace strata {

namespace plan::detail {
/// Step counters: the starts and sizes of a device-paced step's layers
/// (max_paced_layers + 1 each); the fused and persistent steps use four.
inline constexpr std::size_t step_counter_count = 2 * (max_paced_layers + 1);

/// Radix digits of the stable level sort: 8 bits, so the per-chunk counters
/// stay small on every backend (256 x chunks).
inline constexpr unsigned level_sort_radix_bits = 8;
inline constexpr std::size_t level_sort_buckets = std::size_t(1) << level_sort_radix_bits;

/// Chunks of the stable level sort: one per hardware thread on the host, and
/// enough on a GPU to fill it while each chunk keeps >= 1024 waves.
template <class ExecSpace>
std::size_t level_sort_chunks(const ExecSpace& space, std::uint64_t wave_count) {
  const std::uint64_t by_size = (wave_count + 1023) / 1024;
  const std::uint64_t by_space = static_cast<std::uint64_t>(space.concurrency());
  std::uint64_t chunks = by_size < by_space ? by_size : by_space;
  return chunks == 0 ? 1 : static_cast<std::size_t>(chunks);
}

/// Counters the stable level sort needs for `wave_count` waves (every pass
/// fits them: level_sort_pass_chunks).
template <class ExecSpace>
std::size_t level_sort_counter_count(const ExecSpace& space, std::uint64_t wave_count) {
  return level_sort_buckets * level_sort_chunks(space, wave_count);
}

/// Chunks of one pass of the sort over `digits` distinct digits (256 for
/// every pass but the last; the last, and the only one up to 256 groups, has
/// only as many as the top digit of the deepest level needs). A pass with
/// fewer digits gets proportionally more, shorter chunks — on a GPU,
/// threads, where each chunk is one thread walking its block in order (a
/// 1M-row, 20-level matrix: 12,505 chunks of 80 rows instead of 977 of
/// 1024) — in the counters reserved for level_sort_chunks' count (digits x
/// chunks never exceeds it), never shorter than 32 waves nor more than the
/// space's concurrency (the host: one per thread, as before).
template <class ExecSpace>
std::size_t level_sort_pass_chunks(const ExecSpace& space, std::uint64_t wave_count,
                                   std::uint64_t digits) {
  const std::uint64_t reserved = level_sort_buckets * level_sort_chunks(space, wave_count);
  const std::uint64_t by_counters = reserved / (digits == 0 ? 1 : digits);
  const std::uint64_t by_size = (wave_count + 31) / 32;
  const std::uint64_t by_space = static_cast<std::uint64_t>(space.concurrency());
  std::uint64_t chunks = by_counters < by_size ? by_counters : by_size;
  if (by_space < chunks) chunks = by_space;
  return chunks == 0 ? 1 : static_cast<std::size_t>(chunks);
}
}  // namespace plan::detail

template <class ExecSpace, class Ordinal = DefaultOrdinal, class Offset = DefaultOffset>
class PlannerScratch {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using ordinal_type = Ordinal;
  using offset_type = Offset;

  PlannerScratch() = default;

  /// Scratch that already holds a shape; throws CountOverflow / StorageReserveFailed.
  static PlannerScratch try_with_capacity(std::uint64_t wave_count,
                                          std::uint64_t dependency_count) {
    PlannerScratch scratch;
    scratch.reserve(ExecSpace(), wave_count, dependency_count);
    return scratch;
  }

  /// Grows every buffer to hold the shape; never shrinks.
  void reserve(const ExecSpace& space, std::uint64_t wave_count, std::uint64_t dependency_count) {
    check_graph_shape<Ordinal, Offset>(wave_count, dependency_count);
    graph.reserve(wave_count, dependency_count);
    graph.reserve_cursor(wave_count);  // host backends' CSR build needs none: the release counts
    reserve_capacity(remaining, wave_count, "remaining in-degree");
    // The wave-sized spare ordinals (planner_storage_bytes' `spare`): the
    // level counts / frontier of the policy's rules T and K on hosts, chain
    // links where offsets are narrower than ordinals. A scratch sized here
    // plans that shape without allocating.
    reserve_capacity(order, wave_count, "ready wave layers");
    reserve_capacity(step_counters, plan::detail::step_counter_count, "step counters");
    reserve_capacity(sort_counts, plan::detail::level_sort_counter_count(space, wave_count),
                     "level sort counters");
  }

  /// Grows what every walk over a graph of `wave_count` waves needs beside
  /// the graph itself: the step counters. The wave-sized offsets (release
  /// counts, remaining in-degrees) are grown by the walk before the first
  /// step that reads them (PlanState::bind_buffers_for): the one-pass steps
  /// need fewer. The layout's sort counters are taken at the layout, from
  /// storage the walk left dead where it can (plan_barriers.hpp).
  void reserve_walk(const ExecSpace&, std::uint64_t wave_count) {
    check_graph_shape<Ordinal, Offset>(wave_count, 0);
    reserve_capacity(step_counters, plan::detail::step_counter_count, "step counters");
  }

  /// Grows the in-edge CSR and cursors of the dense and hybrid modes (only
  /// reserved once a bottom-up step runs).
  void reserve_reverse(std::uint64_t wave_count, std::uint64_t dependency_count) {
    reserve_capacity(reverse_row_map, wave_count + 1, "reverse offsets");
    reserve_capacity(reverse_entries, dependency_count, "reverse sources");
    reserve_capacity(in_cursor, wave_count, "in-edge cursors");
  }

  /// Reserves staging for a host dependency array (only used when the
  /// execution space cannot read host memory).
  void reserve_staging(std::uint64_t dependency_count) {
    reserve_capacity(staging, dependency_count, "dependency staging");
  }

  /// Waves every planning buffer can hold without allocating.
  std::size_t wave_capacity() const {
    std::size_t c = graph.row_map.extent(0) == 0 ? 0 : graph.row_map.extent(0) - 1;
    for (std::size_t e : {graph.cursor.extent(0), remaining.extent(0)})
      c = e < c ? e : c;
    return c;
  }
  /// Dependencies the CSR buffer can hold without allocating.
  std::size_t dependency_capacity() const { return graph.entries.extent(0); }

  /// Device bytes currently held.
  std::size_t bytes() const {
    return graph.row_map.span() * sizeof(Offset) + graph.entries.span() * sizeof(Ordinal) +
           graph.cursor.span() * sizeof(Offset) + remaining.span() * sizeof(Offset) +
           order.span() * sizeof(Ordinal) + sort_counts.span() * sizeof(Ordinal) +
           staging.span() * sizeof(WaveDependency<Ordinal>) +
           reverse_row_map.span() * sizeof(Offset) + reverse_entries.span() * sizeof(Ordinal) +
           in_cursor.span() * sizeof(Offset) + step_counters.span() * sizeof(std::uint64_t);
  }

  // The buffers (public so the planner phases and tests can reach them; they
  // hold no invariant beyond their capacity).
  /// CSR + fill cursor (then release counts or chain links)
  DependencyGraphStorage<ExecSpace, Ordinal, Offset> graph;
  /// remaining in-degrees (with the chain distances; then the layout's radix spare);
  /// plan_in_edges' one-byte levels on a host
  Kokkos::View<Offset*, memory_space> remaining;
  /// spare wave-sized ordinals: level counts, chain links where Offset is
  /// narrower than Ordinal, or the layout's radix spare when Offset is not
  /// the ordinal type (reserved only then)
  Kokkos::View<Ordinal*, memory_space> order;
  Kokkos::View<Ordinal*, memory_space> sort_counts;          ///< per-chunk radix counters
  Kokkos::View<WaveDependency<Ordinal>*, memory_space> staging;  ///< host input copied in
  Kokkos::View<Offset*, memory_space> reverse_row_map;   ///< dense: in-edge offsets
  Kokkos::View<Ordinal*, memory_space> reverse_entries;  ///< dense: predecessors
  Kokkos::View<Offset*, memory_space> in_cursor;         ///< dense: in-edges known scheduled
  /// fused: head, tail, pending, processed; device-paced sparse: layer starts and sizes
  Kokkos::View<std::uint64_t*, memory_space> step_counters;
  std::vector<Ordinal> layer_begin;  ///< host: start of each layer (grows with the depth)
};

}  // namespace strata
