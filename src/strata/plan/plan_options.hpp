#pragma once
#include <cstdint>
#include <string>

#include <strata/plan/plan_mode.hpp>

namespace strata {

// PlanMode and ChainContraction: plan/plan_mode.hpp (the planner's policy
// turns them into steps).

const char* plan_mode_name(PlanMode mode) noexcept;
/// "auto", "sparse", "dense", "hybrid", "fused"; InvalidArgument otherwise.
PlanMode parse_plan_mode(const std::string& name);

/// What a planning call did (filled when PlanOptions::statistics is set).
struct PlanStatistics {
  std::uint64_t sparse_layers = 0;  ///< layers computed top-down
  std::uint64_t dense_layers = 0;   ///< layers computed bottom-up
  bool fused = false;               ///< the remaining layers ran in one fused launch (or in the one-pass topological levels)
  bool topological = false;         ///< ids are a topological order: every level in one pass (planner rule T)
  std::uint64_t fused_from_layer = 0;
  std::uint64_t fused_workers = 0;
  bool persistent = false;          ///< the remaining layers ran in one persistent launch
  std::uint64_t persistent_from_layer = 0;
  std::uint64_t persistent_teams = 0;  ///< its co-resident league
  std::uint64_t paced_batches = 0;  ///< host round trips of device-paced sparse layers
  std::uint64_t chained_waves = 0;  ///< waves levelled by chain contraction (0: not used)
  std::uint64_t sources = 0;        ///< waves in layer 0
  /// Bottom-up steps stopped at this layer because they had used up
  /// PlanPolicy::dense_scan_budget (0: never); later layers ran top-down.
  std::uint64_t dense_budget_spent_at_layer = 0;
  /// Top-down layers run on one thread instead of the host space's whole
  /// pool (planner rule P7: narrow layers on a multi-thread host backend;
  /// always 0 on a device backend and on one thread).
  std::uint64_t one_thread_steps = 0;
  std::string first_decision;       ///< the policy's reason for the first layer
};

struct PlanOptions {
  PlanMode mode = PlanMode::Automatic;
  /// Device memory the plan may hold (0 = unbounded); more is MemoryConstrained.
  std::uint64_t device_memory_budget_bytes = 0;
  PlanStatistics* statistics = nullptr;
  /// Sparse layers launched back to back between two host synchronisations
  /// (1..64). 0: automatic — device-paced batches of growing size on backends
  /// whose memory the host cannot read (GPUs, where each synchronisation costs
  /// tens of microseconds), one layer per synchronisation on host backends.
  std::uint32_t layers_per_sync = 0;
  ChainContraction chains = ChainContraction::Automatic;
  /// Planner rule P7: on a host backend of several threads, a top-down layer
  /// narrower than PlanPolicy::one_thread_max_frontier_per_thread waves per
  /// thread runs on one thread (no fork and join of the pool, whose barrier
  /// waits for every thread: on a loaded or oversubscribed machine, for
  /// descheduled ones). false: every layer runs on the whole pool. The plan
  /// is the same either way.
  bool one_thread_layers = true;
};

}  // namespace strata
