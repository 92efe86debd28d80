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
// The mode (PlanOptions::mode) is chosen per layer by PlanPolicy::standard()
// unless the caller forces one; every mode gives the identical plan.
// Errors (PlanError): InvalidWave, SelfDependency (first offender in input
// order), Cycle, CountOverflow, StorageReserveFailed, MemoryConstrained (a
// non-zero device_memory_budget_bytes below what the plan needs). On error nothing is
// returned and the scratch stays usable.

#include <cstddef>
#include <cstdint>
#include <optional>
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
#include <strata/plan/detail/layer_driver.hpp>
#include <strata/plan/detail/stable_level_sort.hpp>
#include <strata/plan/detail/topological_levels.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/plan/planner_storage.hpp>

namespace strata {

namespace plan::detail {

/// Checks the options and the memory budget as plan_barriers does (before
/// any plan buffer is allocated). `host_csr_build`: the call builds the CSR
/// from a dependency list on a host backend (its transient spare counts).
template <class Ordinal, class Offset>
void check_plan_request(std::uint64_t waves, std::uint64_t edges, const PlanOptions& options,
                        bool host_csr_build = false) {
  if (options.layers_per_sync > max_paced_layers)
    throw PlanError::invalid_argument(
        "PlanOptions::layers_per_sync is " + std::to_string(options.layers_per_sync) +
            ", above the most layers one batch can run (" +
            std::to_string(max_paced_layers) + ")",
        "use 0 (automatic) or a value in 1.." + std::to_string(max_paced_layers));
  const bool reverse = options.mode == PlanMode::Dense || options.mode == PlanMode::Hybrid;
  const PlannerStorageBytes need =
      planner_storage_bytes(waves, edges, sizeof(Ordinal), sizeof(Offset), reverse, host_csr_build);
  if (options.device_memory_budget_bytes != 0 && need.total() > options.device_memory_budget_bytes)
    throw PlanError::memory_constrained(need.total(), options.device_memory_budget_bytes);
}

/// Rule T before any CSR exists: where the dependency list itself is in a
/// topological order (learnt in the validation pass), the levels are pushed
/// along the list in one pass (ordered_dependency_levels) and the plan is
/// laid out from the waves per level. No CSR is built. With `checked` the
/// list has not been validated: the pass checks it as it reads it
/// (checked_ordered_dependency_levels, forward only) and nothing is returned
/// where it stops (the caller validates and plans as usual).
template <class ExecSpace, class Ordinal, class Offset, class... P>
std::optional<BarrierPlan<ExecSpace, Ordinal>> plan_ordered_list(
    const ExecSpace& space, std::uint64_t waves,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options,
    bool reverse, bool checked = false) {
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  reserve_capacity(scratch.order, waves, "waves per level");
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, plan_view_field::level);
  plan.waves = allocate_view<typename Plan::view_type>(waves, plan_view_field::waves);
  const auto count = prefix(scratch.order, waves);
  TopologicalLevels levels;
  if (checked) {
    const CheckedLevels pass =
        checked_ordered_dependency_levels(space, waves, dependencies, plan.level, count);
    if (!pass.valid) return std::nullopt;
    levels = pass.levels;
  } else {
    levels = ordered_dependency_levels(space, waves, dependencies, plan.level, count, reverse);
  }
  plan.group_offsets =
      allocate_view<typename Plan::view_type>(levels.groups + 1, plan_view_field::group_offsets);
  layout_from_level_counts(space, levels.groups, plan.level, count, plan.group_offsets,
                           plan.waves);
  if (options.statistics) {
    PlanStatistics stats;
    stats.sources = levels.sources;
    stats.topological = true;
    stats.fused = true;  // every layer in one launch; the host saw none of them
    stats.fused_from_layer = 0;
    stats.fused_workers = 1;
    PlanPolicy::standard().use_topological_levels(true, true, &stats.first_decision);
    stats.first_decision += checked ? "; over the dependency list, checked as it was levelled "
                                      "(valid and in topological order: no validation pass, "
                                      "no CSR)"
                          : reverse ? "; over the dependency list read backwards, which is then "
                                      "in topological order (sorted by one endpoint): no CSR"
                                    : "; over the dependency list, which is in topological order "
                                      "(sorted by one endpoint): no CSR";
    *options.statistics = stats;
  }
  space.fence();
  return plan;
}

/// Whether plan_barriers' shape and option checks pass (they throw otherwise).
template <class Ordinal, class Offset>
bool plan_request_passes(std::uint64_t waves, std::uint64_t edges, const PlanOptions& options) {
  try {
    check_graph_shape<Ordinal, Offset>(waves, edges);
    check_plan_request<Ordinal, Offset>(waves, edges, options);
  } catch (const PlanError&) {
    return false;
  }
  return true;
}

template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_graph(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options,
    IdOrder ids, bool in_degrees_ready = false, bool csr_built_here = false) {
  const std::uint64_t waves = graph.wave_count();
  check_plan_request<Ordinal, Offset>(waves, graph.dependency_count(), options,
                                      csr_built_here && csr_by_row_buckets_v<ExecSpace>);
  scratch.reserve_walk(space, waves);  // the graph has its storage (the scratch's or the caller's)

  const ProfilingRegion region("strata::plan_barriers");
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, plan_view_field::level);
  // The walk writes its scheduled waves, layer after layer, straight into the
  // plan's `waves` (handed over, not copied); the layout then sorts them in place.
  plan.waves = allocate_view<typename Plan::view_type>(waves, plan_view_field::waves);

