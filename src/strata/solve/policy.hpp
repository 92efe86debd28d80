#pragma once
// The solve policy: which kernel runs which levels of a triangular solve.
//
// TriangularSolve::symbolic keeps the plan's level profile (rows per level);
// SolvePolicy::schedule splits the levels into stretches by the rules below
// and gives each stretch a kernel (SolveMode::Layered or ::Dataflow) and, on
// a host backend, the workers of its dataflow launch. Every choice names its
// rule in SolveSchedule::reason (`strata explain` prints it).
//
// Rules
//  W (wide levels): a level of at least layered_min_width rows is wide. On
//    a host backend it runs layered: its synchronisation is paid once for
//    many rows, and the layered kernel reads no ready flags; the width is 64
//    rows per thread: a level's hand-off between workers (rule L) costs
//    about 0.2 us on two cores, the time of some 50 rows of three to four
//    entries, below which one worker running the level alone (rule C) is
//    as fast. On a device the width is 16,384 rows (a GPU needs thousands
//    of rows in flight), and wide levels run dataflow with a row per lane
//    (rule R) where a warp's lanes progress independently, layered elsewhere
//    (device_wide_dataflow): on the permuted ilu3d 100 (20 levels of up to
//    144,000 rows) one dataflow launch of the whole solve, a row per lane,
//    took 0.18 ms on an H100 where the layered kernel took 0.25 ms, its
//    launch per level and its level barrier costing more than the rows'
//    waits.
//  L (host layered stretch -> one launch): on a host backend a layered
//    stretch is one launch, not one per level: each level is cut into a
//    slice per worker, workers take the slices in level order by ticket, and
//    a slice starts once the level before has counted all its slices done.
//    A fork/join per level (an OpenMP parallel region: a few us) would cost
//    more than the rows of a level of a few hundred rows.
//  B (host layered slices): a stretch whose levels average r rows gets
//    clamp(r / (threads * balance_rows_per_slice), 1, 8) slices per worker
//    per level: workers that finish early take more slices of a wide level
//    instead of waiting for the slowest (rows of a permuted factor differ in
//    cost), while a narrow level pays one ticket per worker.
//  N (narrow levels -> dataflow): a stretch of narrower levels runs in one
//    dataflow launch: no per-level launch or barrier; a row waits only for
//    the rows it reads.
//  S (short narrow stretch -> layered): a narrow stretch of fewer than
//    min_dataflow_levels levels between wide ones runs layered: a dataflow
//    launch costs a ticket reset and a launch, about what those few levels'
//    launches cost.
//  C (narrow on a host -> one worker): on a host backend a dataflow stretch
//    averaging fewer than serial_width_per_thread rows per level per thread
//    runs on one worker, in level order, without waiting: spread over
//    several workers, nearly every row would wait for a row another core
//    just wrote, and each hand-off (a cache line moved, often a yield) costs
//    more than the row (strata_solve_bench: the 350 x 350 sweep factor in
//    dataflow on two workers is many times slower than layered or serial).
//  O (one worker over the whole solve -> the rows' own order): on a host
//    backend, where rule C leaves a single stretch covering every level to
//    one worker, that worker walks the rows in index order (ascending for a
//    lower triangle, descending for an upper one: every row a row reads
//    comes before it, so this is a substitution order too) instead of level
//    order. A factor stored in a natural order (a grid's, a chain's) is then
//    read as it is stored, where level order jumps between distant rows of
//    the matrix and of x (host_row_order; docs/solve.md has the
//    measurement).
//  P (host, a factor banded in its own order -> pipelined row order): on a
//    host backend of several threads, where the rows read only rows close
//    before them in substitution order (a grid or a mesh in its natural
//    order), the whole solve is one launch that walks the rows in that
//    order: cut into blocks of B rows (B = the farthest a row reads, at
//    least host_pipeline_min_block_rows), workers take the blocks in order
//    by ticket, and a row that reads an earlier block waits until that
//    block's progress counter has passed the row (a block publishes its
//    progress every few dozen rows). Consecutive blocks then run at once,
//    each a little behind the one before (the wavefront of a sweep), while
//    every worker streams the matrix, b and x in their stored order, where
//    level order jumps between distant rows (on the 54^3 sweep factor, one
//    thread, level order took 1.0-3x the index order's time over three
//    runs: the more, the busier the shared cache). It applies where at
//    least host_pipeline_min_depth_per_thread x threads blocks can run at
//    once: the blocks' mean level span over the levels a block advances
//    (about 1 for a chain, or for a factor stored level by level, where a
//    block waits for the whole block before it; the grid's width for a
//    grid). Off by default (host_pipeline): on two cores it was slower than
//    the automatic schedule without it on the 350^2 sweep factor in five
//    runs of five and on the 54^3 one in three (docs/solve.md): a worker
//    walking rows in index order waits on the row it has just written (row
//    i reads row i-1), where level order gives the core independent rows
//    to overlap. Not yet measured on more cores.
//  D (device layered stretch -> one launch): on a device a layered stretch
//    is one launch (device_layered_one_launch): teams take a level's slices
//    by ticket and a slice starts once the level before counted all its
//    slices done, as rule L on a host; instead of a launch per level (a
//    Kokkos launch costs several us, more than a level's hand-off through a
//    done counter).
//  A (device lookahead): a device launch of a stretch (dataflow, or
//    layered under rule D) runs at most device_lookahead_levels levels'
//    worth of rows at once (the stretch's mean width times that many
//    levels), but at least device_min_rows_in_flight rows, not a whole
//    resident league: rows further ahead cannot start before the levels
//    below them end, and every waiting row polls memory that the rows on
//    the critical path need. Two levels is the best of the grid
//    `strata_solve_bench --tune` measured on factors of hundreds of rows a
//    level and more (deep8k's 188 rows a level: 7 % slower with 8 levels);
//    on deep40k's 38 rows a level two levels are 76 rows, too few to cover
//    a level's hand-off, and 8 levels (304 rows) were 14 % faster, hence
//    the floor of 256 rows (docs/solve.md).
//  V (device dataflow: x is its own ready flag): on a device, where Scalar
//    is float or double and x is not b, a dataflow row polls the x it reads
//    instead of a ready flag: x starts the solve as a signalling NaN no
//    arithmetic produces, a row stores its x once, and a reader waits until
//    that word changes. A hand-off is then one store and one load; with a
//    flag it is a release fence, the flag's store, the flag's poll, an
//    acquire fence and a second load of x, all on the critical path of a
//    deep factor (device_value_ready; docs/solve.md has the measurement).
//  R (device lanes per row): the layered kernel spreads a row's entries
//    over as many vector lanes as the rows average entries (a power of two
//    up to the warp). A dataflow stretch whose levels average fewer than
//    layered_min_width_device rows gives each row a whole warp: its time is
//    the latency of its chain of rows, and rows that share a warp with rows
//    spinning on them wait for each other's turns (the warp's diverged lanes
//    are interleaved): a row per lane was 2.5-3.5x slower on the deep
//    factors, and a row per four lanes 1.4-2.1x. A wider stretch gives each
//    row one lane: its time is throughput, and a warp spent on a row of four
//    entries leaves 28 lanes idle (ilu3d 100: a row per lane 3x faster than
//    a row per warp). A row per lane needs a device whose lanes progress
//    independently (CUDA compute capability 7.0 and later: independent
//    thread scheduling), as a row may spin on a row of its own warp;
//    elsewhere (HIP wavefronts, older CUDA devices) every dataflow row takes
//    a whole warp. device_dataflow_lanes fixes the dataflow lanes instead.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <strata/solve/solve_mode.hpp>

