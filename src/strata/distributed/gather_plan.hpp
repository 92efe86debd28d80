#pragma once
// gather_plan: the whole BarrierPlan of a distributed plan on one rank.
// The levels are gathered (MPI_Gatherv, rank order = wave order: the
// partition is by contiguous blocks); the root then lays the plan out with
// the single-process planner's own last step, layout_from_levels (group
// offsets from the levels, the stable level sort), so the plan is
// bit-identical to plan_barriers'. Other ranks get an empty plan.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/storage.hpp>
#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distribute_dependencies.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/planner_scratch.hpp>

namespace strata::distributed {

template <class ExecSpace, class Ordinal>
BarrierPlan<ExecSpace, Ordinal> gather_plan(const ExecSpace& space, const Communicator& comm,
                                            const DistributedPlan<ExecSpace, Ordinal>& local,
                                            int root = 0) {
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  const bool is_root = comm.rank() == root;
  const std::uint64_t waves = local.wave_count();
  Plan plan;
  typename Plan::view_type::HostMirror level_host;
  std::vector<int> counts, displs;
  PlannerScratch<ExecSpace, Ordinal, Ordinal> scratch;  // the layout's buffers only
  typename DistributedPlan<ExecSpace, Ordinal>::view_type::HostMirror mine;
  collective_phase(comm, [&] {
    mine = host_mirror(local.level, "distributed gathered levels (host staging)");
    Kokkos::deep_copy(space, mine, local.level);
    space.fence();
    if (!is_root) return;
    plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
    plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");
    plan.group_offsets =
        allocate_view<typename Plan::view_type>(local.group_count() + 1, "group offsets");
    level_host = host_mirror(plan.level, "wave levels (host staging)");
    reserve_layout(space, waves, scratch, local.group_count());
    for (int r = 0; r < comm.size(); ++r) {
      counts.push_back(detail::mpi_count(local.shard.wave_count_of(r)));
      displs.push_back(detail::mpi_count(local.shard.first_wave(r)));
    }
  });
  comm.gather_varying(mine.data(), static_cast<int>(mine.extent(0)),
                      is_root ? level_host.data() : nullptr, counts, displs, root);
  if (!is_root) return Plan{};
  Kokkos::deep_copy(space, plan.level, level_host);
  layout_from_levels(space, local.group_count(), plan, scratch);
  space.fence();
  return plan;
}

}  // namespace strata::distributed
