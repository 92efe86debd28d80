#pragma once
// plan_barriers: a wave dependency DAG in, its Kahn topological layers out —
// the minimum number of global synchronisation points when every ready wave
// may run in the same phase.
//
//   auto plan = strata::plan_barriers(space, wave_count, dependencies);
//   auto plan = strata::plan_barriers(space, wave_count, dependencies, scratch);
//
// `dependencies` is a rank-1 Kokkos View of WaveDependency<Ordinal> that the
// execution space can read, or a host array (pointer + count), which is used
// in place on host backends and staged through the scratch on devices.
// The mode (PlanOptions::mode) is chosen per layer by LaunchPolicy::standard()
// unless the caller forces one; every mode gives the identical plan.
// Errors (PlanError): InvalidWave, SelfDependency (first offender in input
// order), Cycle, CountOverflow, StorageReserveFailed, MemoryConstrained (a
// non-zero device_memory_budget_bytes below what the plan needs). On error nothing is
// returned and the scratch stays usable.

#include <cstddef>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/profiling_region.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/detail/group_offsets.hpp>
#include <strata/plan/detail/host_kahn.hpp>
#include <strata/plan/detail/layer_driver.hpp>
#include <strata/plan/detail/topological_levels.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/launch/planner_storage.hpp>

namespace strata {

namespace detail {
// ---- plan-speed hook (issue 16 item 4): topological ids ---------------------
// What the caller already knows about the ids' order (the CSR build checks it
// in its count pass when the launch policy wants the one-pass levels).
enum class IdOrder { Unknown, Topological, NotTopological };

/// Launch policy rule T for these options on this backend.
template <class ExecSpace>
bool wants_topological_levels(const PlanOptions& options, std::string* reason = nullptr) {
  constexpr bool host_backend =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  const bool nothing_forced = options.mode == PlanMode::Automatic &&
                              options.chains != ChainContraction::Always &&
                              options.layers_per_sync == 0;
  return launch::LaunchPolicy::standard().use_topological_levels(host_backend, nothing_forced,
                                                                 reason);
}

/// The one-pass plan of a graph whose ids are a topological order
/// (topological_levels.hpp), laid out by layout_from_levels.
template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_topological(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options) {
  const std::uint64_t waves = graph.wave_count();
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");
  const auto count = prefix(scratch.order, waves);  // free until the layout's sort
  const TopologicalLevels levels = topological_levels(space, graph, plan.level, count);
  plan.group_offsets =
      allocate_view<typename Plan::view_type>(levels.groups + 1, "group offsets");
  offsets_from_level_counts(space, count, plan.group_offsets);
  layout_from_levels(space, levels.groups, plan, scratch, /*offsets_known=*/true);
  if (options.statistics) {
    PlanStatistics stats;
    stats.sources = levels.sources;
    stats.topological = true;
    stats.fused = true;  // every layer in one launch; the host saw none of them
    stats.fused_from_layer = 0;
    stats.fused_workers = 1;
    wants_topological_levels<ExecSpace>(options, &stats.first_decision);
    *options.statistics = stats;
  }
  space.fence();
  return plan;
}
/// Launch policy rule K: Kahn's layers in one team on a host backend
/// (host_kahn.hpp). Returns false, having planned nothing, when the rule
/// leaves the graph to the layer walk. `in_degrees_ready`: scratch.remaining
/// holds the in-degrees (counted in the CSR's count pass).
template <class ExecSpace, class Ordinal, class Offset>
bool plan_host_kahn(const ExecSpace& space,
                    const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options,
                    bool in_degrees_ready, BarrierPlan<ExecSpace, Ordinal>& plan) {
  const std::uint64_t waves = graph.wave_count();
  const auto remaining = prefix(scratch.remaining, waves);
  if (!in_degrees_ready) owned_in_degrees(space, graph, remaining);
  std::uint64_t sources = 0;
  Kokkos::parallel_reduce(
      "strata::plan::count_sources", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& n) {
        if (remaining(w) == 0) ++n;
      },
      sources);
  const launch::LaunchPolicy policy = launch::LaunchPolicy::standard();
  std::string reason;
  if (!policy.use_host_layers(true, true, waves, sources, &reason)) return false;
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");
  const auto sizes = plan.waves;  // layer sizes until the layout writes the waves
  const HostKahnResult walk = host_kahn(space, graph, remaining, prefix(scratch.order, waves),
                                        plan.level, sizes, policy.fused_max_frontier);
  if (walk.scheduled != waves) throw PlanError::cycle(waves - walk.scheduled);
  plan.group_offsets = allocate_view<typename Plan::view_type>(walk.groups + 1, "group offsets");
  offsets_from_level_counts(space, sizes, plan.group_offsets);
  layout_from_levels(space, walk.groups, plan, scratch, /*offsets_known=*/true);
  if (options.statistics) {
    PlanStatistics stats;
    stats.sources = walk.sources;
    stats.sparse_layers = walk.groups;
    stats.first_decision = reason;
    *options.statistics = stats;
  }
  space.fence();
  return true;
}
// ---- end of the plan-speed hook ---------------------------------------------

template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_graph(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options,
    IdOrder ids, bool in_degrees_ready = false) {
  const std::uint64_t waves = graph.wave_count();
  if (options.layers_per_sync > detail::max_paced_layers)
    throw PlanError::invalid_argument(
        "PlanOptions::layers_per_sync is " + std::to_string(options.layers_per_sync) +
            ", above the most layers one batch can run (" +
            std::to_string(detail::max_paced_layers) + ")",
        "use 0 (automatic) or a value in 1.." + std::to_string(detail::max_paced_layers));
  const bool reverse = options.mode == PlanMode::Dense || options.mode == PlanMode::Hybrid;
  const PlannerStorageBytes need = planner_storage_bytes(
      waves, graph.dependency_count(), sizeof(Ordinal), sizeof(Offset), reverse);
  if (options.device_memory_budget_bytes != 0 && need.total() > options.device_memory_budget_bytes)
    throw PlanError::memory_constrained(need.total(), options.device_memory_budget_bytes);
  scratch.reserve(space, waves, 0);

  const ProfilingRegion region("strata::plan_barriers");
  // plan-speed hook: launch policy rules T (topological ids: one-pass levels)
  // and K (host backends: Kahn's layers in one team).
  if (waves != 0 && wants_topological_levels<ExecSpace>(options)) {
    if (ids == IdOrder::Topological ||
        (ids == IdOrder::Unknown && csr_ids_topological(space, graph)))
      return plan_topological(space, graph, scratch, options);
    constexpr bool host_backend =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
    if constexpr (host_backend) {
      BarrierPlan<ExecSpace, Ordinal> plan;
      if (plan_host_kahn(space, graph, scratch, options, in_degrees_ready, plan)) return plan;
    }
  }

  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");

  const detail::LayerWalk walk =
      detail::walk_layers(space, graph, scratch, plan.level, plan.waves, options);
  if (walk.scheduled != waves) throw PlanError::cycle(waves - walk.scheduled);
  std::uint64_t groups = 0;
  if (walk.fused) {  // the fused layers were never seen by the host: count them on the device
    groups = detail::group_count_of(space, plan.level);
    plan.group_offsets = allocate_view<typename Plan::view_type>(groups + 1, "group offsets");
  } else {
    const auto& begins = scratch.layer_begin;
    groups = begins.size() - 1;
    plan.group_offsets = allocate_view<typename Plan::view_type>(begins.size(), "group offsets");
    Kokkos::deep_copy(space, plan.group_offsets,
                      Kokkos::View<const Ordinal*, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>(begins.data(),
                                                                            begins.size()));
  }
  layout_from_levels(space, groups, plan, scratch, /*offsets_known=*/!walk.fused);
  space.fence();
  return plan;
}
}  // namespace detail