namespace strata::solve {

/// One stretch of consecutive levels and the kernel that runs them.
struct SolveStretch {
  std::uint64_t first_level = 0;  ///< the stretch's first level
  std::uint64_t end_level = 0;    ///< one past its last level
  SolveMode mode = SolveMode::Layered;  ///< Layered or Dataflow
  std::uint32_t workers = 0;  ///< dataflow on a host backend: threads of the launch (0: all)
  /// rule O: the one worker walks the rows in index order, not level order
  bool row_order = false;
  /// rule R, device dataflow: vector lanes per row (0 on a host backend)
  int lanes = 0;
  /// rule P, host: rows per block of the pipelined row order (0: not pipelined)
  std::uint64_t block_rows = 0;
};

/// The schedule of one solve: its stretches in level order and why.
struct SolveSchedule {
  std::vector<SolveStretch> stretches;
  std::string reason;
  std::uint64_t layered_levels = 0;   ///< levels run layered
  std::uint64_t dataflow_levels = 0;  ///< levels run by dataflow launches
};

/// The shape the policy reads: the level profile and the device.
struct SolveShape {
  std::vector<std::uint64_t> level_widths;  ///< rows of each level, in level order
  bool host_backend = true;
  std::uint64_t concurrency = 1;  ///< threads of the execution space
  std::uint64_t rows = 0;         ///< rows of the matrix
  std::uint64_t entries = 0;      ///< entries the rows span (the diagonal included)
  int warp_width = 1;             ///< device: lanes of a hardware warp or wavefront
  /// device: lanes of a warp progress independently (a lane may spin on
  /// another lane of its warp; rule R)
  bool independent_lanes = true;
  /// host (rule P): the farthest a row reads, in rows (0 where not measured)
  std::uint64_t row_reach = 0;
  /// host (rule P): the block the spans below were measured with (0: none)
  std::uint64_t pipeline_block_rows = 0;
  /// host (rule P): the sum over blocks of pipeline_block_rows rows in
  /// substitution order of each block's level span (highest - lowest + 1)
  std::uint64_t pipeline_level_spans = 0;
};

struct SolvePolicy {
  std::uint64_t layered_min_width_host_per_thread = 64;   ///< rule W on a host: rows per thread
  std::uint64_t layered_min_width_device = 16384;         ///< rule W on a device
  std::uint64_t min_dataflow_levels = 4;                  ///< rule S
  std::uint64_t serial_width_per_thread = 512;            ///< rule C: rows per level per thread
  std::uint64_t balance_rows_per_slice = 1024;            ///< rule B: rows per slice
  bool device_layered_one_launch = false;                 ///< rule D
  std::uint64_t device_lookahead_levels = 2;              ///< rule A (0: a resident league)
  std::uint64_t device_min_rows_in_flight = 256;          ///< rule A's floor
  bool device_wide_dataflow = true;                       ///< rule W on a device
  /// device dataflow: warps per team; a team takes a ticket of as many rows
  /// as it has team threads (warps x warp width / rule R's lanes)
  int device_dataflow_warps_per_team = 4;
  bool device_value_ready = true;                         ///< rule V
  bool host_row_order = true;                             ///< rule O
  bool host_pipeline = false;                             ///< rule P (off: see the rule)
  std::uint64_t host_pipeline_min_block_rows = 32;        ///< rule P: the least block
  std::uint64_t host_pipeline_min_depth_per_thread = 1;   ///< rule P: blocks at once per thread
  /// Rule R for dataflow stretches: vector lanes per row (rounded down to a
  /// power of two, at most the warp); 0: by the rule (a lane per row where
  /// the stretch's levels are wide, a warp per row where they are narrow)
  int device_dataflow_lanes = 0;

