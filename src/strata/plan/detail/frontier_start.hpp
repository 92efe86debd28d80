#pragma once
// Start of every mode: remaining in-degree of each wave (atomic count over
// the CSR entries) and layer 0, the waves nobody waits for, compacted in
// ascending order by a scan (compact_sources, public in
// plan/frontier_sources.hpp: distributed planning starts its walk with it).
// Every other wave gets the unreached level.
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/frontier_sources.hpp>

namespace strata::detail {

template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class OrderView,
          class LevelView>
std::uint64_t frontier_start(const ExecSpace& space,
                             const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                             const RemainingView& remaining, const OrderView& order,
                             const LevelView& level) {
  const std::size_t waves = graph.wave_count();
  const auto entries = graph.entries;
  Kokkos::deep_copy(space, remaining, Offset(0));
  Kokkos::parallel_for(
      "strata::plan::in_degree", Kokkos::RangePolicy<ExecSpace>(space, 0, graph.dependency_count()),
      KOKKOS_LAMBDA(const std::size_t e) {
        detail::fetch_add<ExecSpace>(&remaining(entries(e)), Offset(1));
      });
  return compact_sources(space, waves, remaining, order, level);
}

}  // namespace strata::detail
