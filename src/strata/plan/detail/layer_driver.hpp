#pragma once
// The host loop over layers (never over waves or edges): before each layer
// (or each device-paced batch of sparse layers, sparse_paced.hpp) it picks
// the step — top-down (sparse), bottom-up (dense) or a fused tail —
// from the forced mode or, in Automatic mode, from LaunchPolicy::standard(),
// the same policy LaunchConfig asks. Steps can alternate freely because they
// share one state: level per wave, the layer-after-layer `order` array, and
// remaining in-degrees (owed edges are caught up when leaving bottom-up).
#include <algorithm>
#include <cstdint>
#include <new>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/launch/device_limits.hpp>
#include <strata/launch/launch_policy.hpp>
#include <strata/plan/detail/chain_contraction.hpp>
#include <strata/plan/detail/dense_step.hpp>
#include <strata/plan/detail/frontier_start.hpp>
#include <strata/plan/detail/fused_tail.hpp>
#include <strata/plan/detail/persistent_layers.hpp>
#include <strata/plan/detail/sparse_paced.hpp>
#include <strata/plan/detail/sparse_step.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>

namespace strata::detail {

/// Workers of a fused tail: one per hardware thread on host backends, and as
/// many as can be resident on a GPU (the queue is spin-waited on).
template <class ExecSpace>
std::size_t fused_worker_count(const ExecSpace& space, std::uint64_t waves) {
  std::uint64_t workers = static_cast<std::uint64_t>(space.concurrency());
  if (workers > waves) workers = waves;
  return workers == 0 ? 1 : static_cast<std::size_t>(workers);
}

/// The request the planner puts to the launch policy before a layer.
inline launch::LaunchRequest layer_request(const launch::DeviceLimits& limits,
                                           std::uint64_t waves, std::uint64_t edges,
                                           std::uint64_t frontier, std::uint64_t previous,
                                           std::uint64_t layer, std::uint64_t budget_bytes) {
  auto clamp32 = [](std::uint64_t v) {
    return static_cast<std::uint32_t>(v > 0xffffffffu ? 0xffffffffu : v);
  };
  launch::LaunchConfig c;
  c.workload.graph_node_count = clamp32(waves);
  c.workload.graph_edge_count = clamp32(edges);
  const std::uint64_t density = waves == 0 ? 0 : frontier * 10000 / waves;
  c.workload.frontier_density_bps = static_cast<std::uint16_t>(density == 0 ? 1 : density);
  c.workload.device_memory_budget_bytes = budget_bytes;
  // Growth is only known from the second layer on; before, assume it grows.
  c.expected_items_per_worker = (layer == 0 || frontier > previous) ? 2 : 1;
  return limits.request(c, clamp32(frontier));
}

/// The largest in- or out-degree of any wave (`remaining` holds in-degrees).
template <class ExecSpace, class Ordinal, class Offset, class RemainingView>
std::uint64_t max_wave_degree(const ExecSpace& space,
                              const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                              const RemainingView& remaining) {
  const auto row_map = graph.row_map;
  scan_value_t<Offset> widest = 0;
  Kokkos::parallel_reduce(
      "strata::plan::max_wave_degree",
      Kokkos::RangePolicy<ExecSpace>(space, 0, graph.wave_count()),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Offset>& m) {
        const Offset out = row_map(w + 1) - row_map(w);
        if (out > m) m = out;
        if (remaining(w) > m) m = remaining(w);
      },
      Kokkos::Max<scan_value_t<Offset>>(widest));
  return widest;
}

struct LayerWalk {
  std::uint64_t scheduled = 0;  ///< waves given a level
  bool fused = false;           ///< layers after layer_begin.back() are not on the host
};