  /// Rule R: vector lanes per row of the device layered kernel.
  int layered_row_lanes(const SolveShape& shape) const {
    const int warp = std::max(1, shape.warp_width);
    const std::uint64_t mean = shape.rows == 0 ? 1 : (shape.entries + shape.rows - 1) / shape.rows;
    int lanes = 1;
    while (lanes < warp && std::uint64_t(lanes) < mean) lanes *= 2;  // rounded up
    return lanes;
  }

  /// Rule R: vector lanes per row of a device dataflow launch of `st`.
  int dataflow_row_lanes(const SolveShape& shape, const SolveStretch& st) const {
    const int warp = std::max(1, shape.warp_width);
    if (!shape.independent_lanes) return warp;
    if (device_dataflow_lanes > 0) {
      int lanes = 1;
      while (lanes < warp && lanes * 2 <= device_dataflow_lanes) lanes *= 2;  // rounded down
      return lanes;
    }
    const std::uint64_t rows = stretch_rows(shape, st);
    const std::uint64_t levels = std::max<std::uint64_t>(1, st.end_level - st.first_level);
    return rows / levels >= layered_min_width_device ? 1 : warp;
  }

  /// Rule A: teams of `rows_per_team` rows a device launch of `st` needs to
  /// run device_lookahead_levels levels of mean width at once (0: as many as
  /// the launch has tickets, capped by the caller).
  std::uint64_t device_teams_in_flight(const SolveShape& shape, const SolveStretch& st,
                                       std::uint64_t rows_per_team) const {
    if (device_lookahead_levels == 0) return 0;
    const std::uint64_t rows = stretch_rows(shape, st);
    const std::uint64_t levels = std::max<std::uint64_t>(1, st.end_level - st.first_level);
    const std::uint64_t per = std::max<std::uint64_t>(1, rows_per_team);
    const std::uint64_t in_flight = std::max<std::uint64_t>(
        (rows + levels - 1) / levels * device_lookahead_levels, device_min_rows_in_flight);
    return std::max<std::uint64_t>(1, (in_flight + per - 1) / per);
  }

