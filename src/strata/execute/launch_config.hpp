#pragma once
// LaunchConfig: the caller's configuration of one persistent dispatch (the
// seed's launch configuration), and the requests / recommendations built
// from it; a recommendation applies the planner's rules 1-7
// (PlanPolicy::standard(), plan/policy/plan_policy.hpp).
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <strata/core/device_limits.hpp>
#include <strata/core/launch_sizing.hpp>
#include <strata/execute/launch_request.hpp>
#include <strata/execute/task_queue.hpp>
#include <strata/execute/workload_hints.hpp>

namespace strata {

struct LaunchConfig {
  /// Persistent worker teams (the dispatch ceiling).
  std::uint32_t worker_count = SizingPolicy::standard().default_worker_count();
  /// Wall-clock budget before the dispatch drains its queue and exits.
  std::chrono::nanoseconds max_wall_time =
      std::chrono::seconds(SizingPolicy::standard().default_max_wall_seconds());
  /// Items each worker is expected to produce per item (sizes the next frontier).
  std::uint32_t expected_items_per_worker = 0;
  WorkloadHints workload;

  /// InvalidLaunchConfig when worker_count is zero or max_wall_time is not positive.
  void validate() const;

  /// Direct-dispatch grid for `queue_len` slots: never more teams than
  /// worker_count, and never more than the slots need.
  std::array<std::uint32_t, 3> dispatch_grid(std::uint32_t queue_len,
                                             std::uint32_t max_team_size) const;

  LaunchRequest launch_request(std::uint32_t queue_len, std::uint32_t max_team_size,
                               std::uint32_t max_league_size,
                               std::uint32_t max_invocations_per_team) const;
  /// The same with the device's limits, and its concurrency.
  LaunchRequest launch_request(std::uint32_t queue_len, const DeviceLimits& limits) const;

  /// From task slots: only schedulable slots add lanes; the snapshot's
  /// requeue count and maximum priority age are applied. InvalidTaskState
  /// for an unknown state word.
  LaunchRequest launch_request_for_tasks(const std::vector<TaskWorkItem>& tasks,
                                         std::uint32_t max_team_size,
                                         std::uint32_t max_league_size,
                                         std::uint32_t max_invocations_per_team) const;

  /// InvalidDeviceLimits for malformed limits.
  LaunchRecommendation launch_recommendation(std::uint32_t queue_len, std::uint32_t max_team_size,
                                             std::uint32_t max_league_size,
                                             std::uint32_t max_invocations_per_team) const;

  LaunchRecommendation launch_recommendation_for_tasks(
      const std::vector<TaskWorkItem>& tasks, std::uint32_t max_team_size,
      std::uint32_t max_league_size, std::uint32_t max_invocations_per_team) const;
};

}  // namespace strata