/// Plans a DependencyGraph whose storage the scratch does not own (or does).
template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  return detail::plan_graph(space, graph, scratch, options, detail::IdOrder::Unknown);
}

/// Plans from a View of dependencies, building the CSR inside the scratch.
template <class ExecSpace, class Ordinal, class Offset, class... P>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  // plan-speed hook: where rules T and K may apply, the validation pass also
  // checks the ids' order, and the count pass counts the in-degrees unless
  // the ids are topological (into scratch.remaining).
  using Counts = GraphCounts<ExecSpace, Offset>;
  Counts counts;
  counts.check_topological = detail::wants_topological_levels<ExecSpace>(options);
  if (counts.check_topological) {
    counts.in_degrees = Counts::InDegrees::UnlessTopological;
    counts.in_degree = scratch.remaining;
  }
  const auto graph =
      build_dependency_graph(space, wave_count, dependencies, scratch.graph, counts);
  if (counts.in_degrees_counted) scratch.remaining = counts.in_degree;
  return detail::plan_graph(space, graph, scratch, options,
                            !counts.check_topological ? detail::IdOrder::Unknown
                            : counts.topological      ? detail::IdOrder::Topological
                                                      : detail::IdOrder::NotTopological,
                            counts.in_degrees_counted);
}

template <class ExecSpace, class Ordinal, class Offset, class... P>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<WaveDependency<Ordinal>*, P...>& dependencies,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  const Kokkos::View<const WaveDependency<Ordinal>*, P...> read_only = dependencies;
  return plan_barriers(space, wave_count, read_only, scratch, options);
}

/// Plans from a host array of dependencies.
template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(const ExecSpace& space, std::uint64_t wave_count,
                                              const WaveDependency<Ordinal>* dependencies,
                                              std::size_t dependency_count,
                                              PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                                              const PlanOptions& options = {}) {
  using HostView = Kokkos::View<const WaveDependency<Ordinal>*, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const HostView host(dependencies, dependency_count);
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    return plan_barriers(space, wave_count, host, scratch, options);
  } else {
    checked_count<Offset>(dependency_count, "dependency count");
    scratch.reserve_staging(dependency_count);
    const auto staged = prefix(scratch.staging, dependency_count);
    Kokkos::deep_copy(space, staged, host);
    return plan_barriers(space, wave_count, staged, scratch, options);
  }
}

/// Plans without a caller-owned scratch (one is allocated for the call).
template <class ExecSpace, class Ordinal, class... P>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    const PlanOptions& options = {}) {
  PlannerScratch<ExecSpace, Ordinal> scratch;
  return plan_barriers(space, wave_count, dependencies, scratch, options);
}

template <class ExecSpace, class Ordinal, class... P>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<WaveDependency<Ordinal>*, P...>& dependencies,
    const PlanOptions& options = {}) {
  PlannerScratch<ExecSpace, Ordinal> scratch;
  return plan_barriers(space, wave_count, dependencies, scratch, options);
}

template <class ExecSpace, class Ordinal>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(const ExecSpace& space, std::uint64_t wave_count,
                                              const WaveDependency<Ordinal>* dependencies,
                                              std::size_t dependency_count,
                                              const PlanOptions& options = {}) {
  PlannerScratch<ExecSpace, Ordinal> scratch;
  return plan_barriers(space, wave_count, dependencies, dependency_count, scratch, options);
}

}  // namespace strata
