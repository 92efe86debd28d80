#pragma once
// Plans the rows of a triangular matrix — waves given by their in-edges in a
// topological numbering — without a dependency list, a CSR build or a
// validation pass of the planner's own:
//
//   std::optional<BarrierPlan<ExecSpace, Ordinal>> plan =
//       strata::plan_in_edges(space, row_map, entries, mirrored, scratch);
//
// Wave w is row w (mirrored: row rows-1-w, an upper triangular matrix
// levelled bottom-up); its predecessors are the row's entries other than its
// diagonal, each column c being wave c (mirrored: rows-1-c). The caller has
// checked that every predecessor is a lower wave (every entry on the
// declared side of the diagonal, inside 0..rows-1): this is the seam for
// callers that hold a checked triangular matrix (kokkos_kernels/
// sptrsv_symbolic.hpp), and it trusts them.
//
// The levels come from one pass in id order: on a host backend one thread
// (level(i) = 1 + max level(pred), Kokkos Kernels' one-pass level set, as
// rule T of the launch policy does for the planner), on a device the
// ticket-ordered pass (plan/detail/ticket_levels.hpp). The device pass gives
// up on a graph deeper than LaunchPolicy::ticket_depth_budget(): then nothing
// is returned (std::nullopt) and the caller plans the rows as a dependency
// list (plan_barriers). The plan is plan_barriers' for the same
// dependencies, bit for bit.
#include <cstdint>
#include <optional>

#include <Kokkos_Core.hpp>

#include <strata/core/profiling_region.hpp>
#include <strata/core/storage.hpp>
#include <strata/launch/launch_policy.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/detail/ticket_levels.hpp>
#include <strata/plan/detail/topological_levels.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/planner_scratch.hpp>

namespace strata {

template <class ExecSpace, class Ordinal, class Offset, class RowMap, class Entries>
std::optional<BarrierPlan<ExecSpace, Ordinal>> plan_in_edges(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, bool mirrored,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch) {
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  const std::uint64_t waves = row_map.extent(0) == 0 ? 0 : row_map.extent(0) - 1;
  const ProfilingRegion region("strata::plan_in_edges");
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");
  const launch::LaunchPolicy policy = launch::LaunchPolicy::standard();
  const bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host) {  // rule T: one thread in id order, the waves per level counted on the way
    reserve_capacity(scratch.order, waves, "waves per level");
    const auto count = prefix(scratch.order, waves);
    const detail::TopologicalLevels levels =
        detail::in_edge_levels(space, row_map, entries, mirrored, plan.level, count);
    plan.group_offsets =
        allocate_view<typename Plan::view_type>(levels.groups + 1, "group offsets");
    detail::layout_from_level_counts(space, levels.groups, plan.level, count,
                                     plan.group_offsets, plan.waves);
  } else {  // the ticket-ordered pass, then the layout from the levels
    const detail::TicketLevelsResult levels = detail::pull_ticket_levels(
        space, row_map, entries, mirrored, plan.level, policy.ticket_depth_budget());
    if (!levels.finished) return std::nullopt;
    plan.group_offsets =
        allocate_view<typename Plan::view_type>(levels.groups + 1, "group offsets");
    reserve_layout(space, waves, scratch);
    layout_from_levels(space, levels.groups, plan, scratch);
  }
  space.fence();
  return plan;
}

}  // namespace strata
