#pragma once
// Dense mode: bottom-up layers over a reverse (in-edge) CSR, in the manner of
// direction-optimising BFS (Beamer et al.). A wave joins layer L + 1 when all
// its predecessors sit in layers <= L. Each unscheduled wave keeps a cursor
// into its in-edges: predecessors before the cursor are known scheduled, so
// every in-edge is passed once over the whole plan and no atomics are needed.
//
//   reverse_csr   in-edge CSR of the forward graph (count, scan, fill)
//   dense_step    one parallel_scan over all waves: advance cursors, and
//                 compact the waves that joined, ascending, behind the frontier
//   catch_up      when the hybrid planner returns to top-down steps, the
//                 remaining in-degrees still owe the edges of the bottom-up
//                 layers: decrement them (no wave is released by this)
//
// Kokkos Kernels' transpose_graph would build the same reverse CSR, but it
// allocates a work array on every call and changed namespace and signature
// between 3.4 and 4.x; this build reuses the planner scratch.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/scan.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/frontier_start.hpp>

namespace strata::detail {

/// In-edges of `graph` into `reverse` (whose Views are sized V + 1 and E), and
/// each wave's cursor set to the start of its in-edges.
template <class ExecSpace, class Ordinal, class Offset, class CursorView>
void reverse_csr(const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                 const DependencyGraph<ExecSpace, Ordinal, Offset>& reverse,
                 const CursorView& cursor) {
  const std::size_t waves = graph.wave_count();
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const auto rrow = reverse.row_map;
  const auto rentries = reverse.entries;
  Kokkos::deep_copy(space, rrow, Offset(0));
  Kokkos::parallel_for(
      "strata::plan::reverse_count", Kokkos::RangePolicy<ExecSpace>(space, 0, graph.dependency_count()),
      KOKKOS_LAMBDA(const std::size_t e) {
        detail::fetch_add<ExecSpace>(&rrow(entries(e) + 1), Offset(1));
      });
  detail::inclusive_scan_in_place(space, rrow, "strata::plan::reverse_scan");
  Kokkos::deep_copy(space, cursor, Kokkos::subview(rrow, Kokkos::make_pair(std::size_t(0), waves)));
  Kokkos::parallel_for(
      "strata::plan::reverse_fill", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w) {
        for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
          const Offset slot = detail::fetch_add<ExecSpace>(&cursor(entries(e)), Offset(1));
          rentries(slot) = Ordinal(w);
        }
      });
  // The fill moved every cursor to the end of its row; rewind to the start.
  Kokkos::deep_copy(space, cursor, Kokkos::subview(rrow, Kokkos::make_pair(std::size_t(0), waves)));
}

/// Layer L + 1 from layers <= L, written ascending at order[next_first...).
template <class ExecSpace, class Ordinal, class Offset, class CursorView, class OrderView,
          class LevelView>
std::uint64_t dense_step(const ExecSpace& space,
                         const DependencyGraph<ExecSpace, Ordinal, Offset>& reverse,
                         const CursorView& cursor, const OrderView& order, const LevelView& level,
                         std::size_t next_first, Ordinal layer) {
  const auto rrow = reverse.row_map;
  const auto rentries = reverse.entries;
  constexpr Ordinal unreached = unreached_level<Ordinal>;
  const Ordinal next_level = layer + 1;
  scan_value_t<Ordinal> joined = 0;
  // The functor may run twice per wave (a scan's two passes): advancing the
  // cursor is idempotent, and a predecessor that joins in this very step has
  // level next_level > layer, so both passes decide alike.
  Kokkos::parallel_scan(
      "strata::plan::dense_step", Kokkos::RangePolicy<ExecSpace>(space, 0, reverse.wave_count()),
      KOKKOS_LAMBDA(const std::size_t v, scan_value_t<Ordinal>& position, const bool final) {
        if (level(v) != unreached) return;
        Offset c = cursor(v);
        const Offset end = rrow(v + 1);
        while (c < end) {
          const Ordinal p = level(rentries(c));
          if (p == unreached || p > layer) break;
          ++c;
        }
        cursor(v) = c;
        if (c != end) return;
        if (final) {
          level(v) = next_level;
          order(next_first + position) = Ordinal(v);
        }
        ++position;
      },
      joined);
  return joined;
}

/// Decrements the remaining in-degree owed by the waves order[from, to).
template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class OrderView>
void catch_up(const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
              const RemainingView& remaining, const OrderView& order, std::size_t from,
              std::size_t to) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  Kokkos::parallel_for(
      "strata::plan::catch_up", Kokkos::RangePolicy<ExecSpace>(space, from, to),
      KOKKOS_LAMBDA(const std::size_t i) {
        const Ordinal w = order(i);
        for (Offset e = row_map(w); e < row_map(w + 1); ++e)
          detail::fetch_sub<ExecSpace>(&remaining(entries(e)), Offset(1));
      });
}

}  // namespace strata::detail