  const auto walk = plan::detail::walk_layers(space, graph, scratch, plan.level, plan.waves, options,
                                        ids, in_degrees_ready);
  if (walk.scheduled != waves) throw PlanError::cycle(waves - walk.scheduled);
  if (walk.level_counts.is_allocated()) {  // a one-pass step counted the waves per level
    plan.group_offsets =
        allocate_view<typename Plan::view_type>(
            walk.counted_groups + 1, plan_view_field::group_offsets);
    layout_from_level_counts(space, walk.counted_groups, plan.level, walk.level_counts,
                             plan.group_offsets, plan.waves);
    space.fence();
    return plan;
  }
  std::uint64_t groups = 0;
  if (walk.groups_on_device) {  // the host never saw those layers: count them on the device
    groups = plan::detail::group_count_of(space, plan.level);
    plan.group_offsets = allocate_view<typename Plan::view_type>(
        groups + 1, plan_view_field::group_offsets);
  } else {
    const auto& begins = scratch.layer_begin;
    groups = begins.size() - 1;
    plan.group_offsets = allocate_view<typename Plan::view_type>(
        begins.size(), plan_view_field::group_offsets);
    Kokkos::deep_copy(space, plan.group_offsets,
                      Kokkos::View<const Ordinal*, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>(begins.data(),
                                                                            begins.size()));
  }
  // The radix sort's spare: the remaining in-degrees are dead now, and are
  // ordinals too when both types are one; otherwise the scratch's spare ordinals.
  typename Plan::view_type spare;
  if (plan::detail::level_sort_passes(groups) > 1) {
    if constexpr (std::is_same_v<Ordinal, Offset>)
      if (scratch.remaining.extent(0) >= waves) spare = scratch.remaining;
    if (spare.extent(0) < waves) reserve_capacity(scratch.order, waves, "layout spare");
  }
  // Its counters: the fill cursor's bytes (release counts, chain links:
  // dead after the walk), else the remaining in-degrees where they are not
  // the spare, else the scratch's own (the peak then holds no counters
  // beside the walk's buffers: docs/plan.md, "Storage").
  typename Plan::view_type counters;
  if (plan::detail::level_sort_passes(groups) > 0) {
    const std::size_t need = plan::detail::level_sort_counter_count(space, waves);
    const auto& cursor = scratch.graph.cursor;
    if (cursor.span() * sizeof(Offset) >= need * sizeof(Ordinal)) {
      counters = Kokkos::View<Ordinal*, typename ExecSpace::memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          reinterpret_cast<Ordinal*>(cursor.data()), need);
    } else if constexpr (std::is_same_v<Ordinal, Offset>) {
      if (scratch.remaining.extent(0) >= need && spare.data() != scratch.remaining.data())
        counters = scratch.remaining;
    }
    if (counters.extent(0) < need) reserve_capacity(scratch.sort_counts, need, "level sort counters");
  }
  layout_from_levels(space, groups, plan, scratch, /*offsets_known=*/!walk.groups_on_device,
                     spare, counters);
  space.fence();
  return plan;
}
}  // namespace plan::detail

