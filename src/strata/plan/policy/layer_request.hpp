#pragma once
// What the planner asks its policy about one frontier (LayerRequest, rules
// 1-7 of PlanPolicy) and what the policy answers (LayerRecommendation).
// Counts are 64-bit: a frontier, a graph and a memory budget go to the rules
// as the planner holds them, with no narrowing on the way. layer_request()
// is public so that tools (`strata explain`) ask the policy exactly what the
// planner asks.
#include <cstdint>
#include <string>

#include <strata/core/device_limits.hpp>
#include <strata/core/launch_sizing.hpp>
#include <strata/plan/plan_mode.hpp>

namespace strata {

struct LayerRequest {
  std::uint64_t frontier = 0;      ///< waves in the frontier (the work items of the layer)
  std::uint64_t waves = 0;         ///< waves of the graph (0: unknown, the frontier stands in)
  std::uint64_t dependencies = 0;  ///< edges of the graph
  std::uint64_t expected_hits_per_wave = 1;  ///< next-frontier items per wave (1: not growing)
  std::uint64_t hit_capacity = 0;  ///< explicit next-frontier capacity (0 = derive)
  /// Teams the caller allows at most (the dispatch ceiling); 0 is malformed.
  std::uint64_t max_teams = SizingPolicy::standard().default_worker_count();
  std::uint16_t frontier_density_bps = 0;  ///< frontier / waves (0: derive from the counts)
  std::uint16_t memory_pressure_bps = 0;   ///< device memory in use / capacity
  std::uint64_t resident_device_bytes = 0;       ///< bytes already held beside the plan
  std::uint64_t device_memory_budget_bytes = 0;  ///< 0 = unbounded
  // The device (DeviceLimits).
  std::uint32_t max_team_size = 0;
  std::uint32_t max_league_size = 0;
  std::uint32_t max_invocations_per_team = 0;
  std::uint32_t device_concurrency = 0;  ///< hardware threads (0 = unknown)
};

struct LayerRecommendation {
  /// Sparse, Dense, Hybrid or Fused (never Automatic or Persistent).
  PlanMode mode = PlanMode::Sparse;
  /// Graph + planner storage exceed the budget (rule 2): shard it.
  bool memory_constrained = false;
  std::uint32_t league_size = 1;        ///< teams to launch
  std::uint32_t team_size = 1;          ///< threads per team
  std::uint64_t frontier_capacity = 0;  ///< next-frontier buffer entries
  std::uint64_t needed_bytes = 0;       ///< device bytes the plan would hold (0 if unknown)
  std::string reason;                   ///< one line: which rule decided, with its figures
};

/// "sparse", "dense", "hybrid", "fused" or "memory-constrained".
const char* layer_recommendation_name(const LayerRecommendation& rec) noexcept;

/// A frontier of `frontier` waves at level `layer` of a graph of `waves`
/// waves and `dependencies` edges, after a frontier of `previous` waves
/// (growth is only known from the second layer on; before, it is assumed to
/// grow), under a device memory budget (0 = none).
inline LayerRequest layer_request(const DeviceLimits& limits, std::uint64_t waves,
                                  std::uint64_t dependencies, std::uint64_t frontier,
                                  std::uint64_t previous, std::uint64_t layer,
                                  std::uint64_t budget_bytes) {
  LayerRequest r;
  r.frontier = frontier;
  r.waves = waves;
  r.dependencies = dependencies;
  const std::uint64_t density = waves == 0 ? 0 : frontier * 10000 / waves;
  r.frontier_density_bps = static_cast<std::uint16_t>(density == 0 ? 1 : density);
  r.device_memory_budget_bytes = budget_bytes;
  r.expected_hits_per_wave = (layer == 0 || frontier > previous) ? 2 : 1;
  r.max_team_size = limits.max_team_size;
  r.max_league_size = limits.max_league_size;
  r.max_invocations_per_team = limits.max_invocations_per_team;
  r.device_concurrency = limits.concurrency;
  return r;
}

}  // namespace strata
