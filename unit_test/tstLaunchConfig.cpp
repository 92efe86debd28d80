// The executor's configuration (the seed's LaunchConfig): dispatch geometry,
// task slots, the executor's rules E1-E4, and DeviceLimits of TEST_EXECSPACE.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/device_limits.hpp>
#include <strata/execute/execute_policy.hpp>
#include <strata/execute/launch_config.hpp>
#include <strata/execute/task_queue.hpp>
#include <strata/plan/policy/plan_policy.hpp>

#include "test_helpers.hpp"

namespace strata {
namespace {

using test::expect_plan_error;

TEST(LaunchConfig, LaunchRequestPreservesWorkloadHints) {
  LaunchConfig config;
  config.workload = WorkloadHints{7, 11, 1000, 4000, 7500, 8000, 1u << 20, 1u << 24};
  const LaunchRequest request = config.launch_request(128, 256, 65535, 1024);
  EXPECT_EQ(request.hot_opcode_count, 7u);
  EXPECT_EQ(request.hot_window_count, 11u);
  EXPECT_EQ(request.graph_node_count, 1000u);
  EXPECT_EQ(request.graph_edge_count, 4000u);
  EXPECT_EQ(request.frontier_density_bps, 7500u);
  EXPECT_EQ(request.memory_pressure_bps, 8000u);
  EXPECT_EQ(request.resident_device_bytes, 1u << 20);
  EXPECT_EQ(request.device_memory_budget_bytes, 1u << 24);
  EXPECT_EQ(request.queue_len, 128u);
  EXPECT_EQ(request.requested_worker_groups, config.worker_count);
  EXPECT_EQ(request.max_team_size, 256u);
  EXPECT_EQ(request.max_league_size, 65535u);
  EXPECT_EQ(request.max_invocations_per_team, 1024u);
  EXPECT_EQ(request.expected_hits_per_item, 1u);  // 0 expected items -> 1
  config.expected_items_per_worker = 5;
  EXPECT_EQ(config.launch_request(1, 1, 1, 1).expected_hits_per_item, 5u);
}

TEST(LaunchConfig, ValidateRejectsUnschedulableConfigs) {
  LaunchConfig config;
  EXPECT_NO_THROW(config.validate());
  config.worker_count = 0;
  EXPECT_EQ(expect_plan_error(ErrorKind::InvalidLaunchConfig, [&] { config.validate(); }).field(),
            "worker_count");
  config.worker_count = 4;
  config.max_wall_time = std::chrono::nanoseconds::zero();
  EXPECT_EQ(expect_plan_error(ErrorKind::InvalidLaunchConfig, [&] { config.validate(); }).field(),
            "max_wall_time");
}

TEST(LaunchConfig, DispatchGridNeverExceedsWorkersOrNeed) {
  LaunchConfig config;
  config.worker_count = 8;
  EXPECT_EQ(config.dispatch_grid(1000, 64), (std::array<std::uint32_t, 3>{8, 1, 1}));  // capped
  EXPECT_EQ(config.dispatch_grid(100, 64), (std::array<std::uint32_t, 3>{2, 1, 1}));   // needed
  EXPECT_EQ(config.dispatch_grid(0, 64), (std::array<std::uint32_t, 3>{1, 1, 1}));     // at least one
  EXPECT_EQ(config.dispatch_grid(5, 0), (std::array<std::uint32_t, 3>{5, 1, 1}));      // team 0 -> 1
}

TEST(TaskQueue, OnlySchedulableSlotsAddLanes) {
  std::vector<TaskWorkItem> tasks;
  for (TaskState s : {TaskState::Empty, TaskState::Queued, TaskState::Running, TaskState::Yielded,
                      TaskState::Requeued, TaskState::Paused, TaskState::Completed,
                      TaskState::Faulted, TaskState::Requeued, TaskState::Queued})
    tasks.push_back(TaskWorkItem::with_state(s, static_cast<std::uint32_t>(tasks.size() * 3)));
  LaunchConfig config;
  const LaunchRequest r = config.launch_request_for_tasks(tasks, 256, 65535, 1024);
  EXPECT_EQ(r.queue_len, 5u);  // Queued x2, Yielded, Requeued x2
  EXPECT_EQ(r.requeue_count, 2u);
  EXPECT_EQ(r.max_priority_age, 27u);  // slot 9 (Queued) is the oldest schedulable
  const auto snapshot = TaskQueueSnapshot::from_tasks(tasks.data(), tasks.size());
  EXPECT_EQ(snapshot.count(TaskState::Faulted), 1u);
  EXPECT_EQ(snapshot.try_schedulable_count(), 5u);
}

TEST(TaskQueue, UnknownStateWordNamesTheSlot) {
  std::vector<TaskWorkItem> tasks(4, TaskWorkItem::with_state(TaskState::Queued));
  tasks[2].state_word = 42;
  tasks[3].state_word = 99;
  LaunchConfig config;
  const auto e = expect_plan_error(ErrorKind::InvalidTaskState, [&] {
    config.launch_request_for_tasks(tasks, 256, 65535, 1024);
  });
  EXPECT_EQ(e.slot(), 2u);
  EXPECT_EQ(e.state_word(), 42u);
  EXPECT_NE(std::string(e.what()).find("slot 2"), std::string::npos);
  expect_plan_error(ErrorKind::InvalidTaskState, [&] {
    config.launch_recommendation_for_tasks(tasks, 256, 65535, 1024);
  });
}

TEST(ExecutePolicy, AutomaticModeFollowsRulesE1ToE4) {
  const ExecutePolicy p = ExecutePolicy::standard();
  auto shape = [](std::uint64_t waves, std::uint64_t groups, std::uint32_t threads,
                  std::uint32_t teams, bool host, std::uint64_t widest = 0,
                  std::uint64_t at_once = 0) {
    ExecutionShape s;
    s.waves = waves;
    s.groups = groups;
    s.device_concurrency = threads;
    s.resident_teams = teams;
    s.host_backend = host;
    s.widest_group = widest;
    s.persistent_waves_at_once = at_once;
    return s;
  };
  const std::uint32_t w = p.dataflow_width_per_team;
  struct Row {
    ExecutionShape shape;
    ExecuteMode expected;
  } rows[] = {
      {shape(1000, 1, 8, 8, true), ExecuteMode::Layered},             // E1: one group
      {shape(0, 0, 8, 8, false), ExecuteMode::Layered},               // E1: empty
      {shape(100000, 100000, 1, 1, true), ExecuteMode::Persistent},   // E2: one thread
      {shape(100000, 100000, 8, 8, true), ExecuteMode::Dataflow},     // E3: a chain
      {shape(8 * w - 1, 1, 8, 8, false), ExecuteMode::Layered},       // E1 before E3
      {shape(10 * (8 * w - 1), 10, 8, 8, false), ExecuteMode::Dataflow},  // E3: narrow
      {shape(10 * 8 * w, 10, 8, 8, true, 8 * w, 8 * w), ExecuteMode::Layered},  // E4: host
      // E4 on a device: persistent when the widest group runs in one pass
      {shape(10 * 8 * w, 10, 8, 8, false, 8 * w, 8 * w), ExecuteMode::Persistent},
      {shape(10 * 8 * w, 10, 8, 8, false, 8 * w + 1, 8 * w), ExecuteMode::Layered},
      {shape(10 * 8 * w, 10, 8, 8, false), ExecuteMode::Layered},  // widest not given
  };
  for (const Row& row : rows) {
    const ExecutionRecommendation rec = p.recommend(row.shape);
    EXPECT_EQ(rec.mode, row.expected)
        << row.shape.waves << " waves " << row.shape.groups << " groups: " << rec.reason;
    EXPECT_FALSE(rec.reason.empty());
  }
  EXPECT_STREQ(execute_mode_name(ExecuteMode::Dataflow), "dataflow");
}

TEST(DeviceLimits, QueryReportsTheBackend) {
  const auto limits = DeviceLimits::query<TEST_EXECSPACE>();
  EXPECT_EQ(limits.backend, TEST_EXECSPACE::name());
  EXPECT_GE(limits.concurrency, 1u);
  EXPECT_GE(limits.max_team_size, 1u);
  EXPECT_LE(limits.max_team_size, limits.max_invocations_per_team);
  EXPECT_GE(limits.max_league_size, 1u);
  EXPECT_EQ(LaunchConfig().launch_request(5, limits).device_concurrency, limits.concurrency);
  // A request built from real limits is always well-formed.
  LaunchConfig config;
  EXPECT_NO_THROW(PlanPolicy::standard().recommend(layer_request_of(config.launch_request(1000, limits))));
  EXPECT_NO_THROW(PlanPolicy::standard().recommend(layer_request(limits, 1000, 4000, 10, 0, 0, 0)));
}

}  // namespace
}  // namespace strata
