#pragma once
// The seed's launch request and recommendation, as LaunchConfig builds and
// answers them (execute/launch_config.hpp). LaunchConfig answers with the
// planner's rules 1-7 (PlanPolicy, plan/policy/): layer_request_of() and
// launch_recommendation_of() translate between the two, losslessly.
#include <cstdint>
#include <string>

#include <strata/plan/policy/layer_request.hpp>

namespace strata {

struct LaunchRequest {
  std::uint32_t queue_len = 0;                 ///< schedulable work items
  std::uint32_t requested_worker_groups = 0;   ///< caller's persistent team ceiling
  std::uint32_t max_team_size = 0;             ///< backend: threads per team
  std::uint32_t max_league_size = 0;           ///< backend: teams per launch dimension
  std::uint32_t max_invocations_per_team = 0;  ///< backend: invocations per team
  std::uint32_t requested_hit_capacity = 0;    ///< explicit next-frontier capacity (0 = derive)
  std::uint32_t expected_hits_per_item = 1;    ///< average out-degree: next-frontier items per item
  std::uint32_t hot_opcode_count = 0;
  std::uint32_t hot_window_count = 0;
  std::uint32_t requeue_count = 0;     ///< requeued task slots in the snapshot
  std::uint32_t max_priority_age = 0;  ///< oldest priority age among schedulable slots
  std::uint32_t graph_node_count = 0;
  std::uint32_t graph_edge_count = 0;
  std::uint16_t frontier_density_bps = 0;
  std::uint16_t memory_pressure_bps = 0;
  std::uint64_t resident_device_bytes = 0;
  std::uint64_t device_memory_budget_bytes = 0;
  std::uint32_t device_concurrency = 0;  ///< hardware threads of the device (0 = unknown)
};

/// The seed's names of the planner's rules 1-7 answers (PlanMode's Sparse,
/// Dense, Hybrid, Fused, and the budget rule's MemoryConstrained).
enum class LaunchMode { Sparse, Dense, Hybrid, Fused, MemoryConstrained };

const char* launch_mode_name(LaunchMode mode) noexcept;

struct LaunchRecommendation {
  LaunchMode mode = LaunchMode::Sparse;
  std::uint32_t league_size = 1;      ///< teams to launch
  std::uint32_t team_size = 1;        ///< threads per team
  std::uint64_t frontier_capacity = 0;  ///< next-frontier buffer entries
  std::uint64_t needed_bytes = 0;     ///< device bytes the plan would hold (0 if unknown)
  std::string reason;                 ///< one line: which rule decided, with its figures
};

/// The planner's question for this request (every count widens, none is lost).
LayerRequest layer_request_of(const LaunchRequest& request);
/// The seed's form of the planner's answer.
LaunchRecommendation launch_recommendation_of(const LayerRecommendation& rec);

}  // namespace strata
