#pragma once
// One top-down layer (sparse mode). Two parallel phases over the frontier
// order[first, first + frontier):
//
//   release  every frontier wave decrements the remaining in-degree of its
//            targets atomically; the one decrement that reaches zero releases
//            the target: level(t) = layer + 1, and the releasing edge's index
//            is parked in remaining(t) (nobody decrements t again); the
//            frontier slot counts the targets it released.
//   compact  an exclusive scan over those counts places each released target
//            right behind the frontier: the wave that released it writes it,
//            recognising it by the parked edge index.
//
// Returns the size of the next frontier (the scan total, read by the host).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>

namespace strata::detail {

template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class OrderView,
          class LevelView, class CountView>
std::uint64_t sparse_step(const ExecSpace& space,
                          const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                          const RemainingView& remaining, const OrderView& order,
                          const LevelView& level, const CountView& released, std::size_t first,
                          std::size_t frontier, Ordinal layer) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const std::size_t next_first = first + frontier;
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
  return next;
}

}  // namespace strata::detail