/// Plans a DependencyGraph whose storage the scratch does not own (or does).
template <class ExecSpace, class Ordinal, class Offset>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  return plan::detail::plan_graph(space, graph, scratch, options, plan::detail::IdOrder::Unknown);
}

/// Plans from a View of dependencies, building the CSR inside the scratch.
template <class ExecSpace, class Ordinal, class Offset, class... P>
BarrierPlan<ExecSpace, Ordinal> plan_barriers(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, const PlanOptions& options = {}) {
  // Where rule T may apply (PlanPolicy::wants_id_order), the validation
  // pass also learns the ids' order, and the count pass counts the
  // in-degrees (into scratch.remaining) unless the ids are topological.
  using Counts = GraphCounts<ExecSpace, Offset>;
  Counts counts;
  const PlanPolicy policy = PlanPolicy::standard();
  counts.check_topological = policy.wants_id_order(
      plan::detail::step_request(space, wave_count, dependencies.extent(0), options));
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename ExecSpace::memory_space>::accessible) {
    // Rule T on few host threads: level the list while checking it, betting
    // that it is valid and in order; where it is not, plan as below (the
    // validation reports the errors in their usual order). A request that
    // its own checks refuse goes below as well, to fail there.
    if (counts.check_topological &&
        policy.check_while_levelling(std::uint64_t(space.concurrency())) &&
        plan::detail::plan_request_passes<Ordinal, Offset>(wave_count, dependencies.extent(0),
                                                      options)) {
      // The bet allocates the plan before the list is validated: where that
      // allocation fails, the list is validated first below, so that an
      // invalid list is reported as such, as without the bet.
      std::optional<BarrierPlan<ExecSpace, Ordinal>> plan;
      try {
        const ProfilingRegion region("strata::plan_barriers");
        plan = plan::detail::plan_ordered_list(space, wave_count, dependencies, scratch, options,
                                         /*reverse=*/false, /*checked=*/true);
      } catch (const PlanError& e) {
        if (e.kind() != ErrorKind::StorageReserveFailed) throw;
      }
      if (plan) return std::move(*plan);
    }
  }
  if (counts.check_topological) {
    counts.skip_if_edges_in_order = true;
    counts.in_degrees = Counts::InDegrees::UnlessTopological;
    counts.in_degree = scratch.remaining;
  }
  const auto graph =
      build_dependency_graph(space, wave_count, dependencies, scratch.graph, counts);
  if (counts.in_degrees_counted) scratch.remaining = counts.in_degree;
  if (counts.check_topological && !counts.built) {
    // Rule T over the list itself: no CSR is built, and the scratch grows
    // only by the waves per level (plan_ordered_list); a caller who wants it
    // sized for any path reserves it (PlannerScratch::reserve).
    plan::detail::check_plan_request<Ordinal, Offset>(wave_count, dependencies.extent(0), options);
    const ProfilingRegion region("strata::plan_barriers");
    return *plan::detail::plan_ordered_list(space, wave_count, dependencies, scratch, options,
                                      counts.order.reversed());
  }
  return plan::detail::plan_graph(space, graph, scratch, options,
                            !counts.check_topological ? plan::detail::IdOrder::Unknown
                            : counts.topological      ? plan::detail::IdOrder::Topological
                                                      : plan::detail::IdOrder::NotTopological,
                            counts.in_degrees_counted, /*csr_built_here=*/true);
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
