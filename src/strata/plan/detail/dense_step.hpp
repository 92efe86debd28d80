#pragma once
// BottomUpStep: one bottom-up layer over a reverse (in-edge) CSR, in the
// manner of direction-optimising BFS (Beamer et al.). A wave joins layer L + 1
// when all its predecessors sit in layers <= L. Each unscheduled wave keeps a
// cursor into its in-edges: predecessors before the cursor are known
// scheduled, so every in-edge is passed once over the whole plan and no
// atomics are needed.
//
//   reverse_csr   (first bottom-up step) in-edge CSR of the forward graph:
//                 count, scan, fill
//   advance       one parallel_scan over all waves: advance cursors, and
//                 compact the waves that joined, ascending, behind the frontier
//
// Bottom-up layers take nothing from `remaining`: the state records that their
// out-edges are owed, and the next step that reads `remaining` pays them
// (PlanState::pay_owed_edges; no wave is released by that).
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
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

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
        strata::fetch_add<ExecSpace>(&rrow(entries(e) + 1), Offset(1));
      });
  strata::inclusive_scan_in_place(space, rrow, "strata::plan::reverse_scan");
  Kokkos::deep_copy(space, cursor, Kokkos::subview(rrow, Kokkos::make_pair(std::size_t(0), waves)));
  Kokkos::parallel_for(
      "strata::plan::reverse_fill", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w) {
        for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
          const Offset slot = strata::fetch_add<ExecSpace>(&cursor(entries(e)), Offset(1));
          rentries(slot) = Ordinal(w);
        }
      });
  // The fill moved every cursor to the end of its row; rewind to the start.
  Kokkos::deep_copy(space, cursor, Kokkos::subview(rrow, Kokkos::make_pair(std::size_t(0), waves)));
}

struct BottomUpStep {
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    if (s.reserve_reverse()) reverse_csr(space, s.graph, s.reverse, s.in_cursor);
    if (!s.owes_edges) {
      s.owes_edges = true;
      s.owed_from = s.begin;
    }
    const auto rrow = s.reverse.row_map;
    const auto rentries = s.reverse.entries;
    const auto cursor = s.in_cursor;
    const auto level = s.level;
    const auto order = s.order;
    constexpr Ordinal unreached = unreached_level<Ordinal>;
    const Ordinal layer = s.layer;
    const Ordinal next_level = layer + 1;
    const std::size_t next_first = s.begin + s.frontier;
    scan_value_t<Ordinal> joined = 0;
    // The functor may run twice per wave (a scan's two passes): advancing the
    // cursor is idempotent, and a predecessor that joins in this very step has
    // level next_level > layer, so both passes decide alike.
    Kokkos::parallel_scan(
        "strata::plan::dense_step", Kokkos::RangePolicy<ExecSpace>(space, 0, s.wave_count()),
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
    s.bottom_up_scanned += s.wave_count();
    ++s.stats.dense_layers;
    s.close_layer(joined);
  }
};

}  // namespace strata::plan::detail
