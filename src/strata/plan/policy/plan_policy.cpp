#include <strata/plan/policy/plan_policy.hpp>

#include <string>

#include <strata/core/error.hpp>
#include <strata/plan/planner_storage.hpp>

namespace strata {

const char* layer_recommendation_name(const LayerRecommendation& rec) noexcept {
  if (rec.memory_constrained) return "memory-constrained";
  switch (rec.mode) {
    case PlanMode::Sparse: return "sparse";
    case PlanMode::Dense: return "dense";
    case PlanMode::Hybrid: return "hybrid";
    case PlanMode::Fused: return "fused";
    default: break;
  }
  return "unknown";
}

const char* plan_step_name(PlanStep step) noexcept {
  switch (step) {
    case PlanStep::Start: return "start";
    case PlanStep::Levels: return "levels";
    case PlanStep::HostLayers: return "host-layers";
    case PlanStep::TopDown: return "top-down";
    case PlanStep::Paced: return "paced";
    case PlanStep::BottomUp: return "bottom-up";
    case PlanStep::Persistent: return "persistent";
    case PlanStep::Fused: return "fused";
    case PlanStep::Chains: return "chains";
  }
  return "unknown";
}

PlanPolicy PlanPolicy::standard() {
  PlanPolicy p;
  // Measured on this project's benchmarks (docs/plan.md).
  p.serial_fused_max_frontier = 4096;
  p.fused_max_frontier = 64;
  // Bottom-up steps never won on the host graphs measured (the reverse CSR
  // costs a second CSR build); they are kept for frontiers covering most of
  // the graph, where a scan over all waves is nearly all useful work.
  p.dense_min_density_bps = 8000;
  p.hybrid_min_density_bps = 5000;
  p.pressure_sparse_bps = 9000;
  p.default_team_size = 256;
  // Measured on a GPU (docs/performance.md): a 1M fan-in's sink in one dense
  // step, a 1M fan-out's reverse CSR and power-law hubs in the fused walk
  // each run on one thread; top-down steps spread a hub over a team.
  p.heavy_wave_degree = 4096;
  // A ticket-ordered levelling pass gives up past 64 levels (see
  // ticket_depth_budget()).
  p.ticket_max_levels = 64;
  // One-thread validation ~0.85 of the level pass: split over t threads it
  // costs 0.85/t of it, against ~0.1 for checking inside the pass (see
  // check_while_levelling()); t = 8 is where they meet.
  p.checked_levels_max_threads = 8;
  // A bottom-up step builds the reverse CSR (a second CSR: time, and memory
  // the size of the graph's) and scans every wave to place at most the waves
  // left behind the frontier; with under 1 % of them left, a top-down step
  // walks only the frontier's out-edges, all of which end in those waves.
  // Without it fan-outs, out-trees and fan-ins went bottom-up for a last
  // layer with at most one wave to place, at several times the CSR's bytes.
  p.dense_min_unscheduled_bps = 100;
  // A forced dense mode on a 100k chain would scan 10^10 waves; 64
  // graph-sized scans leave room for every wide-layer graph measured.
  p.dense_scan_budget = 64;
  // Rule P7: below a few hundred waves per thread a top-down layer on one
  // thread is as fast as on the pool of an idle host, and on a loaded or
  // oversubscribed one it saves the pool's fork and join, which wait for
  // descheduled threads (the measurements: docs/plan.md, rule P7).
  p.one_thread_max_frontier_per_thread = 256;
  return p;
}

namespace {
std::string percent(std::uint64_t bps) {
  return std::to_string(bps / 100) + "." + std::to_string((bps % 100) / 10) + "%";
}
}  // namespace

bool PlanPolicy::use_topological_levels(bool host_backend, bool nothing_forced,
                                          std::string* reason) const {
  const bool use = host_backend && nothing_forced;
  if (reason)
    *reason = use ? "ids are a topological order on a host backend: levels in one pass, "
                    "level(i) = 1 + max level(pred), on one thread (no layer walk)"
                  : !host_backend ? "device backend: the layers are walked (a one-thread pass "
                                    "over the graph would be slower)"
                                  : "a mode, chain contraction or batch size was forced: the "
                                    "layers are walked";
  return use;
}

bool PlanPolicy::use_host_layers(bool host_backend, bool nothing_forced, std::uint64_t waves,
                                   std::uint64_t sources, std::string* reason) const {
  const std::uint64_t density = waves == 0 ? 0 : sources * 10000 / waves;
  const bool sparse_start = density < hybrid_min_density_bps;
  const bool use = host_backend && nothing_forced && sparse_start;
  if (reason) {
    if (use)
      *reason = "host backend, " + std::to_string(sources) + " sources of " +
                std::to_string(waves) + " waves (" + percent(density) +
                "): every layer top-down in one team, each thread owning a part of the waves";
    else if (!host_backend)
      *reason = "device backend: layers walked step by step";
    else if (!nothing_forced)
      *reason = "a mode, chain contraction or batch size was forced: layers walked step by step";
    else
      *reason = "sources are " + percent(density) + " of the waves (at least " +
                percent(hybrid_min_density_bps) + "): layers walked step by step";
  }
  return use;
}

bool PlanPolicy::count_chains(const PlanStepRequest& r) const {
  return r.chains == ChainContraction::Always ||
         (r.chains == ChainContraction::Automatic && r.device_backend &&
          (r.mode == PlanMode::Automatic || r.mode == PlanMode::Fused));
}

bool PlanPolicy::wants_id_order(const PlanStepRequest& r) const {
  return use_topological_levels(!r.device_backend, nothing_forced(r));
}

bool PlanPolicy::measure_wave_degree(const PlanStepRequest& r) const {
  return r.device_backend && r.mode == PlanMode::Automatic;
}

PlanStepDecision PlanPolicy::choose_step(const PlanStepRequest& r, std::string* reason) const {
  PlanStepDecision d;
  // T. before the walk: one pass in id order, or the start of the walk
  if (!r.started) {
    std::string line;
    const bool bet = !r.ids_topological && r.ids_unchecked && check_while_levelling(r.concurrency);
    if ((r.ids_topological || bet) &&
        use_topological_levels(!r.device_backend, nothing_forced(r), reason ? &line : nullptr)) {
      d.step = PlanStep::Levels;
      d.check_ids = bet;
      if (reason) *reason = line;
    } else {
      d.step = PlanStep::Start;
    }
    return d;
  }
  // K. at layer 0: every layer in one team of host threads
  if (r.layer == 0) {
    std::string line;
    if (use_host_layers(!r.device_backend, nothing_forced(r), r.waves, r.frontier,
                        reason ? &line : nullptr)) {
      d.step = PlanStep::HostLayers;
      if (reason) *reason = line;
      return d;
    }
  }
  // P1. chains
  if (r.layer == 0 && r.chained_waves != 0 &&
      (r.chains == ChainContraction::Always || 2 * r.chained_waves >= r.waves)) {
    d.step = PlanStep::Chains;
    if (reason)
      *reason = std::to_string(r.chained_waves) + " of " + std::to_string(r.waves) +
                " waves sit in chains: ranked by pointer jumping, the " +
                std::to_string(r.waves - r.chained_waves) + " heads walked fused";
    return d;
  }
  // P2. the mode
  const bool heavy = r.max_wave_degree > heavy_wave_degree;
  switch (r.mode) {
    case PlanMode::Sparse:
    case PlanMode::Persistent: d.step = PlanStep::TopDown; break;
    case PlanMode::Dense: d.step = PlanStep::BottomUp; break;
    case PlanMode::Fused: d.step = PlanStep::Fused; break;
    case PlanMode::Hybrid: {
      const std::uint64_t density = r.waves == 0 ? 0 : r.frontier * 10000 / r.waves;
      d.step = density >= hybrid_min_density_bps ? PlanStep::BottomUp : PlanStep::TopDown;
      break;
    }
    case PlanMode::Automatic: {
      LayerRecommendation rec;
      decide(r.layer_request, rec, reason);
      // MemoryConstrained cannot come back here (plan_barriers checked the budget first).
      switch (rec.memory_constrained ? PlanMode::Sparse : rec.mode) {
        case PlanMode::Dense:
        case PlanMode::Hybrid: d.step = PlanStep::BottomUp; break;
        case PlanMode::Fused: d.step = PlanStep::Fused; break;
        default: d.step = PlanStep::TopDown; break;
      }
      // A bottom-up step first builds the reverse CSR, a second copy of the
      // graph (and a per-wave cursor): nearly twice the bytes of a top-down
      // walk, and on an in-tree no faster (docs/plan.md "Storage"). Only
      // a dense frontier pays for it.
      if (d.step == PlanStep::BottomUp && rec.mode == PlanMode::Hybrid &&
          r.bottom_up_scanned == 0) {
        d.step = PlanStep::TopDown;
        if (reason)
          *reason += "; below " + percent(dense_min_density_bps) +
                     " the reverse CSR (a second copy of the graph) is not worth its memory: top-down";
      }
      const std::uint64_t left = r.waves - r.scheduled - r.frontier;
      if (d.step == PlanStep::BottomUp &&
          left * 10000 < std::uint64_t(dense_min_unscheduled_bps) * r.waves) {
        d.step = PlanStep::TopDown;
        if (reason)
          *reason += "; only " + std::to_string(left) + " of " + std::to_string(r.waves) +
                     " waves left to place: top-down";
      }
      if (heavy) {
        d.step = PlanStep::TopDown;
        if (reason)
          *reason += "; a wave has more than " + std::to_string(heavy_wave_degree) +
                     " edges: every layer top-down";
      }
      break;
    }
  }
  // P3. the bottom-up bound
  if (d.step == PlanStep::BottomUp &&
      r.bottom_up_scanned + r.waves > dense_scan_budget * (r.waves + r.dependencies)) {
    d.step = PlanStep::TopDown;
    d.bottom_up_budget_spent = true;
  }
  // P4. fused
  if (d.step != PlanStep::TopDown) return d;
  // P5. persistent
  const bool narrow_on_device =
      r.layers_per_sync == 0 && r.device_backend && r.frontier < r.concurrency;
  if (!r.persistent_refused && (r.mode == PlanMode::Persistent ||
                                (r.mode == PlanMode::Automatic && narrow_on_device && !heavy))) {
    d.step = PlanStep::Persistent;
    return d;
  }
  // P6. paced
  if (r.layers_per_sync > 1 || narrow_on_device) {
    d.step = PlanStep::Paced;
    if (r.layers_per_sync != 0) {
      d.batch = r.layers_per_sync;
    } else {
      d.batch = 1;
      for (std::uint64_t b = 0; b < r.paced_batches && d.batch < max_paced_layers; ++b)
        d.batch *= 2;
      if (d.batch > max_paced_layers) d.batch = max_paced_layers;
    }
  }
  // P7. one thread
  d.one_thread = d.step == PlanStep::TopDown && r.one_thread_layers && r.one_thread_space &&
                 !r.device_backend && r.concurrency > 1 &&
                 r.frontier < one_thread_max_frontier_per_thread * r.concurrency;
  return d;
}

LayerRecommendation PlanPolicy::recommend(const LayerRequest& r) const {
  LayerRecommendation rec;
  decide(r, rec, &rec.reason);
  return rec;
}

PlanMode PlanPolicy::choose(const LayerRequest& r) const {
  LayerRecommendation rec;
  decide(r, rec, nullptr);
  return rec.memory_constrained ? PlanMode::Sparse : rec.mode;
}

void PlanPolicy::decide(const LayerRequest& r, LayerRecommendation& rec,
                          std::string* reason) const {
  // 1. limits
  if (r.max_team_size == 0)
    throw PlanError::invalid_device_limits("max_team_size", "max_team_size is 0");
  if (r.max_league_size == 0)
    throw PlanError::invalid_device_limits("max_league_size", "max_league_size is 0");
  if (r.max_invocations_per_team == 0)
    throw PlanError::invalid_device_limits("max_invocations_per_team",
                                           "max_invocations_per_team is 0");
  if (r.max_team_size > r.max_invocations_per_team)
    throw PlanError::invalid_device_limits(
        "max_team_size", "max_team_size " + std::to_string(r.max_team_size) +
                             " exceeds max_invocations_per_team " +
                             std::to_string(r.max_invocations_per_team));
  if (r.max_teams == 0)
    throw PlanError::invalid_device_limits("requested_worker_groups",
                                           "requested_worker_groups is 0");

  const std::uint64_t nodes = r.waves != 0 ? r.waves : r.frontier;
  const std::uint64_t hits = r.expected_hits_per_wave == 0 ? 1 : r.expected_hits_per_wave;
  std::uint64_t capacity = r.hit_capacity != 0 ? r.hit_capacity : r.frontier * hits;
  if (r.hit_capacity == 0 && nodes != 0 && capacity > nodes) capacity = nodes;
  rec.frontier_capacity = capacity;

  // Geometry: teams of default_team_size threads (or what the device allows),
  // as many as the frontier needs, within the caller's and the device's caps.
  rec.team_size = default_team_size < r.max_team_size ? default_team_size : r.max_team_size;
  std::uint64_t league = (r.frontier + rec.team_size - 1) / rec.team_size;
  if (league > r.max_teams) league = r.max_teams;
  if (league > r.max_league_size) league = r.max_league_size;
  rec.league_size = static_cast<std::uint32_t>(league == 0 ? 1 : league);

  // 2. memory
  const auto sparse_bytes =
      planner_storage_bytes(nodes, r.dependencies, ordinal_bytes, offset_bytes, false);
  const auto dense_bytes =
      planner_storage_bytes(nodes, r.dependencies, ordinal_bytes, offset_bytes, true);
  const std::uint64_t needed = r.resident_device_bytes + sparse_bytes.total();
  rec.needed_bytes = needed;
  const std::uint64_t budget = r.device_memory_budget_bytes;
  if (budget != 0 && needed > budget) {
    rec.memory_constrained = true;
    if (reason) *reason = "graph + planner storage need " + std::to_string(needed) +
                 " bytes, above the budget of " + std::to_string(budget) + " bytes";
    return;
  }
  bool dense_allowed = true;
  std::string dense_note;  // only formatted when a reason is asked for
  if (budget != 0 && r.resident_device_bytes + dense_bytes.total() > budget) {
    dense_allowed = false;
    if (reason) dense_note = "; the reverse CSR of the dense modes would exceed the budget";
  } else if (r.memory_pressure_bps >= pressure_sparse_bps) {
    dense_allowed = false;
    if (reason)
      dense_note = "; memory pressure " + percent(r.memory_pressure_bps) + " rules out the reverse CSR";
  }

  // 3. a single hardware thread
  if (r.device_concurrency == 1 && r.frontier <= serial_fused_max_frontier) {
    rec.mode = PlanMode::Fused;
    rec.league_size = 1;
    rec.team_size = 1;
    if (reason)
      *reason = "one hardware thread and a frontier of " + std::to_string(r.frontier) +
                " waves (<= " + std::to_string(serial_fused_max_frontier) +
                "): no layer barrier is worth its cost" + dense_note;
    return;
  }
  // 4. narrow and not growing
  const std::uint64_t density =
      r.frontier_density_bps != 0 ? r.frontier_density_bps
      : nodes != 0               ? std::uint64_t(r.frontier) * 10000 / nodes
                                 : 0;
  if (r.frontier <= fused_max_frontier && hits <= 1) {
    rec.mode = PlanMode::Fused;
    rec.league_size = 1;
    if (reason) *reason = "frontier of " + std::to_string(r.frontier) + " waves (<= " +
                 std::to_string(fused_max_frontier) +
                 ") is not growing: per-layer launches would dominate" + dense_note;
    return;
  }
  // 5. / 6. dense frontier
  if (dense_allowed && density >= dense_min_density_bps) {
    rec.mode = PlanMode::Dense;
    if (reason) *reason = "frontier density " + percent(density) + " >= " + percent(dense_min_density_bps) +
                 ": a bottom-up step over all waves beats top-down atomics";
    return;
  }
  if (dense_allowed && density >= hybrid_min_density_bps) {
    rec.mode = PlanMode::Hybrid;
    if (reason) *reason = "frontier density " + percent(density) + " >= " +
                 percent(hybrid_min_density_bps) + ": bottom-up while layers stay that dense";
    return;
  }
  rec.mode = PlanMode::Sparse;
  if (reason) *reason = "frontier of " + std::to_string(r.frontier) + " waves, density " +
               percent(density) + ": top-down over the frontier" + dense_note;
}

}  // namespace strata
