#pragma once
// Levels in one pass where the ids are a topological order (every dependency
// goes from a lower to a higher id): visiting the waves in id order, a wave's
// level is final when it is reached — all its predecessors have lower ids and
// have pushed `level + 1` along their out-edges already — so
//
//   level(i) = 1 + max level(pred)        (0 for a wave nothing waits for)
//
// is one pass over the CSR, O(waves + dependencies), with no frontier, no
// in-degrees, no atomics and no barrier: Kokkos Kernels' serial level set
// (lower_tri_symbolic, 4.6), here pushed along the out-edges that
// build_dependency_graph made. The same pass counts the waves of each level,
// so the group offsets are one scan of that histogram, and the plan is laid
// out by the public seam layout_from_levels (plan/layout_from_levels.hpp):
// the identical plan to the layer walk's (Kahn's layers are exactly the
// longest-path levels).
//
// The pass is sequential: one iteration of a kernel on the execution space.
// LaunchPolicy::use_topological_levels keeps it to host backends, where one
// thread walking the graph in memory order beats a layer walk with a barrier
// per layer. Self-contained: it reads a DependencyGraph and writes Views.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>

namespace strata::detail {

/// Whether every row's targets lie above the row, i.e. the ids are a
/// topological order (one reduction over the CSR). A built graph is free of
/// self edges, so `>` and `>=` agree on it.
template <class ExecSpace, class Ordinal, class Offset>
bool csr_ids_topological(const ExecSpace& space,
                         const DependencyGraph<ExecSpace, Ordinal, Offset>& graph) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  unsigned backward = 0;
  Kokkos::parallel_reduce(
      "strata::plan::ids_topological", Kokkos::RangePolicy<ExecSpace>(space, 0, graph.wave_count()),
      KOKKOS_LAMBDA(const std::size_t w, unsigned& back) {
        for (std::size_t e = row_map(w); e < std::size_t(row_map(w + 1)); ++e)
          if (std::size_t(entries(e)) <= w) back = 1;
      },
      Kokkos::Max<unsigned>(backward));
  return backward == 0;
}

struct TopologicalLevels {
  std::uint64_t groups = 0;   ///< deepest level + 1 (0 for no waves)
  std::uint64_t sources = 0;  ///< waves of level 0
};

/// One pass over a graph whose ids are a topological order (the caller
/// checked it): level(w) for every wave, and count(l) = waves of level l for
/// l < groups (`count` holds at least wave_count entries; entries from
/// `groups` on are left zero). Both Views are overwritten.
template <class ExecSpace, class Ordinal, class Offset, class LevelView, class CountView>
TopologicalLevels topological_levels(const ExecSpace& space,
                                     const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                                     const LevelView& level, const CountView& count) {
  TopologicalLevels out;
  const std::size_t waves = graph.wave_count();
  if (waves == 0) return out;
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  using LevelType = typename LevelView::non_const_value_type;
  using CountType = typename CountView::non_const_value_type;
  Kokkos::deep_copy(space, Kokkos::subview(level, Kokkos::make_pair(std::size_t(0), waves)),
                    LevelType(0));
  Kokkos::deep_copy(space, Kokkos::subview(count, Kokkos::make_pair(std::size_t(0), waves)),
                    CountType(0));
  Kokkos::View<std::uint64_t[2], typename ExecSpace::memory_space> result(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::topological levels result"));
  Kokkos::parallel_for(
      "strata::plan::topological_levels", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(const std::size_t) {
        std::uint64_t deepest = 0, sources = 0;
        for (std::size_t w = 0; w < waves; ++w) {
          const LevelType lw = level(w);  // final: every predecessor is below w
          ++count(lw);
          if (lw == 0) ++sources;
          if (lw > deepest) deepest = lw;
          const LevelType next = LevelType(lw + 1);
          const std::size_t end = row_map(w + 1);
          for (std::size_t e = row_map(w); e < end; ++e) {
            const Ordinal t = entries(e);
            if (level(t) < next) level(t) = next;
          }
        }
        result(0) = deepest + 1;
        result(1) = sources;
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result);
  out.groups = host(0);
  out.sources = host(1);
  return out;
}

/// offsets(0) = 0, offsets(l + 1) = count(0) + ... + count(l) for l < groups
/// (offsets holds groups + 1 entries).
template <class ExecSpace, class CountView, class OffsetsView>
void offsets_from_level_counts(const ExecSpace& space, const CountView& count,
                               const OffsetsView& offsets) {
  using T = typename OffsetsView::non_const_value_type;
  const std::size_t groups = offsets.extent(0) == 0 ? 0 : offsets.extent(0) - 1;
  Kokkos::parallel_scan(
      "strata::plan::topological_offsets", Kokkos::RangePolicy<ExecSpace>(space, 0, groups + 1),
      KOKKOS_LAMBDA(const std::size_t l, scan_value_t<T>& running, const bool final) {
        if (final) offsets(l) = T(running);
        if (l < groups) running += count(l);
      });
}

}  // namespace strata::detail
