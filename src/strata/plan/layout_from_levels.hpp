#pragma once
// The last step of planning, public because two planners share it: the plan
// laid out from every wave's level — the group offsets (a histogram of the
// levels and a scan) and the waves ordered by (level, wave id) (a stable
// radix sort). plan_barriers ends with it, and so does the distributed
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
/// (the sort's spare order and per-chunk counters; nothing of the CSR). The
/// scratch of a finished plan_barriers already does. Throws
/// StorageReserveFailed.
template <class ExecSpace, class Ordinal, class Offset>
void reserve_layout(const ExecSpace& space, std::uint64_t wave_count,
                    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch) {
  reserve_capacity(scratch.order, wave_count, "ready wave layers");
  reserve_capacity(scratch.sort_counts,
                   detail::level_sort_buckets * detail::level_sort_chunks(space, wave_count),
                   "level sort counters");
}

/// Lays `plan` out from `plan.level` (every level below `group_count`):
/// fills `plan.group_offsets` (group_count + 1 entries, allocated by the
/// caller) from the levels unless `offsets_known` (the caller filled them),
/// then `plan.waves` (allocated, wave_count entries) in (level, wave id)
/// order. Allocates nothing; asynchronous on `space`.
template <class ExecSpace, class Ordinal, class Offset>
void layout_from_levels(const ExecSpace& space, std::uint64_t group_count,
                        BarrierPlan<ExecSpace, Ordinal>& plan,
                        PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                        bool offsets_known = false) {
  if (!offsets_known) detail::group_offsets_from_levels(space, plan.level, plan.group_offsets);
  detail::stable_level_sort(space, group_count, plan.level, plan.waves,
                            prefix(scratch.order, plan.wave_count()), scratch);
}

}  // namespace strata
