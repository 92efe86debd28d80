#pragma once
// The host loop of the planner's walk (over steps, never over waves or
// edges): it asks the planner policy for the next step
// (PlanPolicy::choose_step, every rule lives there) and runs it on the one
// PlanState (plan_state.hpp) every step shares:
//
//   state = PlanState(graph, scratch, plan.level, plan.waves)
//   learn what the policy asks for up front      are the ids topological?
//   while the walk is not finished and the frontier is not empty:
//     decision = policy.choose_step(request from the state)
//     Step{decision}.advance(space, state)      StartStep, LevelsStep,
//                                               HostLayersStep, TopDownStep,
//                                               PacedStep, BottomUpStep,
//                                               PersistentStep, FusedStep,
//                                               ChainStep
//     after the start: measure what the policy asks for (chained waves,
//     widest degree)
//   (a top-down step runs on one thread where the policy says so, rule P7:
//   advance_on_step_space, step_space.hpp)
//
// Steps can alternate freely because they share one state: level per wave,
// the layer-after-layer `order`, remaining in-degrees (owed edges are paid
// when leaving bottom-up), and the frontier cursor closed by close_layer().
// The one-pass steps (Levels, HostLayers) leave the waves per level instead
// of layer offsets, and the plan is laid out from those counts.
#include <cstdint>
#include <new>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/device_limits.hpp>
#include <strata/core/error.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/chain_contraction.hpp>
#include <strata/plan/detail/dense_step.hpp>
#include <strata/plan/detail/frontier_start.hpp>
#include <strata/plan/detail/fused_tail.hpp>
#include <strata/plan/detail/host_kahn.hpp>
#include <strata/plan/detail/persistent_layers.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/detail/sparse_paced.hpp>
#include <strata/plan/detail/sparse_step.hpp>
#include <strata/plan/detail/step_space.hpp>
#include <strata/plan/detail/topological_levels.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/plan/policy/layer_request.hpp>
#include <strata/plan/policy/plan_policy.hpp>
#include <strata/plan/policy/plan_step.hpp>

namespace strata::plan::detail {

/// What the caller already knows about the ids' order (the CSR build learns
/// it in its validation pass when the planner policy may use it).
enum class IdOrder { Unknown, Topological, NotTopological };

/// The largest in- or out-degree of any wave (`remaining` holds in-degrees).
template <class ExecSpace, class Ordinal, class Offset>
std::uint64_t max_wave_degree(const ExecSpace& space,
                              const PlanState<ExecSpace, Ordinal, Offset>& s) {
  const auto row_map = s.graph.row_map;
  const auto remaining = s.remaining;
  scan_value_t<Offset> widest = 0;
  Kokkos::parallel_reduce(
      "strata::plan::max_wave_degree",
      Kokkos::RangePolicy<ExecSpace>(space, 0, s.wave_count()),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Offset>& m) {
        const Offset out = row_map(w + 1) - row_map(w);
        if (out > m) m = out;
        if (remaining(w) > m) m = remaining(w);
      },
      Kokkos::Max<scan_value_t<Offset>>(widest));
  return widest;
}

/// The fixed part of what the planner asks the policy: the forced knobs, the
/// device and the graph's size.
template <class ExecSpace>
PlanStepRequest step_request(const ExecSpace& space, std::uint64_t waves,
                             std::uint64_t dependencies, const PlanOptions& options) {
  PlanStepRequest r;
  r.mode = options.mode;
  r.layers_per_sync = options.layers_per_sync;
  r.chains = options.chains;
  r.device_backend =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  r.concurrency = static_cast<std::uint64_t>(space.concurrency());
  r.one_thread_space = has_one_thread_step_space<ExecSpace>();
  r.one_thread_layers = options.one_thread_layers;
  r.waves = waves;
  r.dependencies = dependencies;
  return r;
}

/// The planner's policy: the standard one, sizing this planner's buffers.
template <class Ordinal, class Offset>
PlanPolicy planner_policy() {
  PlanPolicy policy = PlanPolicy::standard();
  policy.ordinal_bytes = sizeof(Ordinal);  // its memory rule sizes this planner's buffers
  policy.offset_bytes = sizeof(Offset);
  return policy;
}

