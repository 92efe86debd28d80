#pragma once
// What the planner asks its policy before each step of its walk
// (PlanStepRequest) and what the policy answers (PlanStepDecision): which
// step runs next and, for a device-paced step, how many layers it runs.
// PlanPolicy::choose_step (plan_policy.hpp) holds every rule; the planner
// (plan/detail/layer_driver.hpp) only runs the step it is given. Adding a
// step is one enum value here, one rule in choose_step and one step header in
// plan/detail/ with `advance(space, PlanState&)`: all of it inside plan/.
#include <cstddef>
#include <cstdint>

#include <strata/plan/plan_mode.hpp>
#include <strata/plan/policy/layer_request.hpp>

namespace strata {

/// Most layers one device-paced step may run (its device counters are sized for it).
inline constexpr std::size_t max_paced_layers = 64;

/// The planner's steps (headers in plan/detail/). Start comes first, or
/// Levels instead of the whole walk; terminal steps (Levels, HostLayers,
/// Persistent, Fused, Chains) finish the walk; the others compute one layer
/// (Paced: up to `batch` layers).
enum class PlanStep {
  Start,       ///< the remaining in-degrees and layer 0, the sources (frontier_start.hpp)
  Levels,      ///< every level in one pass in id order: the ids are topological (topological_levels.hpp)
  HostLayers,  ///< every layer top-down in one team of host threads (host_kahn.hpp)
  TopDown,     ///< one layer: release the frontier's targets, compact them (sparse_step.hpp)
  Paced,       ///< up to `batch` top-down layers with no host round trip (sparse_paced.hpp)
  BottomUp,    ///< one layer: every unscheduled wave checks its in-edges (dense_step.hpp)
  Persistent,  ///< every remaining layer top-down in one co-resident launch (persistent_layers.hpp)
  Fused,       ///< every remaining layer through one device-side ready queue (fused_tail.hpp)
  Chains,      ///< contract chains, walk the heads fused, expand (chain_contraction.hpp)
};

const char* plan_step_name(PlanStep step) noexcept;

/// The walk as the policy sees it before a step.
struct PlanStepRequest {
  // What the caller forced (PlanOptions).
  PlanMode mode = PlanMode::Automatic;
  std::uint32_t layers_per_sync = 0;  ///< 0: automatic device-paced batches
  ChainContraction chains = ChainContraction::Automatic;
  // The device.
  bool device_backend = false;       ///< the host cannot read the space's memory (a GPU)
  std::uint64_t concurrency = 1;     ///< threads the space runs at once
  /// A one-thread space can run this host space's kernels (Kokkos::Serial
  /// beside OpenMP: step_space.hpp); false on a device and on Serial itself.
  bool one_thread_space = false;
  /// PlanOptions::one_thread_layers: rule P7 may run narrow layers on one thread.
  bool one_thread_layers = true;
  // The graph.
  std::uint64_t waves = 0;
  std::uint64_t dependencies = 0;
  std::uint64_t max_wave_degree = 0;  ///< largest in- or out-degree (when measured, else 0)
  std::uint64_t chained_waves = 0;    ///< waves a chain contraction would level (when counted)
  /// The ids are known to be a topological order (the CSR build's validation
  /// pass, or a check over the CSR when the policy asks: wants_id_order()).
  bool ids_topological = false;
  /// Nothing has checked the ids' order yet (a caller's CSR): rule T may bet
  /// on it (check_while_levelling).
  bool ids_unchecked = false;
  // The walk so far.
  bool started = false;               ///< the Start step ran: in-degrees and layer 0 are known
  std::uint64_t layer = 0;            ///< level of the current frontier
  std::uint64_t scheduled = 0;        ///< waves in the layers before it
  std::uint64_t frontier = 0;         ///< waves in it (> 0 once started; at layer 0 the sources)
  std::uint64_t bottom_up_scanned = 0;  ///< waves visited by bottom-up steps so far
  std::uint64_t paced_batches = 0;    ///< device-paced batches run so far
  bool persistent_refused = false;    ///< a persistent launch found its league not co-resident
  /// The frontier on this device, as PlanPolicy::choose() reads it
  /// (layer_request(), plan/policy/layer_request.hpp); read in Automatic mode.
  LayerRequest layer_request;
};

/// Nothing forced: the automatic mode, chain contraction not forced on, no
/// batch size.
inline bool nothing_forced(const PlanStepRequest& r) {
  return r.mode == PlanMode::Automatic && r.chains != ChainContraction::Always &&
         r.layers_per_sync == 0;
}

struct PlanStepDecision {
  PlanStep step = PlanStep::TopDown;
  std::size_t batch = 1;  ///< layers of a Paced step (1 otherwise)
  /// The bottom-up bound (PlanPolicy::dense_scan_budget) turned a bottom-up
  /// step into this top-down one.
  bool bottom_up_budget_spent = false;
  /// Levels over ids nobody checked (rule T's bet): the pass checks them as
  /// it reads them and leaves the walk to Start where they are not
  /// topological.
  bool check_ids = false;
  /// Rule P7: this top-down step runs on one thread (step_space.hpp) instead
  /// of forking the host space's whole pool; the layer is the same.
  bool one_thread = false;
};

}  // namespace strata
