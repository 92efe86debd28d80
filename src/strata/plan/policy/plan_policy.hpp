#pragma once
// PlanPolicy: the planner's rules. Rules 1-7 turn a LayerRequest (one
// frontier on this device) into a LayerRecommendation (a mode); rules T, K
// and P1-P7 (choose_step) turn the walk so far into the next step.
// LaunchConfig::launch_recommendation (execute/) asks rules 1-7 too.
//
// Rules 1-7, in order (thresholds are members so tests and tuning can see
// them; the standard values and the measurements behind them are in
// docs/plan.md):
//
//  1. limits      zero team size, league size or invocations, or a team size
//                 above the invocations per team, are malformed: an error.
//  2. memory      graph + planner storage + resident bytes above a non-zero
//                 budget: MemoryConstrained (shard it). If only the dense
//                 modes' reverse CSR does not fit, or memory pressure is at
//                 least `pressure_sparse_bps`, the dense modes are ruled out.
//  3. one thread  a device with one hardware thread (device_concurrency 1,
//                 e.g. Kokkos::Serial) and a frontier of at most
//                 `serial_fused_max_frontier` waves: layer barriers only
//                 cost, and the fused queue, continuing each wave into the
//                 first target it releases, follows the graph's locality:
//                 Fused. (A wide frontier of scattered ids keeps better cache
//                 locality layer by layer: the later rules decide.)
//  4. narrow      a frontier of at most `fused_max_frontier` waves that is not
//                 growing (expected_hits_per_item <= 1) cannot fill the
//                 device, and a deep graph pays a launch and a fence per
//                 layer: Fused (one launch for all remaining layers).
//  5. dense       frontier density (frontier / all waves) of at least
//                 `dense_min_density_bps`: a bottom-up step over all waves
//                 costs less than top-down atomics over the frontier: Dense.
//  6. mixed       density of at least `hybrid_min_density_bps`: Hybrid
//                 (bottom-up while layers are that dense, top-down after).
//  7. otherwise   Sparse.
//
// The planner's steps (choose_step, plan/policy/plan_step.hpp) follow from
// the same rules plus rules T, K and P1-P7 below; docs/plan.md
// lists them.
#include <cstdint>
#include <string>

#include <strata/plan/policy/layer_request.hpp>
#include <strata/plan/policy/plan_step.hpp>

namespace strata {

class PlanPolicy {
 public:
  static PlanPolicy standard();

  /// Rules 1-7. Throws InvalidDeviceLimits for malformed limits.
  LayerRecommendation recommend(const LayerRequest& request) const;
  /// The mode recommend() would give, without formatting its reason (the
  /// planner asks before every layer); MemoryConstrained reads as Sparse
  /// (plan_barriers checks the budget before the walk).
  PlanMode choose(const LayerRequest& request) const;

