// The planner's policy: rules 1-7 on a table of shapes (asked as LaunchConfig
// asks them, and directly), and the planner's steps (rules T, K, P1-P6).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/device_limits.hpp>
#include <strata/execute/launch_config.hpp>
#include <strata/plan/policy/layer_request.hpp>
#include <strata/plan/policy/plan_policy.hpp>
#include <strata/plan/policy/plan_step.hpp>

#include "test_helpers.hpp"

namespace strata {
namespace {

using test::expect_plan_error;

/// A planner step request at layer 3 of a walk over 100,000 waves and
/// 400,000 dependencies on a space of `limits.concurrency` threads.
PlanStepRequest walk_request(const DeviceLimits& limits, PlanMode mode, std::uint64_t frontier) {
  PlanStepRequest r;
  r.mode = mode;
  r.concurrency = limits.concurrency;
  r.waves = 100000;
  r.dependencies = 400000;
  r.started = true;
  r.layer = 3;
  r.frontier = frontier;
  r.layer_request = layer_request(limits, r.waves, r.dependencies, frontier, frontier, 3, 0);
  return r;
}

TEST(PlanPolicy, MalformedLimitsAreErrors) {
  LaunchConfig config;
  expect_plan_error(ErrorKind::InvalidDeviceLimits, [&] { config.launch_recommendation(8, 0, 65535, 1024); });
  expect_plan_error(ErrorKind::InvalidDeviceLimits, [&] { config.launch_recommendation(8, 256, 0, 1024); });
  expect_plan_error(ErrorKind::InvalidDeviceLimits, [&] { config.launch_recommendation(8, 256, 65535, 0); });
  const auto e = expect_plan_error(ErrorKind::InvalidDeviceLimits,
                                   [&] { config.launch_recommendation(8, 2048, 65535, 1024); });
  EXPECT_EQ(e.field(), "max_team_size");
  config.worker_count = 0;
  expect_plan_error(ErrorKind::InvalidDeviceLimits, [&] { config.launch_recommendation(8, 256, 65535, 1024); });
}

// The documented decisions (docs/plan.md) on a table of shapes.
struct Shape {
  const char* name;
  std::uint32_t frontier, nodes, edges, hits;
  std::uint64_t budget, resident;
  std::uint16_t pressure;
  LaunchMode expected;
};

TEST(PlanPolicy, DecisionsOnATableOfShapes) {
  const Shape shapes[] = {
      {"deep chain, narrow and not growing", 1, 1000000, 999999, 1, 0, 0, 0, LaunchMode::Fused},
      {"tiny graph", 3, 10, 12, 1, 0, 0, 0, LaunchMode::Fused},
      {"narrow but growing (sweep start)", 1, 8000000, 23880000, 2, 0, 0, 0, LaunchMode::Sparse},
      {"wide layered 10000 x 1000", 10000, 10000000, 30000000, 1, 0, 0, 0, LaunchMode::Sparse},
      {"dense first layer", 850000, 1000000, 5000000, 2, 0, 0, 0, LaunchMode::Dense},
      {"mixed density", 600000, 1000000, 5000000, 2, 0, 0, 0, LaunchMode::Hybrid},
      {"dense but the reverse CSR does not fit", 850000, 1000000, 5000000, 2, 60000000, 0, 0,
       LaunchMode::Sparse},
      {"dense under memory pressure", 850000, 1000000, 5000000, 2, 0, 0, 9500, LaunchMode::Sparse},
      {"over budget", 1000, 1000000, 5000000, 2, 1000000, 0, 0, LaunchMode::MemoryConstrained},
      {"resident bytes push it over", 1000, 1000000, 5000000, 2, 64000000, 40000000, 0,
       LaunchMode::MemoryConstrained},
  };
  const PlanPolicy policy = PlanPolicy::standard();
  for (const Shape& s : shapes) {
    LaunchConfig config;
    config.expected_items_per_worker = s.hits;
    config.workload.graph_node_count = s.nodes;
    config.workload.graph_edge_count = s.edges;
    config.workload.device_memory_budget_bytes = s.budget;
    config.workload.resident_device_bytes = s.resident;
    config.workload.memory_pressure_bps = s.pressure;
    const LayerRequest request = layer_request_of(config.launch_request(s.frontier, 256, 65535, 1024));
    const LayerRecommendation layer = policy.recommend(request);
    const LaunchRecommendation rec = launch_recommendation_of(layer);
    EXPECT_EQ(rec.mode, s.expected) << s.name << ": " << launch_mode_name(rec.mode) << " ("
                                    << rec.reason << ")";
    EXPECT_EQ(policy.choose(request), layer.memory_constrained ? PlanMode::Sparse : layer.mode)
        << s.name;
    EXPECT_FALSE(rec.reason.empty()) << s.name;
    EXPECT_GE(rec.league_size, 1u);
    EXPECT_LE(rec.league_size, config.worker_count);
    EXPECT_LE(rec.team_size, 256u);
    EXPECT_LE(rec.frontier_capacity, std::uint64_t(s.frontier) * (s.hits ? s.hits : 1));
  }
}

TEST(PlanPolicy, ASingleThreadDeviceFusesUnlessTheFrontierIsWide) {
  LaunchConfig config;
  config.workload.graph_node_count = 8000000;
  config.workload.graph_edge_count = 24000000;
  LaunchRequest r = config.launch_request(1, 1, 65535, 1);
  r.expected_hits_per_item = 2;  // narrow but growing (a sweep's start): Sparse when parallel
  EXPECT_EQ(PlanPolicy::standard().choose(layer_request_of(r)), PlanMode::Sparse);
  r.device_concurrency = 1;
  const auto rec = PlanPolicy::standard().recommend(layer_request_of(r));
  EXPECT_EQ(rec.mode, PlanMode::Fused) << rec.reason;
  EXPECT_EQ(rec.team_size, 1u);
  r.queue_len = 10000;  // a wide frontier: layer by layer even on one thread
  EXPECT_EQ(PlanPolicy::standard().choose(layer_request_of(r)), PlanMode::Sparse);
}

// The planner's steps: rules T, K and P1-P6 of PlanPolicy::choose_step on a
// table of walk states (the planner only runs what this returns; P7 below).
TEST(PlanPolicy, PlannerStepsFollowRulesTKAndP1ToP6) {
  const PlanPolicy policy = PlanPolicy::standard();
  DeviceLimits limits;
  limits.concurrency = 1000;
  limits.max_team_size = limits.max_invocations_per_team = 256;
  limits.max_league_size = 65535;
  auto request = [&](PlanMode mode, std::uint64_t frontier, bool device) {
    PlanStepRequest r = walk_request(limits, mode, frontier);
    r.device_backend = device;
    return r;
  };
  auto step = [&](const PlanStepRequest& r) { return policy.choose_step(r).step; };
  // T: before the walk, topological ids on a host with nothing forced give
  // one pass in id order; anything else starts the walk.
  auto before = request(PlanMode::Automatic, 0, false);
  before.started = false;
  before.layer = 0;
  EXPECT_EQ(step(before), PlanStep::Start);
  EXPECT_TRUE(policy.wants_id_order(before));
  before.ids_topological = true;
  std::string why;
  EXPECT_EQ(policy.choose_step(before, &why).step, PlanStep::Levels);
  EXPECT_NE(why.find("one pass"), std::string::npos) << why;
  before.device_backend = true;
  EXPECT_FALSE(policy.wants_id_order(before));
  EXPECT_EQ(step(before), PlanStep::Start);
  before.device_backend = false;
  before.mode = PlanMode::Sparse;
  EXPECT_FALSE(policy.wants_id_order(before));
  EXPECT_EQ(step(before), PlanStep::Start);
  // K: at layer 0 on a host, with few sources and nothing forced: every
  // layer in one team of host threads; a dense start, a device or a forced
  // mode walks the layers.
  auto first = request(PlanMode::Automatic, 10, false);
  first.layer = 0;
  EXPECT_EQ(policy.choose_step(first, &why).step, PlanStep::HostLayers);
  EXPECT_NE(why.find("one team"), std::string::npos) << why;
  first.frontier = first.waves / 2;
  EXPECT_NE(step(first), PlanStep::HostLayers);
  first.frontier = 10;
  first.device_backend = true;
  EXPECT_NE(step(first), PlanStep::HostLayers);
  first.device_backend = false;
  first.layers_per_sync = 2;
  EXPECT_NE(step(first), PlanStep::HostLayers);
  // P2: forced modes name their step; Hybrid by density.
  EXPECT_EQ(step(request(PlanMode::Sparse, 5000, false)), PlanStep::TopDown);
  EXPECT_EQ(step(request(PlanMode::Dense, 5000, false)), PlanStep::BottomUp);
  EXPECT_EQ(step(request(PlanMode::Fused, 5000, false)), PlanStep::Fused);
  EXPECT_EQ(step(request(PlanMode::Hybrid, 60000, false)), PlanStep::BottomUp);
  EXPECT_EQ(step(request(PlanMode::Hybrid, 5000, false)), PlanStep::TopDown);
  // Automatic reads rules 1-7: a dense frontier goes bottom-up, a narrow
  // non-growing one fused, a mid-sized one top-down on a host.
  EXPECT_EQ(step(request(PlanMode::Automatic, 90000, false)), PlanStep::BottomUp);
  EXPECT_EQ(step(request(PlanMode::Automatic, 10, false)), PlanStep::Fused);
  EXPECT_EQ(step(request(PlanMode::Automatic, 5000, false)), PlanStep::TopDown);
  // ... a mixed-density one (rule 6) top-down unless the reverse CSR exists
  // already (a bottom-up step ran), on a host and on a device,
  for (const bool device : {false, true}) {
    auto mixed = request(PlanMode::Automatic, 60000, device);
    EXPECT_EQ(policy.choose(mixed.layer_request), PlanMode::Hybrid);
    EXPECT_EQ(policy.choose_step(mixed, &why).step, PlanStep::TopDown);
    EXPECT_NE(why.find("reverse CSR"), std::string::npos) << why;
    mixed.bottom_up_scanned = mixed.waves;
    EXPECT_EQ(step(mixed), PlanStep::BottomUp);
  }
  // ... but not with under dense_min_unscheduled_bps of the waves left to place,
  auto last = request(PlanMode::Automatic, 90000, false);
  last.scheduled = last.waves - last.frontier - 99;
  EXPECT_EQ(step(last), PlanStep::TopDown);
  last.scheduled -= 1;  // 100 of 100000 waves left: 0.1 % < 1 %
  EXPECT_EQ(step(last), PlanStep::TopDown);
  last.scheduled = 0;   // 10000 left: 10 %
  EXPECT_EQ(step(last), PlanStep::BottomUp);
  // ... and a heavy wave keeps it top-down.
  auto heavy = request(PlanMode::Automatic, 90000, true);
  heavy.max_wave_degree = policy.heavy_wave_degree + 1;
  EXPECT_EQ(step(heavy), PlanStep::TopDown);
  // P3: the bottom-up bound.
  auto spent = request(PlanMode::Dense, 5000, false);
  spent.bottom_up_scanned = policy.dense_scan_budget * (spent.waves + spent.dependencies);
  const auto d = policy.choose_step(spent);
  EXPECT_EQ(d.step, PlanStep::TopDown);
  EXPECT_TRUE(d.bottom_up_budget_spent);
  // P5: persistent when forced, or narrower than a device (not after a refusal).
  EXPECT_EQ(step(request(PlanMode::Persistent, 5000, false)), PlanStep::Persistent);
  EXPECT_EQ(step(request(PlanMode::Automatic, 500, true)), PlanStep::Persistent);
  auto refused = request(PlanMode::Automatic, 500, true);
  refused.persistent_refused = true;
  // P6: then device-paced batches of 1, 2, 4, ... 64 layers.
  for (std::uint64_t batches = 0; batches < 9; ++batches) {
    refused.paced_batches = batches;
    const auto paced = policy.choose_step(refused);
    EXPECT_EQ(paced.step, PlanStep::Paced);
    EXPECT_EQ(paced.batch, std::size_t(1) << (batches < 6 ? batches : 6));
  }
  auto forced = request(PlanMode::Sparse, 5000, false);
  forced.layers_per_sync = 8;
  EXPECT_EQ(policy.choose_step(forced).step, PlanStep::Paced);
  EXPECT_EQ(policy.choose_step(forced).batch, 8u);
  forced.layers_per_sync = 1;
  EXPECT_EQ(step(forced), PlanStep::TopDown);
  // P1: chains at layer 0 when at least half of the waves are chained.
  auto chains = request(PlanMode::Automatic, 5000, true);
  EXPECT_TRUE(policy.count_chains(chains));
  EXPECT_FALSE(policy.count_chains(request(PlanMode::Automatic, 5000, false)));
  chains.layer = 0;  // (a device: rule K does not apply)
  chains.chained_waves = chains.waves / 2;
  std::string reason;
  EXPECT_EQ(policy.choose_step(chains, &reason).step, PlanStep::Chains);
  EXPECT_NE(reason.find("sit in chains"), std::string::npos);
  chains.chained_waves = chains.waves / 2 - 1;
  EXPECT_NE(step(chains), PlanStep::Chains);
  chains.chains = ChainContraction::Always;
  EXPECT_EQ(step(chains), PlanStep::Chains);
}

// Rule P7: a narrow top-down layer on a host backend of several threads,
// with a one-thread space beside it, runs on one thread; never on a device,
// on one thread, for another step, at the threshold, or with the rule off.
TEST(PlanPolicy, NarrowTopDownLayersOfAHostPoolRunOnOneThread) {
  const PlanPolicy policy = PlanPolicy::standard();
  ASSERT_GT(policy.one_thread_max_frontier_per_thread, 0u);
  DeviceLimits limits;
  limits.concurrency = 2;
  limits.max_team_size = limits.max_invocations_per_team = 1;
  limits.max_league_size = 65535;
  auto request = [&](PlanMode mode, std::uint64_t frontier) {
    PlanStepRequest r = walk_request(limits, mode, frontier);
    r.one_thread_space = true;
    return r;
  };
  const std::uint64_t threshold = 2 * policy.one_thread_max_frontier_per_thread;
  for (const PlanMode mode : {PlanMode::Sparse, PlanMode::Dense, PlanMode::Hybrid}) {
    auto narrow = request(mode, 1);
    if (mode == PlanMode::Dense)  // past the bottom-up bound: top-down (P3)
      narrow.bottom_up_scanned = policy.dense_scan_budget * (narrow.waves + narrow.dependencies);
    auto d = policy.choose_step(narrow);
    EXPECT_EQ(d.step, PlanStep::TopDown) << plan_mode_name(mode);
    EXPECT_TRUE(d.one_thread) << plan_mode_name(mode);
    narrow.frontier = threshold - 1;
    EXPECT_TRUE(policy.choose_step(narrow).one_thread) << plan_mode_name(mode);
    narrow.frontier = threshold;
    EXPECT_FALSE(policy.choose_step(narrow).one_thread) << plan_mode_name(mode);
    narrow.frontier = 1;
    auto off = narrow;
    off.one_thread_layers = false;
    EXPECT_FALSE(policy.choose_step(off).one_thread) << plan_mode_name(mode);
    auto one = narrow;
    one.concurrency = 1;
    EXPECT_FALSE(policy.choose_step(one).one_thread) << plan_mode_name(mode);
    auto alone = narrow;
    alone.one_thread_space = false;  // Serial itself, or no Serial beside the pool
    EXPECT_FALSE(policy.choose_step(alone).one_thread) << plan_mode_name(mode);
    auto device = narrow;
    device.device_backend = true;
    d = policy.choose_step(device);
    EXPECT_FALSE(d.one_thread) << plan_mode_name(mode);
  }
  // Other steps never: a bottom-up step (it scans every wave), persistent, paced.
  EXPECT_FALSE(policy.choose_step(request(PlanMode::Dense, 1)).one_thread);
  EXPECT_EQ(policy.choose_step(request(PlanMode::Dense, 1)).step, PlanStep::BottomUp);
  EXPECT_FALSE(policy.choose_step(request(PlanMode::Persistent, 1)).one_thread);
  auto paced = request(PlanMode::Sparse, 1);
  paced.layers_per_sync = 4;
  EXPECT_EQ(policy.choose_step(paced).step, PlanStep::Paced);
  EXPECT_FALSE(policy.choose_step(paced).one_thread);
}

}  // namespace
}  // namespace strata