/// Walks every layer; `level` receives the levels, `spare` (the plan's waves,
/// written later by the level sort) may carry chain links meanwhile.
template <class ExecSpace, class Ordinal, class Offset>
LayerWalk walk_layers(const ExecSpace& space,
                      const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                      PlannerScratch<ExecSpace, Ordinal, Offset>& scratch,
                      const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& level,
                      const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& spare,
                      const PlanOptions& options) {
  using Graph = DependencyGraph<ExecSpace, Ordinal, Offset>;
  const std::uint64_t waves = graph.wave_count();
  const std::uint64_t edges = graph.dependency_count();
  const auto remaining = prefix(scratch.remaining, waves);
  const auto order = prefix(scratch.order, waves);
  const auto released = prefix(scratch.graph.cursor, waves);  // the fill cursor is free now
  PlanStatistics stats;

  std::uint64_t frontier = frontier_start(space, graph, remaining, order, level);
  stats.sources = frontier;
  constexpr bool device_backend =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  const Kokkos::View<Ordinal*, typename ExecSpace::memory_space> no_link;

  // Chain contraction: on a GPU a deep chain costs one dependent queue step
  // (microseconds) per wave; ranked by pointer jumping it costs log2(length)
  // rounds. On host backends a plain walk of a chain is already cheap.
  const bool try_chains =
      waves < std::uint64_t(chained_level<Ordinal>) &&
      (options.chains == ChainContraction::Always ||
       (options.chains == ChainContraction::Automatic && device_backend &&
        (options.mode == PlanMode::Automatic || options.mode == PlanMode::Fused)));
  if (try_chains) {
    const auto link = prefix(spare, waves);
    const std::uint64_t chained = link_chains(space, graph, remaining, link, released);
    if (chained != 0 && (options.chains == ChainContraction::Always || 2 * chained >= waves)) {
      rank_chains(space, waves, link, released, order, level);
      const std::uint64_t heads_first = finalise_chains(space, graph, remaining, order, level,
                                                        link, released);
      stats.chained_waves = chained;
      stats.first_decision = std::to_string(chained) + " of " + std::to_string(waves) +
                             " waves sit in chains: ranked by pointer jumping, the " +
                             std::to_string(waves - chained) + " heads walked fused";
      stats.fused = true;
      stats.fused_workers = fused_worker_count(space, waves - chained);
      fused_tail(space, graph, remaining, order, level, prefix(scratch.step_counters, 4), 0,
                 heads_first, stats.fused_workers, link);
      LayerWalk walk;
      walk.scheduled = expand_chains<ExecSpace, Ordinal, Offset>(space, waves, remaining, level, link);
      walk.fused = true;
      if (options.statistics) *options.statistics = stats;
      return walk;
    }
  }

  launch::LaunchPolicy policy = launch::LaunchPolicy::standard();
  policy.ordinal_bytes = sizeof(Ordinal);  // its memory rule sizes this planner's buffers
  policy.offset_bytes = sizeof(Offset);
  const launch::DeviceLimits limits = launch::DeviceLimits::query(space);
  Graph reverse;
  Kokkos::View<Offset*, typename ExecSpace::memory_space> cursor;
  auto ensure_reverse = [&] {
    if (reverse.row_map.extent(0) != 0) return;
    scratch.reserve_reverse(waves, edges);
    reverse.row_map = prefix(scratch.reverse_row_map, waves + 1);
    reverse.entries = prefix(scratch.reverse_entries, edges);
    cursor = prefix(scratch.in_cursor, waves);
    reverse_csr(space, graph, reverse, cursor);
  };

  auto& layer_begin = scratch.layer_begin;
  layer_begin.clear();
  LayerWalk walk;
  std::uint64_t begin = 0, previous = 0, widest = frontier;
  bool bottom_up = false;
  std::size_t bottom_up_from = 0;  // order index where the owed edges start
  // A hub (a wave with more edges than policy.heavy_wave_degree) would be one
  // thread's loop in a dense or fused step on a GPU: keep auto top-down then.
  const bool heavy_waves = device_backend && options.mode == PlanMode::Automatic &&
                           max_wave_degree(space, graph, remaining) > policy.heavy_wave_degree;
  // Device-paced batches: the forced size, or 1, 2, 4, ... 64 layers while the
  // frontier stays narrower than the device, on backends the host cannot read.
  std::size_t paced_batch = options.layers_per_sync != 0 ? options.layers_per_sync : 1;
  std::uint64_t dense_scanned = 0;  // waves visited by bottom-up steps so far
  bool persistent_refused = false;  // the device could not hold a persistent league
  const std::uint64_t dense_scan_limit = policy.dense_scan_budget * (waves + edges);
  try {
    layer_begin.push_back(0);
    for (Ordinal layer = 0; frontier != 0;) {
      // Pick this layer's step.
      launch::LaunchMode step = launch::LaunchMode::Sparse;
      const std::uint64_t density = frontier * 10000 / waves;  // waves > 0: frontier != 0
      switch (options.mode) {
        case PlanMode::Sparse: step = launch::LaunchMode::Sparse; break;
        case PlanMode::Dense: step = launch::LaunchMode::Dense; break;
        case PlanMode::Fused: step = launch::LaunchMode::Fused; break;
        case PlanMode::Persistent: step = launch::LaunchMode::Sparse; break;
        case PlanMode::Hybrid:
          step = density >= policy.hybrid_min_density_bps ? launch::LaunchMode::Dense
                                                          : launch::LaunchMode::Sparse;
          break;
        case PlanMode::Automatic: {
          const auto request = layer_request(limits, waves, edges, frontier, previous, layer,
                                             options.device_memory_budget_bytes);
          step = policy.choose(request);
          if (layer == 0) {
            stats.first_decision = policy.recommend(request).reason;
            if (heavy_waves)
              stats.first_decision += "; a wave has more than " +
                                      std::to_string(policy.heavy_wave_degree) +
                                      " edges: every layer top-down";
          }
          // Hybrid and Dense both ask for a bottom-up step now; MemoryConstrained
          // cannot come back here (plan_barriers checked the budget first).
          if (step == launch::LaunchMode::Hybrid) step = launch::LaunchMode::Dense;
          if (step == launch::LaunchMode::MemoryConstrained) step = launch::LaunchMode::Sparse;
          if (heavy_waves) step = launch::LaunchMode::Sparse;
          break;
        }
      }
      // Bounded bottom-up work: each dense step scans every wave.
      if (step == launch::LaunchMode::Dense && dense_scanned + waves > dense_scan_limit) {
        step = launch::LaunchMode::Sparse;
        if (stats.dense_budget_spent_at_layer == 0) stats.dense_budget_spent_at_layer = layer;
      }
      if (step == launch::LaunchMode::Fused) {
        if (bottom_up) catch_up(space, graph, remaining, order, bottom_up_from, begin);
        stats.fused = true;
        stats.fused_from_layer = layer;
        stats.fused_workers = fused_worker_count(space, waves);
        walk.scheduled = fused_tail(space, graph, remaining, order, level,
                                    prefix(scratch.step_counters, 4), begin, frontier,
                                    stats.fused_workers, no_link);
        walk.fused = true;
        if (options.statistics) *options.statistics = stats;
        return walk;
      }
      if (step != launch::LaunchMode::Dense && bottom_up) {
        catch_up(space, graph, remaining, order, bottom_up_from, begin);
        bottom_up = false;
      }
      const bool narrow_on_device = options.layers_per_sync == 0 && device_backend &&
                                    frontier < static_cast<std::uint64_t>(space.concurrency());
      // Persistent: the remaining top-down layers in one launch, a device-wide
      // barrier between them (forced, or where device-paced batches would run
      // and no hub needs a whole team). Falls back to paced batches when the
      // league turns out not to be co-resident (nothing was touched then).
      if (step == launch::LaunchMode::Sparse && !persistent_refused &&
          (options.mode == PlanMode::Persistent ||
           (options.mode == PlanMode::Automatic && narrow_on_device && !heavy_waves))) {
        if (bottom_up) {
          catch_up(space, graph, remaining, order, bottom_up_from, begin);
          bottom_up = false;
        }
        std::uint64_t teams = 0;
        const std::uint64_t scheduled =
            persistent_layers(space, graph, remaining, order, level,
                              prefix(scratch.step_counters, persistent_word_count), begin,
                              frontier, layer, &teams);
        if (scheduled != 0) {
          stats.persistent = true;
          stats.persistent_from_layer = layer;
          stats.persistent_teams = teams;
          walk.scheduled = scheduled;
          walk.fused = true;  // the layers after this one are counted on the device
          if (options.statistics) *options.statistics = stats;
          return walk;
        }
        persistent_refused = true;
      }
      const bool paced =
          step == launch::LaunchMode::Sparse &&
          (options.layers_per_sync > 1 || narrow_on_device);
      if (paced) {
        const std::size_t batch = paced_batch;
        if (options.layers_per_sync == 0) paced_batch = std::min(2 * paced_batch, max_paced_layers);
        const auto sizes = sparse_paced(space, graph, remaining, order, level, scratch.step_counters,
                                        begin, frontier, layer, batch, paced_grid(space, widest));
        ++stats.paced_batches;
        for (const std::uint64_t next : sizes) {  // layer after layer of the batch
          begin += frontier;
          layer_begin.push_back(static_cast<Ordinal>(begin));
          ++stats.sparse_layers;
          ++layer;
          previous = frontier;
          frontier = next;
          if (frontier > widest) widest = frontier;
          if (frontier == 0) break;
        }
        continue;
      }
      std::uint64_t next = 0;
      if (step == launch::LaunchMode::Dense) {
        ensure_reverse();
        if (!bottom_up) {
          bottom_up = true;
          bottom_up_from = begin;
        }
        next = dense_step(space, reverse, cursor, order, level, begin + frontier, layer);
        dense_scanned += waves;
        ++stats.dense_layers;
      } else {
        next = sparse_step(space, graph, remaining, order, level, released, begin, frontier, layer);
        ++stats.sparse_layers;
      }
      begin += frontier;
      layer_begin.push_back(static_cast<Ordinal>(begin));
      ++layer;
      previous = frontier;
      frontier = next;
      if (frontier > widest) widest = frontier;
    }
  } catch (const std::bad_alloc& e) {
    throw PlanError::storage_reserve_failed("layer offsets", layer_begin.size() + 1, e.what());
  }
  walk.scheduled = begin;
  if (options.statistics) *options.statistics = stats;
  return walk;
}

}  // namespace strata::detail
