#pragma once
// Where a layer step runs (planner rule P7, PlanPolicy::choose_step): on the
// host space's whole pool, or, for a narrow top-down layer on a host backend
// of several threads, on one thread (one_thread_space, core/one_thread_policy.hpp:
// Kokkos::Serial beside OpenMP). Every kernel on the pool is a fork and a
// join whose barrier waits for every thread; a deep graph of narrow layers
// pays two per layer, and on a loaded or oversubscribed machine each waits
// for a descheduled thread. One thread runs the same kernels in the same
// order, so the layer, and the plan, are the same either way.
//
//   has_one_thread_step_space<ExecSpace>()   whether rule P7 can fire (PlanStepRequest)
//   advance_on_step_space(step, one_thread, space, state)
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/one_thread_policy.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

/// Whether a one-thread space other than ExecSpace runs ExecSpace's kernels
/// on the host: false on a device backend (whose memory the host cannot
/// reach, or whose kernels do not run on the host) and on Kokkos::Serial.
template <class ExecSpace>
constexpr bool has_one_thread_step_space() {
  using One = typename one_thread_space<ExecSpace>::type;
  return !std::is_same_v<One, ExecSpace> &&
         Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible &&
         Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                    typename ExecSpace::memory_space>::accessible;
}

/// Runs `step` (whose advance(run_space, state) takes any space that can
/// read the state's memory) on the pool, or on one thread where rule P7 said
/// so: the bottom-up layers' owed edges are paid on the pool first (they may
/// be many), the one-thread space is entered after the pool's kernels are
/// done (one_thread_space::make fences), and the step is counted in
/// PlanStatistics::one_thread_steps.
template <class Step, class ExecSpace, class Ordinal, class Offset>
void advance_on_step_space(const Step& step, bool one_thread, const ExecSpace& space,
                           PlanState<ExecSpace, Ordinal, Offset>& s) {
  if constexpr (has_one_thread_step_space<ExecSpace>()) {
    if (one_thread) {
      s.pay_owed_edges(space);
      step.advance(one_thread_space<ExecSpace>::make(space), s);
      ++s.stats.one_thread_steps;
      return;
    }
  }
  step.advance(space, s);
}

}  // namespace strata::plan::detail
