#pragma once
// The start of every walk: the remaining in-degree of each wave (an atomic
// count over the CSR entries) and layer 0, the waves nobody waits for,
// compacted in ascending order by a scan (compact_sources, public in
// plan/frontier_sources.hpp: distributed planning starts its walk with it).
// Every other wave gets the unreached level.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/frontier_sources.hpp>

namespace strata::detail {

template <class ExecSpace, class Ordinal, class Offset>
void frontier_start(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) {
  const auto entries = s.graph.entries;
  const auto remaining = s.remaining;
  Kokkos::deep_copy(space, remaining, Offset(0));
  Kokkos::parallel_for(
      "strata::plan::in_degree", Kokkos::RangePolicy<ExecSpace>(space, 0, s.dependency_count()),
      KOKKOS_LAMBDA(const std::size_t e) {
        detail::fetch_add<ExecSpace>(&remaining(entries(e)), Offset(1));
      });
  s.begin = 0;
  s.frontier = compact_sources(space, s.wave_count(), remaining, s.order, s.level);
  s.widest = s.frontier;
  s.stats.sources = s.frontier;
}

}  // namespace strata::detail