/// Walks every layer into `level` and `order` (the plan's Views); returns the
/// final state (scheduled count, whether groups are known on the host only
/// from the levels or from per-level counts, statistics). `ids`: what the
/// caller knows of the ids' order; `in_degrees_ready`: scratch.remaining
/// holds the in-degrees already (counted by the CSR build).
template <class ExecSpace, class Ordinal, class Offset>
PlanState<ExecSpace, Ordinal, Offset> walk_layers(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
    const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& level,
    const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& order,
    const PlanOptions& options, IdOrder ids = IdOrder::Unknown, bool in_degrees_ready = false) {
  PlanState<ExecSpace, Ordinal, Offset> s(graph, scratch, level, order);
  s.in_degrees_ready = in_degrees_ready;

  const PlanPolicy policy = planner_policy<Ordinal, Offset>();
  const DeviceLimits limits = DeviceLimits::query(space);
  PlanStepRequest r =
      step_request(space, graph.wave_count(), graph.dependency_count(), options);
  // What the policy's rules read beyond the frontier: measured only when asked.
  // (Rule T's bet, check_while_levelling: the level pass checks the ids itself.)
  if (ids == IdOrder::Unknown && r.waves != 0 && policy.wants_id_order(r) &&
      !policy.check_while_levelling(r.concurrency))
    ids = csr_ids_topological(space, graph) ? IdOrder::Topological : IdOrder::NotTopological;
  r.ids_topological = ids == IdOrder::Topological;
  r.ids_unchecked = ids == IdOrder::Unknown;
  const auto measure_after_start = [&] {
    if (r.waves < std::uint64_t(chained_level<Ordinal>) && policy.count_chains(r))
      r.chained_waves = count_chained(space, s);
    if (policy.measure_wave_degree(r)) s.heaviest = r.max_wave_degree = max_wave_degree(space, s);
  };

  try {
    scratch.layer_begin.push_back(0);
    while (!s.finished && (!s.started || s.frontier != 0)) {
      r.started = s.started;
      r.layer = s.layer;
      r.scheduled = s.begin;
      r.frontier = s.frontier;
      r.bottom_up_scanned = s.bottom_up_scanned;
      r.paced_batches = s.stats.paced_batches;
      r.persistent_refused = s.persistent_refused;
      if (s.started)
        r.layer_request = layer_request(limits, r.waves, r.dependencies, s.frontier, s.previous,
                                        s.layer, options.device_memory_budget_bytes);
      const PlanStepDecision d =
          policy.choose_step(r, s.layer == 0 ? &s.stats.first_decision : nullptr);
      if (d.bottom_up_budget_spent && s.stats.dense_budget_spent_at_layer == 0)
        s.stats.dense_budget_spent_at_layer = s.layer;
      s.bind_buffers_for(d.step);
      switch (d.step) {
        case PlanStep::Start:
          StartStep{}.advance(space, s);
          measure_after_start();
          break;
        case PlanStep::Levels:
          LevelsStep{d.check_ids}.advance(space, s);
          r.ids_unchecked = r.ids_unchecked && !s.ids_not_topological;  // the bet lost: walk
          break;
        case PlanStep::HostLayers:
          HostLayersStep{policy.fused_max_frontier}.advance(space, s);
          break;
        case PlanStep::TopDown:
          advance_on_step_space(TopDownStep{}, d.one_thread, space, s);
          break;
        case PlanStep::Paced: PacedStep{d.batch}.advance(space, s); break;
        case PlanStep::BottomUp: BottomUpStep{}.advance(space, s); break;
        case PlanStep::Persistent: PersistentStep{}.advance(space, s); break;
        case PlanStep::Fused: FusedStep{}.advance(space, s); break;
        case PlanStep::Chains: ChainStep{}.advance(space, s); break;
      }
    }
  } catch (const std::bad_alloc& e) {
    throw PlanError::storage_reserve_failed("layer offsets", scratch.layer_begin.size() + 1,
                                            e.what());
  }
  if (!s.finished) s.finish(s.begin, /*on_device=*/false);
  if (options.statistics) *options.statistics = s.stats;
  return s;
}

}  // namespace strata::plan::detail
