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
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/profiling_region.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/detail/group_offsets.hpp>
#include <strata/plan/detail/layer_driver.hpp>
#include <strata/plan/detail/stable_level_sort.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/launch/planner_storage.hpp>

namespace strata {

/// Plans a DependencyGraph whose storage the scratch does not own (or does).
template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  const std::uint64_t waves = graph.wave_count();
  if (options.layers_per_sync > launch::max_paced_layers)
    throw PlanError::invalid_argument(
        "PlanOptions::layers_per_sync is " + std::to_string(options.layers_per_sync) +
            ", above the most layers one batch can run (" +
            std::to_string(launch::max_paced_layers) + ")",
        "use 0 (automatic) or a value in 1.." + std::to_string(launch::max_paced_layers));
  const bool reverse = options.mode == PlanMode::Dense || options.mode == PlanMode::Hybrid;
  const PlannerStorageBytes need = planner_storage_bytes(
      waves, graph.dependency_count(), sizeof(Ordinal), sizeof(Offset), reverse);
  if (options.device_memory_budget_bytes != 0 && need.total() > options.device_memory_budget_bytes)
    throw PlanError::memory_constrained(need.total(), options.device_memory_budget_bytes);
  scratch.reserve_walk(space, waves);  // the graph has its storage (the scratch's or the caller's)

  const ProfilingRegion region("strata::plan_barriers");
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  // The walk writes its scheduled waves, layer after layer, straight into the
  // plan's `waves` (handed over, not copied); the layout then sorts them in place.
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");

  const auto walk = detail::walk_layers(space, graph, scratch, plan.level, plan.waves, options);
  if (walk.scheduled != waves) throw PlanError::cycle(waves - walk.scheduled);
  std::uint64_t groups = 0;
  if (walk.groups_on_device) {  // the host never saw those layers: count them on the device
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
  // The radix sort's spare: the remaining in-degrees are dead now, and are
  // ordinals too when both types are one; otherwise the scratch's spare ordinals.
  typename Plan::view_type spare;
  if (detail::level_sort_passes(groups) > 1) {
    if constexpr (std::is_same_v<Ordinal, Offset>) {
      spare = prefix(scratch.remaining, waves);
    } else {
      reserve_capacity(scratch.order, waves, "layout spare");
      spare = prefix(scratch.order, waves);
    }
  }
  if (walk.groups_on_device)
    detail::group_offsets_from_levels(space, plan.level, plan.group_offsets);
  detail::stable_level_sort(space, groups, plan.level, plan.waves, spare, scratch);
  space.fence();
  return plan;
}

/// Plans from a View of dependencies, building the CSR inside the scratch.
template <class ExecSpace, class Ordinal, class Offset, class... P>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  const auto graph = build_dependency_graph(space, wave_count, dependencies, scratch.graph);
  return plan_barriers(space, graph, scratch, options);
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
