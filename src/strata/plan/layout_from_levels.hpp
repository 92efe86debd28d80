#pragma once
// The last step of planning, public because two planners share it: the plan
// laid out from every wave's level — the waves ordered by (level, wave id)
// (a stable radix sort) and the group offsets (where the sorted levels step
// up). plan_barriers ends with it, and so does the distributed
// gather on its root, which is why the gathered plan is bit-identical to
// plan_barriers'.
//
//   reserve_layout(space, waves, scratch);     // the sort's buffers only
//   layout_from_levels(space, groups, plan, scratch);
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/storage.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/detail/group_offsets.hpp>
#include <strata/plan/detail/stable_level_sort.hpp>
#include <strata/plan/planner_scratch.hpp>

namespace strata {

/// Makes `scratch` hold what layout_from_levels needs for `wave_count` waves
/// in `group_count` groups (the sort's per-chunk counters, and its spare
/// order where the sort takes more than one pass: above 256 groups; nothing
/// of the CSR). With the group count left out, for any. The scratch of a
/// finished plan_barriers already does. Throws StorageReserveFailed.
template <class ExecSpace, class Ordinal, class Offset>
void reserve_layout(const ExecSpace& space, std::uint64_t wave_count,
                    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                    std::uint64_t group_count = std::uint64_t(-1)) {
  if (plan::detail::level_sort_passes(group_count) > 1)
    reserve_capacity(scratch.order, wave_count, "ready wave layers");
  reserve_capacity(scratch.sort_counts, plan::detail::level_sort_counter_count(space, wave_count),
                   "level sort counters");
}

/// Lays `plan` out from `plan.level` (every level below `group_count`):
/// fills `plan.waves` (allocated, wave_count entries) in (level, wave id)
/// order, then `plan.group_offsets` (group_count + 1 entries, allocated by
/// the caller) unless `offsets_known` (the caller filled them). The sort's
/// spare order (where it takes more than one pass) is `spare` when the
/// caller lends dead storage of at least wave_count ordinals, otherwise
/// scratch.order (reserve_layout); its counters likewise `counters` when
/// the caller lends at least level_sort_counter_count ordinals (distinct
/// from `spare`), otherwise scratch.sort_counts. Allocates nothing;
/// asynchronous on `space`, except with as many groups as waves (a chain's
/// plan), where it reads back whether every group holds one wave.
template <class ExecSpace, class Ordinal, class Offset>
void layout_from_levels(const ExecSpace& space, std::uint64_t group_count,
                        BarrierPlan<ExecSpace, Ordinal>& plan,
                        PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                        bool offsets_known = false,
                        const typename BarrierPlan<ExecSpace, Ordinal>::view_type& spare = {},
                        const typename BarrierPlan<ExecSpace, Ordinal>::view_type& counters = {}) {
  using View = typename BarrierPlan<ExecSpace, Ordinal>::view_type;
  const std::uint64_t waves = plan.wave_count();
  const View order = plan::detail::level_sort_passes(group_count) <= 1 ? View()
                     : spare.extent(0) >= waves                  ? prefix(spare, waves)
                                                                 : prefix(scratch.order, waves);
  const std::size_t counted = plan::detail::level_sort_counter_count(space, waves);
  const View counts = plan::detail::level_sort_passes(group_count) == 0 ? View()
                      : counters.extent(0) >= counted             ? counters
                                                                  : scratch.sort_counts;
  plan::detail::stable_level_sort(space, group_count, plan.level, plan.waves, order, counts);
  if (!offsets_known)
    plan::detail::group_offsets_from_sorted_levels(space, group_count, plan.level, plan.waves,
                                             plan.group_offsets);
}

}  // namespace strata
