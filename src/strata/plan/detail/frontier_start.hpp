#pragma once
// StartStep, the first step of every walk (PlanPolicy::choose_step, rule
// T: unless the ids allow one pass in id order): the remaining in-degree of
// each wave (count_in_degrees, graph/in_degrees.hpp, unless the CSR build
// counted them already) and layer 0, the waves nobody waits for, compacted
// in ascending order by a scan (compact_sources, public in
// plan/frontier_sources.hpp: distributed planning starts its walk with it).
// Every other wave gets the unreached level.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/graph/in_degrees.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/frontier_sources.hpp>

namespace strata::plan::detail {

struct StartStep {
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    if (!s.in_degrees_ready) count_in_degrees(space, s.graph, s.remaining);
    s.in_degrees_ready = true;
    s.begin = 0;
    s.frontier = compact_sources(space, s.wave_count(), s.remaining, s.order, s.level);
    s.widest = s.frontier;
    s.stats.sources = s.frontier;
    s.started = true;
  }
};

}  // namespace strata::plan::detail