  /// The planner's next step. Rules, in order:
  ///  T.  before the walk (not started): the ids known topological
  ///      (wants_id_order) and use_topological_levels: Levels, which ends
  ///      the plan; otherwise Start (in-degrees and layer 0);
  ///  K.  at layer 0, use_host_layers with the sources (the frontier):
  ///      HostLayers, which ends the plan;
  ///  P1. chains: at layer 0, when chains were counted (count_chains) and at
  ///      least half of the waves are chained (any chain when forced Always):
  ///      Chains;
  ///  P2. the mode: a forced mode names its step (Hybrid: bottom-up while the
  ///      frontier holds `hybrid_min_density_bps` of the waves); Automatic asks
  ///      choose(layer_request) — Dense runs bottom-up, Hybrid bottom-up
  ///      only once a bottom-up step built the reverse CSR (a second copy of
  ///      the graph is not worth its memory below `dense_min_density_bps`),
  ///      Fused fused, the rest top-down — but top-down where fewer than
  ///      `dense_min_unscheduled_bps` of the waves are left behind the
  ///      frontier (a bottom-up step could only place those, after building
  ///      a reverse CSR the size of the graph's), and where a wave has more
  ///      than `heavy_wave_degree` edges (measure_wave_degree);
  ///  P3. the bottom-up bound: a bottom-up step past `dense_scan_budget`
  ///      graph-sized scans runs top-down;
  ///  P4. fused: Fused;
  ///  P5. persistent: a top-down step, forced Persistent, or Automatic with
  ///      the frontier narrower than a device backend (no forced
  ///      layers_per_sync, no heavy wave), unless a persistent launch was
  ///      refused: Persistent;
  ///  P6. paced: a top-down step with a forced layers_per_sync above 1, or
  ///      with the frontier narrower than a device backend: Paced, `batch` =
  ///      the forced size or 1, 2, 4, ... max_paced_layers per batch run;
  ///  P7. one thread: a top-down step (what P2-P6 left one) on a host
  ///      backend of several threads with a one-thread space beside it
  ///      (r.one_thread_space), a frontier below
  ///      `one_thread_max_frontier_per_thread` x its threads, and
  ///      PlanOptions::one_thread_layers: `one_thread` (the layer runs on one
  ///      thread, plan/detail/step_space.hpp; never on a device).
  /// `reason` (when not null) receives the deciding rule's line in Automatic
  /// mode, for rules T and K, or for chains (PlanStatistics::first_decision),
  /// else stays as is.
  PlanStepDecision choose_step(const PlanStepRequest& request, std::string* reason = nullptr) const;
  /// Whether the planner counts chains before its walk (a link pass over the
  /// waves): forced Always, or Automatic on a device backend in the auto and
  /// fused modes (on a host a plain walk of a chain is already cheap).
  bool count_chains(const PlanStepRequest& request) const;
  /// Whether the planner measures the largest wave degree (a reduction) for
  /// rule P2: the auto mode on device backends, where a hub would be one
  /// thread's loop in a bottom-up or fused step.
  bool measure_wave_degree(const PlanStepRequest& request) const;
  /// Whether the planner should learn if the ids are a topological order
  /// (a check over the CSR, where the CSR build's validation pass did not
  /// already say) for rule T: where use_topological_levels would say yes.
  bool wants_id_order(const PlanStepRequest& request) const;
  /// Rule T (choose_step, before the walk): whether to
  /// check the ids for a topological order (every dependency from a lower to
  /// a higher id, one reduction in the CSR's count pass) and, where they are
  /// one, to level the graph in one pass, level(i) = 1 + max level(pred)
  /// (plan/detail/topological_levels.hpp), instead of walking its layers.
  /// Yes on a host backend (the pass is one thread walking the graph in
  /// memory order: no frontier, no atomics, no barrier per layer), when the
  /// caller forced nothing (automatic mode, no forced chain contraction, no
  /// forced layers per synchronisation). No on a device: one GPU thread
  /// walking every edge is slower than the layered walk. `reason` (optional)
  /// receives one line.
  bool use_topological_levels(bool host_backend, bool nothing_forced,
                              std::string* reason = nullptr) const;
  /// The deepest level a ticket-ordered levelling pass on a device may reach
  /// before it gives up (plan_in_edges, plan/detail/ticket_levels.hpp): one
  /// thread per wave waits for its predecessors, so the pass costs about one
  /// contended memory round trip per level on its critical path — far more
  /// per level than the layer walk once the waiting threads fill the device
  /// (deep sweeps levelled this way were several times slower than the
  /// layer walk), and cheap for a shallow graph (the 20 levels of an ILU
  /// factor). Deeper graphs give up early and cheaply.
  std::uint64_t ticket_depth_budget() const { return ticket_max_levels; }
  /// Rule T on a host backend, over input nobody has checked: whether the
  /// one-thread level pass checks it as it reads it, betting that it is in
  /// order, instead of a parallel pass first. Over a dependency list (in
  /// plan_barriers) the pass checks each dependency inside the graph, from a
  /// lower to a higher id, the list sorted by one endpoint, in place of the
  /// validation pass; over a caller's CSR (choose_step, PlanStepDecision::
  /// check_ids) it checks each target above its row, in place of
  /// csr_ids_topological's reduction. Where the bet fails the pass stops
  /// there and the input is validated and planned as usual, so errors and
  /// plans are the same either way. Yes below `checked_levels_max_threads`
  /// host threads: on one thread the list's validation pass costs nearly as
  /// much as the level pass and the CSR's reduction about 0.4 of the push
  /// pass (strata_bench --profile), while
  /// checking inside the pass costs under 0.1 of it (the CSR's compare: none
  /// measurable), so the parallel pass pays for itself only split over many
  /// threads, and there a bet that fails late wastes up to one pass.
  bool check_while_levelling(std::uint64_t host_threads) const {
    return host_threads < checked_levels_max_threads;
  }
  /// Rule K (choose_step, at layer 0, where rule T did not apply): walk every layer top-down in one launch of one team whose
  /// threads each own a part of the waves (plan/detail/host_kahn.hpp: no
  /// locked instruction, each frontier edge read once and sent to its
  /// owner's bounded outbox, per-thread frontier buffers, team barriers per
  /// layer, layers of at most `fused_max_frontier` waves walked by one
  /// thread). Yes on a host backend when nothing is forced and the sources
  /// are below `hybrid_min_density_bps` of the waves (a denser start is left
  /// to rules 5 and 6 in the layer walk). `reason` (optional) receives one line.
  bool use_host_layers(bool host_backend, bool nothing_forced, std::uint64_t waves,
                       std::uint64_t sources, std::string* reason = nullptr) const;