  /// Rule B: slices per worker of each level of a host layered stretch.
  std::uint64_t slices_per_worker(const SolveShape& shape, const SolveStretch& r) const {
    const std::uint64_t rows = stretch_rows(shape, r);
    const std::uint64_t levels = std::max<std::uint64_t>(1, r.end_level - r.first_level);
    const std::uint64_t threads = std::max<std::uint64_t>(1, shape.concurrency);
    const std::uint64_t slice = std::max<std::uint64_t>(1, balance_rows_per_slice);
    const std::uint64_t per = rows / levels / (threads * slice);
    return std::min<std::uint64_t>(8, std::max<std::uint64_t>(1, per));
  }

  /// Rule P: rows per block for a factor whose rows reach `reach` rows.
  std::uint64_t pipeline_block_rows(std::uint64_t reach) const {
    return std::max<std::uint64_t>({reach, host_pipeline_min_block_rows, 1});
  }

  /// Rule P: whether `shape` (measured with pipeline_block_rows) runs
  /// pipelined: several threads and enough blocks at once for each.
  bool pipelines(const SolveShape& shape) const {
    const std::uint64_t levels = shape.level_widths.size();
    const std::uint64_t threads = shape.concurrency;
    if (!host_pipeline || !shape.host_backend || threads < 2 || levels == 0 ||
        shape.pipeline_block_rows == 0 || shape.pipeline_block_rows != pipeline_block_rows(shape.row_reach))
      return false;
    // blocks at once = the mean span / the levels a block advances
    //                = spans / levels
    return shape.pipeline_level_spans >= host_pipeline_min_depth_per_thread * threads * levels;
  }

  static SolvePolicy standard() { return SolvePolicy{}; }

  std::uint64_t layered_min_width(const SolveShape& shape) const {
    return shape.host_backend
               ? layered_min_width_host_per_thread * std::max<std::uint64_t>(1, shape.concurrency)
               : layered_min_width_device;
  }

