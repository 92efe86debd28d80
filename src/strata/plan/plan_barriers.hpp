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
#include <strata/plan/detail/stable_level_sort.hpp>
#include <strata/plan/detail/topological_levels.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/launch/planner_storage.hpp>
#include <strata/launch/resident_teams.hpp>

namespace strata {

namespace detail {
// ---- plan-speed hook (issue 16 item 4): launch policy rules T and K ---------
// What the caller already knows about the ids' order (the CSR build learns it
// in its validation pass when the launch policy may use it).
enum class IdOrder { Unknown, Topological, NotTopological };

/// Whether nothing is forced (mode, chain contraction, layers per sync).
inline bool nothing_forced(const PlanOptions& options) {
  return options.mode == PlanMode::Automatic && options.chains != ChainContraction::Always &&
         options.layers_per_sync == 0;
}

/// Launch policy rule T for these options on this backend.
template <class ExecSpace>
bool wants_topological_levels(const PlanOptions& options, std::string* reason = nullptr) {
  return launch::LaunchPolicy::standard().use_topological_levels(
      launch::is_host_backend_v<ExecSpace>, nothing_forced(options), reason);
}

/// Checks the options and the memory budget as plan_barriers does (before
/// any plan buffer is allocated).
template <class Ordinal, class Offset>
void check_plan_request(std::uint64_t waves, std::uint64_t edges, const PlanOptions& options) {
  if (options.layers_per_sync > launch::max_paced_layers)
    throw PlanError::invalid_argument(
        "PlanOptions::layers_per_sync is " + std::to_string(options.layers_per_sync) +
            ", above the most layers one batch can run (" +
            std::to_string(launch::max_paced_layers) + ")",
        "use 0 (automatic) or a value in 1.." + std::to_string(launch::max_paced_layers));
  const bool reverse = options.mode == PlanMode::Dense || options.mode == PlanMode::Hybrid;
  const PlannerStorageBytes need =
      planner_storage_bytes(waves, edges, sizeof(Ordinal), sizeof(Offset), reverse);
  if (options.device_memory_budget_bytes != 0 && need.total() > options.device_memory_budget_bytes)
    throw PlanError::memory_constrained(need.total(), options.device_memory_budget_bytes);
}

/// Rule T: levels in one pass, by `levels_of(level, count)` (over the CSR or
/// over a dependency list in topological order, topological_levels.hpp),
/// then the layout from the level counts (one counting pass).
template <class ExecSpace, class Ordinal, class Offset, class LevelsOf>
BarrierPlan<ExecSpace, Ordinal> plan_topological(const ExecSpace& space, std::uint64_t waves,
                                                 PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                                                 const PlanOptions& options, bool from_list,
                                                 const LevelsOf& levels_of) {
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  reserve_capacity(scratch.order, waves, "ready wave layers");
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");
  const auto count = prefix(scratch.order, waves);
  const TopologicalLevels levels = levels_of(plan.level, count);
  plan.group_offsets =
      allocate_view<typename Plan::view_type>(levels.groups + 1, "group offsets");
  layout_from_level_counts(space, levels.groups, plan.level, count, plan.group_offsets,
                           plan.waves);
  if (options.statistics) {
    PlanStatistics stats;
    stats.sources = levels.sources;
    stats.topological = true;
    stats.fused = true;  // every layer in one launch; the host saw none of them
    stats.fused_from_layer = 0;
    stats.fused_workers = 1;
    wants_topological_levels<ExecSpace>(options, &stats.first_decision);
    stats.first_decision += from_list ? "; over the dependency list, which is in topological "
                                        "order (sorted by one endpoint): no CSR"
                                      : "; over the CSR";
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
  if (!policy.use_host_layers(launch::is_host_backend_v<ExecSpace>, nothing_forced(options), waves,
                              sources, &reason))
    return false;
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  plan.level = allocate_view<typename Plan::view_type>(waves, "wave levels");
  plan.waves = allocate_view<typename Plan::view_type>(waves, "plan waves");
  reserve_capacity(scratch.order, waves, "ready wave layers");
  const auto sizes = prefix(scratch.graph.cursor, waves);  // the fill cursor is free now
  const HostKahnResult walk = host_kahn(space, graph, remaining, prefix(scratch.order, waves),
                                        plan.level, sizes, policy.fused_max_frontier);
  if (walk.scheduled != waves) throw PlanError::cycle(waves - walk.scheduled);
  plan.group_offsets = allocate_view<typename Plan::view_type>(walk.groups + 1, "group offsets");
  layout_from_level_counts(space, walk.groups, plan.level, sizes, plan.group_offsets, plan.waves);
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
  check_plan_request<Ordinal, Offset>(waves, graph.dependency_count(), options);
  scratch.reserve_walk(space, waves);  // the graph has its storage (the scratch's or the caller's)

  const ProfilingRegion region("strata::plan_barriers");
  // plan-speed hook: launch policy rules T (topological ids: one-pass levels)
  // and K (host backends: Kahn's layers in one team).
  if (waves != 0 && wants_topological_levels<ExecSpace>(options)) {
    if (ids == IdOrder::Topological ||
        (ids == IdOrder::Unknown && csr_ids_topological(space, graph)))
      return plan_topological(space, waves, scratch, options, false,
                              [&](const auto& level, const auto& count) {
                                return topological_levels(space, graph, level, count);
                              });
    if constexpr (launch::is_host_backend_v<ExecSpace>) {
      BarrierPlan<ExecSpace, Ordinal> plan;
      if (plan_host_kahn(space, graph, scratch, options, in_degrees_ready, plan)) return plan;
    }
  }

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
    counts.skip_if_edges_in_order = true;
    counts.in_degrees = Counts::InDegrees::UnlessTopological;
    counts.in_degree = scratch.remaining;
  }
  const auto graph =
      build_dependency_graph(space, wave_count, dependencies, scratch.graph, counts);
  if (counts.in_degrees_counted) scratch.remaining = counts.in_degree;
  if (counts.check_topological && !counts.built) {
    // Rule T over the list itself: no CSR is built (the scratch still grows
    // to the shape, as after any plan: a caller may size it by planning).
    detail::check_plan_request<Ordinal, Offset>(wave_count, dependencies.extent(0), options);
    scratch.reserve(space, wave_count, dependencies.extent(0));
    const ProfilingRegion region("strata::plan_barriers");
    return detail::plan_topological(
        space, wave_count, scratch, options, true, [&](const auto& level, const auto& count) {
          return detail::ordered_dependency_levels(space, wave_count, dependencies, level, count);
        });
  }
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
