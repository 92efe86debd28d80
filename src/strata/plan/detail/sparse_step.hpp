#pragma once
// TopDownStep: one top-down layer (sparse mode). Two parallel phases over the
// frontier order[begin, begin + frontier):
//
//   release  every frontier wave takes its edges from its targets' remaining
//            in-degrees (release.hpp): the last edge releases a target into
//            layer + 1 and is parked in remaining(target); released(i) counts
//            the targets slot i released.
//   compact  an exclusive scan over those counts places each released target
//            right behind the frontier: the wave that released it writes it,
//            recognising it by the parked edge.
//
// The scan total, read by the host, is the next frontier's size.
//
// `run` is the state's space, or a one-thread space that reads its memory
// (planner rule P7, step_space.hpp): the same phases, in the same order.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

struct TopDownStep {
  template <class RunSpace, class ExecSpace, class Ordinal, class Offset>
  void advance(const RunSpace& run, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    s.pay_owed_edges(run);
    const auto row_map = s.graph.row_map;
    const auto entries = s.graph.entries;
    const auto rule = s.template release_rule<RunSpace>();
    const auto order = s.order;
    const auto released = s.released;
    const std::size_t first = s.begin;
    const std::size_t next_first = s.begin + s.frontier;
    const Ordinal next_level = s.layer + 1;
    Kokkos::parallel_for(
        "strata::plan::sparse_release", Kokkos::RangePolicy<RunSpace>(run, 0, s.frontier),
        KOKKOS_LAMBDA(const std::size_t i) {
          const Ordinal w = order(first + i);
          Offset count = 0;
          for (Offset e = row_map(w); e < row_map(w + 1); ++e)
            if (rule.release(e, entries(e), next_level)) ++count;
          released(i) = count;
        });
    scan_value_t<Offset> next = 0;
    Kokkos::parallel_scan(
        "strata::plan::sparse_compact", Kokkos::RangePolicy<RunSpace>(run, 0, s.frontier),
        KOKKOS_LAMBDA(const std::size_t i, scan_value_t<Offset>& position, const bool final) {
          const Offset count = released(i);
          if (final && count != 0) {
            const Ordinal w = order(first + i);
            std::size_t slot = next_first + position;
            for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
              const Ordinal t = entries(e);
              if (rule.parked(e, t, next_level)) order(slot++) = t;
            }
          }
          position += count;
        },
        next);
    ++s.stats.sparse_layers;
    s.close_layer(next);
  }
};

}  // namespace strata::plan::detail