  std::uint64_t ticket_max_levels = 0;  ///< ticket_depth_budget()
  std::uint64_t checked_levels_max_threads = 0;  ///< check_while_levelling()

  std::uint32_t serial_fused_max_frontier = 0;  ///< rule 3
  std::uint32_t fused_max_frontier = 0;       ///< rule 4
  std::uint16_t dense_min_density_bps = 0;    ///< rule 5
  std::uint16_t hybrid_min_density_bps = 0;   ///< rule 6
  std::uint16_t pressure_sparse_bps = 0;      ///< rule 2
  std::uint32_t default_team_size = 0;        ///< threads per team when the device allows it
  /// The planner on a device backend: a wave with more in- or out-edges than
  /// this keeps every layer top-down (the dense and fused steps, and the
  /// reverse CSR build, walk one wave's edges on one thread).
  std::uint64_t heavy_wave_degree = 0;
  /// The planner in Automatic mode (rule P2): a bottom-up step needs at least
  /// this share of all waves still unscheduled behind the frontier.
  std::uint16_t dense_min_unscheduled_bps = 0;
  /// Rule P7: a top-down layer of fewer than this many waves per host thread
  /// runs on one thread. The pool costs a fork and a join per kernel (two
  /// per layer) whose barrier waits for every thread — microseconds on a
  /// quiet machine, up to a scheduler time slice per layer on a loaded or
  /// oversubscribed one — and below this width splitting the layer saves
  /// no more than that (docs/plan.md has the figures).
  std::uint64_t one_thread_max_frontier_per_thread = 0;
  /// The planner, in every mode (forced Dense too): a bottom-up step scans
  /// every wave, so a deep graph would cost waves x depth. Once the bottom-up
  /// steps have scanned this many times (waves + dependencies), the remaining
  /// layers run top-down, which keeps the whole plan within a constant
  /// multiple of the graph's size (the plan is the same either way).
  std::uint64_t dense_scan_budget = 0;
  unsigned ordinal_bytes = 4, offset_bytes = 4;  ///< for the memory estimate

 private:
  void decide(const LayerRequest& request, LayerRecommendation& rec, std::string* reason) const;
};

}  // namespace strata