  /// The schedule for `shape`; a forced mode (Layered, Dataflow) gives one
  /// stretch of that mode over every level (rule C still sets its workers).
  SolveSchedule schedule(const SolveShape& shape, SolveMode mode = SolveMode::Automatic) const {
    const std::vector<std::uint64_t>& w = shape.level_widths;
    const std::uint64_t levels = w.size();
    SolveSchedule s;
    if (levels == 0) {
      s.reason = "no rows: nothing to run";
      return s;
    }
    const std::uint64_t min_width = layered_min_width(shape);
    if (mode == SolveMode::Automatic && pipelines(shape)) {
      SolveStretch st{0, levels, SolveMode::Dataflow, 0};
      st.row_order = true;
      st.block_rows = shape.pipeline_block_rows;
      s.stretches.push_back(st);
      s.reason = "rule P: the rows in index order, in blocks of " +
                 std::to_string(st.block_rows) + " rows (the farthest a row reads) taken by " +
                 "ticket; " + std::to_string(shape.pipeline_level_spans / levels) +
                 " blocks can run at once";
      s.dataflow_levels = levels;
      return s;
    }
    if (mode != SolveMode::Automatic) {
      s.stretches.push_back(dataflow_workers(shape, SolveStretch{0, levels, mode, 0}));
      s.reason = std::string("forced mode ") + solve_mode_name(mode);
    } else {
      // Rules W and N: maximal runs of wide and of narrow levels; wide ones
      // run layered, or on a device whose lanes progress independently
      // dataflow a row per lane (rule R).
      const bool wide_dataflow =
          !shape.host_backend && shape.independent_lanes && device_wide_dataflow;
      const SolveMode wide_mode = wide_dataflow ? SolveMode::Dataflow : SolveMode::Layered;
      struct Run {
        std::uint64_t first, end;
        bool wide;
      };
      std::vector<Run> runs;
      for (std::uint64_t l = 0; l < levels; ++l) {
        const bool wide = w[l] >= min_width;
        if (runs.empty() || runs.back().wide != wide) runs.push_back(Run{l, l, wide});
        runs.back().end = l + 1;
      }
      // Rule S: a short narrow run between wide ones joins them.
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const bool between = i > 0 && i + 1 < runs.size();
        if (!runs[i].wide && between && runs[i].end - runs[i].first < min_dataflow_levels)
          runs[i].wide = true;
      }
      std::vector<Run> merged;
      for (const Run& r : runs) {
        if (!merged.empty() && merged.back().wide == r.wide)
          merged.back().end = r.end;
        else
          merged.push_back(r);
      }
      for (const Run& r : merged)
        s.stretches.push_back(dataflow_workers(
            shape, SolveStretch{r.first, r.end, r.wide ? wide_mode : SolveMode::Dataflow, 0}));
      s.reason = "rule W: levels of >= " + std::to_string(min_width) + " rows run " +
                 (wide_dataflow ? "dataflow, a row per lane" : "layered") +
                 "; rule N: narrower stretches run dataflow; rule S: a narrow stretch of < " +
                 std::to_string(min_dataflow_levels) + " levels between wide ones joins them";
    }
    if (!shape.host_backend)
      for (SolveStretch& r : s.stretches)
        if (r.mode == SolveMode::Dataflow) r.lanes = dataflow_row_lanes(shape, r);
    bool layered = false;
    for (const SolveStretch& r : s.stretches) layered = layered || r.mode == SolveMode::Layered;
    if (shape.host_backend && layered)
      s.reason += "; rule L: a layered stretch is one launch, its levels handed over by done "
                  "counters";
    if (!shape.host_backend && layered && device_layered_one_launch)
      s.reason += "; rule D: a layered stretch is one launch, its levels handed over by done "
                  "counters";
    if (!shape.host_backend && device_lookahead_levels != 0)
      s.reason += "; rule A: at most " + std::to_string(device_lookahead_levels) +
                  " levels of rows in flight, at least " +
                  std::to_string(device_min_rows_in_flight) + " rows";
    for (const SolveStretch& r : s.stretches) {
      (r.mode == SolveMode::Layered ? s.layered_levels : s.dataflow_levels) +=
          r.end_level - r.first_level;
      if (r.mode == SolveMode::Dataflow && r.workers == 1)
        s.reason += "; rule C: levels " + std::to_string(r.first_level) + ".." +
                    std::to_string(r.end_level - 1) + " average < " +
                    std::to_string(serial_width_per_thread) + " rows per thread: one worker";
    }
    if (host_row_order && s.stretches.size() == 1 && s.stretches[0].workers == 1 &&
        s.stretches[0].mode == SolveMode::Dataflow) {
      s.stretches[0].row_order = true;  // rule C made it one worker: host only
      s.reason += "; rule O: the one worker walks the rows in index order";
    }
    if (!shape.host_backend && device_value_ready && s.dataflow_levels != 0)
      s.reason += "; rule V: a dataflow row polls the x it reads (float or double, x not b)";
    if (!shape.host_backend) {
      s.reason += "; rule R: " + std::to_string(layered_row_lanes(shape)) + " lanes per layered row";
      for (const SolveStretch& r : s.stretches)
        if (r.mode == SolveMode::Dataflow)
          s.reason += ", " + std::to_string(r.lanes) + " per dataflow row of levels " +
                      std::to_string(r.first_level) + ".." + std::to_string(r.end_level - 1);
    }
    return s;
  }

 private:
  /// Rows of the levels of `st`.
  static std::uint64_t stretch_rows(const SolveShape& shape, const SolveStretch& st) {
    std::uint64_t rows = 0;
    for (std::uint64_t l = st.first_level; l < st.end_level; ++l) rows += shape.level_widths[l];
    return rows;
  }

  SolveStretch dataflow_workers(const SolveShape& shape, SolveStretch r) const {
    if (r.mode != SolveMode::Dataflow || !shape.host_backend) return r;
    const std::uint64_t rows = stretch_rows(shape, r);
    const std::uint64_t levels = r.end_level - r.first_level;
    const std::uint64_t threads = std::max<std::uint64_t>(1, shape.concurrency);
    r.workers = rows < serial_width_per_thread * threads * levels ? 1 : 0;  // rule C
    return r;
  }
};

}  // namespace strata::solve
