#pragma once
// The LaunchRequest the planner puts to the launch policy for one frontier
// (PlanStepRequest::layer_request). Public so that tools (`strata explain`)
// ask the policy exactly what the planner asks.
#include <cstdint>

#include <strata/launch/device_limits.hpp>
#include <strata/launch/launch_config.hpp>
#include <strata/launch/launch_request.hpp>

namespace strata::launch {

/// A frontier of `frontier` waves at level `layer` of a graph of `waves`
/// waves and `dependencies` edges, after a frontier of `previous` waves
/// (growth is only known from the second layer on; before, it is assumed to
/// grow), under a device memory budget (0 = none).
inline LaunchRequest layer_request(const DeviceLimits& limits, std::uint64_t waves,
                                   std::uint64_t dependencies, std::uint64_t frontier,
                                   std::uint64_t previous, std::uint64_t layer,
                                   std::uint64_t budget_bytes) {
  auto clamp32 = [](std::uint64_t v) {
    return static_cast<std::uint32_t>(v > 0xffffffffu ? 0xffffffffu : v);
  };
  LaunchConfig c;
  c.workload.graph_node_count = clamp32(waves);
  c.workload.graph_edge_count = clamp32(dependencies);
  const std::uint64_t density = waves == 0 ? 0 : frontier * 10000 / waves;
  c.workload.frontier_density_bps = static_cast<std::uint16_t>(density == 0 ? 1 : density);
  c.workload.device_memory_budget_bytes = budget_bytes;
  c.expected_items_per_worker = (layer == 0 || frontier > previous) ? 2 : 1;
  return limits.request(c, clamp32(frontier));
}

}  // namespace strata::launch
