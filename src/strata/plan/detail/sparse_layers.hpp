#pragma once
// Sparse mode: top-down Kahn, layer-synchronous. Per layer, two parallel
// phases over the frontier (nothing loops over waves or edges on the host):
//
//   release  every frontier wave decrements the remaining in-degree of its
//            targets atomically; the one decrement that reaches zero releases
//            the target: level(t) = layer + 1, and the releasing edge's index
//            is parked in remaining(t) (no one decrements t again), and the
//            frontier slot counts the targets it released.
//   compact  an exclusive scan over those counts places each released target
//            right behind the current frontier in `order`: the wave that
//            released it writes it, found again by its parked edge index.
//
// The frontiers therefore lie layer after layer in `order`; the host only
// reads each layer's size (the scan total) to decide whether to go on.

#include <cstdint>
#include <limits>
#include <new>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/planner_scratch.hpp>

namespace strata::detail {

/// Level given to waves no layer reached (they sit on a cycle or behind one).
template <class Ordinal>
inline constexpr Ordinal unreached_level = std::numeric_limits<Ordinal>::max();

/// Computes level(w) for every wave reachable from the sources and records
/// the start of each layer in scratch.layer_begin (plus the end of the last).
/// Returns how many waves were scheduled (wave_count unless there is a cycle).
template <class ExecSpace, class Ordinal, class Offset>
std::uint64_t sparse_layers(const ExecSpace& space,
                            const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                            PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                            const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& level) {
  const std::size_t waves = graph.wave_count();
  const std::size_t edges = graph.dependency_count();
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const auto remaining = prefix(scratch.remaining, waves);
  const auto order = prefix(scratch.order, waves);
  const auto released = prefix(scratch.graph.cursor, waves);  // the fill cursor is free now
  constexpr Ordinal unreached = unreached_level<Ordinal>;

  Kokkos::deep_copy(space, remaining, Offset(0));
  Kokkos::parallel_for(
      "strata::plan::in_degree", Kokkos::RangePolicy<ExecSpace>(space, 0, edges),
      KOKKOS_LAMBDA(const std::size_t e) {
        detail::fetch_add<ExecSpace>(&remaining(entries(e)), Offset(1));
      });

  // Layer 0: the waves nobody waits for, ascending.
  scan_value_t<Ordinal> frontier = 0;
  Kokkos::parallel_scan(
      "strata::plan::sources", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& position, const bool final) {
        const bool source = remaining(w) == 0;
        if (final) {
          level(w) = source ? Ordinal(0) : unreached;
          if (source) order(position) = Ordinal(w);
        }
        if (source) ++position;
      },
      frontier);

  auto& layer_begin = scratch.layer_begin;
  layer_begin.clear();
  std::uint64_t begin = 0;
  try {
    layer_begin.push_back(0);
    for (Ordinal layer = 0; frontier != 0; ++layer) {
      const std::size_t first = begin;
      const std::size_t next_first = begin + frontier;
      const Ordinal next_level = layer + 1;
      Kokkos::parallel_for(
          "strata::plan::sparse_release", Kokkos::RangePolicy<ExecSpace>(space, 0, frontier),
          KOKKOS_LAMBDA(const std::size_t i) {
            const Ordinal w = order(first + i);
            Offset count = 0;
            for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
              const Ordinal t = entries(e);
              if (detail::fetch_sub<ExecSpace>(&remaining(t), Offset(1)) == Offset(1)) {
                level(t) = next_level;
                remaining(t) = e;  // park the releasing edge for the compaction
                ++count;
              }
            }
            released(i) = count;
          });
      scan_value_t<Offset> next = 0;
      Kokkos::parallel_scan(
          "strata::plan::sparse_compact", Kokkos::RangePolicy<ExecSpace>(space, 0, frontier),
          KOKKOS_LAMBDA(const std::size_t i, scan_value_t<Offset>& position, const bool final) {
            const Offset count = released(i);
            if (final && count != 0) {
              const Ordinal w = order(first + i);
              std::size_t slot = next_first + position;
              for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
                const Ordinal t = entries(e);
                if (level(t) == next_level && remaining(t) == e) order(slot++) = t;
              }
            }
            position += count;
          },
          next);
      begin = next_first;
      layer_begin.push_back(static_cast<Ordinal>(begin));
      frontier = static_cast<scan_value_t<Ordinal>>(next);
    }
  } catch (const std::bad_alloc& e) {
    throw PlanError::storage_reserve_failed("layer offsets", layer_begin.size() + 1, e.what());
  }
  return begin;
}

}  // namespace strata::detail
