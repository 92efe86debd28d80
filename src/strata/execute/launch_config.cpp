#include <strata/execute/launch_config.hpp>

#include <strata/core/error.hpp>
#include <strata/execute/dispatch_geometry.hpp>
#include <strata/plan/policy/plan_policy.hpp>

namespace strata {

const char* launch_mode_name(LaunchMode mode) noexcept {
  switch (mode) {
    case LaunchMode::Sparse: return "sparse";
    case LaunchMode::Dense: return "dense";
    case LaunchMode::Hybrid: return "hybrid";
    case LaunchMode::Fused: return "fused";
    case LaunchMode::MemoryConstrained: return "memory-constrained";
  }
  return "unknown";
}

LayerRequest layer_request_of(const LaunchRequest& r) {
  LayerRequest q;
  q.frontier = r.queue_len;
  q.waves = r.graph_node_count;
  q.dependencies = r.graph_edge_count;
  q.expected_hits_per_wave = r.expected_hits_per_item;
  q.hit_capacity = r.requested_hit_capacity;
  q.max_teams = r.requested_worker_groups;
  q.frontier_density_bps = r.frontier_density_bps;
  q.memory_pressure_bps = r.memory_pressure_bps;
  q.resident_device_bytes = r.resident_device_bytes;
  q.device_memory_budget_bytes = r.device_memory_budget_bytes;
  q.max_team_size = r.max_team_size;
  q.max_league_size = r.max_league_size;
  q.max_invocations_per_team = r.max_invocations_per_team;
  q.device_concurrency = r.device_concurrency;
  return q;
}

LaunchRecommendation launch_recommendation_of(const LayerRecommendation& rec) {
  LaunchRecommendation out;
  switch (rec.mode) {
    case PlanMode::Dense: out.mode = LaunchMode::Dense; break;
    case PlanMode::Hybrid: out.mode = LaunchMode::Hybrid; break;
    case PlanMode::Fused: out.mode = LaunchMode::Fused; break;
    default: out.mode = LaunchMode::Sparse; break;
  }
  if (rec.memory_constrained) out.mode = LaunchMode::MemoryConstrained;
  out.league_size = rec.league_size;
  out.team_size = rec.team_size;
  out.frontier_capacity = rec.frontier_capacity;
  out.needed_bytes = rec.needed_bytes;
  out.reason = rec.reason;
  return out;
}

void LaunchConfig::validate() const {
  if (worker_count == 0)
    throw PlanError::invalid_launch_config("worker_count", "worker_count must be non-zero",
                                           "provide at least one worker team");
  if (max_wall_time <= std::chrono::nanoseconds::zero())
    throw PlanError::invalid_launch_config("max_wall_time", "max_wall_time must be positive",
                                           "supply a positive duration budget");
}

std::array<std::uint32_t, 3> LaunchConfig::dispatch_grid(std::uint32_t queue_len,
                                                         std::uint32_t max_team_size) const {
  return dispatch_grid_for(worker_count, queue_len, max_team_size);
}

LaunchRequest LaunchConfig::launch_request(std::uint32_t queue_len, std::uint32_t max_team_size,
                                           std::uint32_t max_league_size,
                                           std::uint32_t max_invocations_per_team) const {
  LaunchRequest r;
  r.queue_len = queue_len;
  r.requested_worker_groups = worker_count;
  r.max_team_size = max_team_size;
  r.max_league_size = max_league_size;
  r.max_invocations_per_team = max_invocations_per_team;
  r.requested_hit_capacity = 0;
  r.expected_hits_per_item = expected_items_per_worker > 1 ? expected_items_per_worker : 1;
  r.hot_opcode_count = workload.hot_opcode_count;
  r.hot_window_count = workload.hot_window_count;
  r.requeue_count = 0;
  r.max_priority_age = 0;
  r.graph_node_count = workload.graph_node_count;
  r.graph_edge_count = workload.graph_edge_count;
  r.frontier_density_bps = workload.frontier_density_bps;
  r.memory_pressure_bps = workload.memory_pressure_bps;
  r.resident_device_bytes = workload.resident_device_bytes;
  r.device_memory_budget_bytes = workload.device_memory_budget_bytes;
  return r;
}

LaunchRequest LaunchConfig::launch_request(std::uint32_t queue_len,
                                           const DeviceLimits& limits) const {
  LaunchRequest r = launch_request(queue_len, limits.max_team_size, limits.max_league_size,
                                   limits.max_invocations_per_team);
  r.device_concurrency = limits.concurrency;
  return r;
}

LaunchRequest LaunchConfig::launch_request_for_tasks(const std::vector<TaskWorkItem>& tasks,
                                                     std::uint32_t max_team_size,
                                                     std::uint32_t max_league_size,
                                                     std::uint32_t max_invocations_per_team) const {
  const TaskQueueSnapshot snapshot = TaskQueueSnapshot::from_tasks(tasks.data(), tasks.size());
  const LaunchRequest request = launch_request(snapshot.try_schedulable_count(), max_team_size,
                                               max_league_size, max_invocations_per_team);
  return snapshot.try_apply_to_launch_request(request);
}

LaunchRecommendation LaunchConfig::launch_recommendation(
    std::uint32_t queue_len, std::uint32_t max_team_size, std::uint32_t max_league_size,
    std::uint32_t max_invocations_per_team) const {
  return launch_recommendation_of(PlanPolicy::standard().recommend(layer_request_of(
      launch_request(queue_len, max_team_size, max_league_size, max_invocations_per_team))));
}

LaunchRecommendation LaunchConfig::launch_recommendation_for_tasks(
    const std::vector<TaskWorkItem>& tasks, std::uint32_t max_team_size,
    std::uint32_t max_league_size, std::uint32_t max_invocations_per_team) const {
  return launch_recommendation_of(PlanPolicy::standard().recommend(layer_request_of(
      launch_request_for_tasks(tasks, max_team_size, max_league_size, max_invocations_per_team))));
}

}  // namespace strata
