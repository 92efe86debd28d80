#pragma once
#include <cstdint>

namespace strata {

/// Optional scale signals that let the planner's rules 1-7 (PlanPolicy) choose sparse, dense,
/// hybrid, fused or memory-constrained execution from the real workload shape
/// instead of the queue length alone. Zero means "unknown, infer if possible".
struct WorkloadHints {
  std::uint32_t hot_opcode_count = 0;   ///< opcodes hot enough for promotion
  std::uint32_t hot_window_count = 0;   ///< ticketed route windows hot enough for promotion
  std::uint32_t graph_node_count = 0;   ///< resident dependency-graph nodes (waves)
  std::uint32_t graph_edge_count = 0;   ///< resident dependency-graph edges
  std::uint16_t frontier_density_bps = 0;  ///< active frontier / nodes, basis points
  std::uint16_t memory_pressure_bps = 0;   ///< device memory in use / capacity, basis points
  std::uint64_t resident_device_bytes = 0;       ///< bytes this dispatch family already holds
  std::uint64_t device_memory_budget_bytes = 0;  ///< hard budget; 0 = unbounded

  friend bool operator==(const WorkloadHints& a, const WorkloadHints& b) {
    return a.hot_opcode_count == b.hot_opcode_count && a.hot_window_count == b.hot_window_count &&
           a.graph_node_count == b.graph_node_count && a.graph_edge_count == b.graph_edge_count &&
           a.frontier_density_bps == b.frontier_density_bps &&
           a.memory_pressure_bps == b.memory_pressure_bps &&
           a.resident_device_bytes == b.resident_device_bytes &&
           a.device_memory_budget_bytes == b.device_memory_budget_bytes;
  }
};

}  // namespace strata
