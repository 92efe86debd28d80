// strata run FILE|--demo: plan a graph the way `strata plan` does (same
// reader, same memory check, same planner calls, so a bad graph answers with
// the same error and exit code), then run a synthetic wave on every wave
// through strata::Executor and verify the run:
//   each wave spins --wave-work iterations, takes a start ticket from one
//   global counter, checks that every predecessor holds a finish ticket
//   earlier than it, and takes a finish ticket; afterwards every wave must
//   have executed exactly once.
// With --max-wall-time the executor drains at the budget and is run again
// until the plan is complete; the number of runs is printed.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/spin_wait.hpp>
#include <strata/execute/executor.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/version.hpp>

#include "commands.hpp"
#include "graph_input.hpp"
#include "memory_budget.hpp"
#include "suggest.hpp"

namespace strata::tools {

namespace {

struct RunArgs {
  GraphSource source;
  bool time = false;
  ExecuteMode mode = ExecuteMode::Automatic;
  std::uint64_t wave_work = 0;
  double max_wall_seconds = 0;  ///< 0: LaunchConfig's default budget
  bool distributed = false;     ///< --distributed (MPI): run_distributed.cpp
};

/// --wave-work's bound: a wave already started is never interrupted (the
/// executor drains at --max-wall-time between waves), so one synthetic wave
/// must stay short: 10^8 spins, about 0.1-0.3 s on a current core.
constexpr std::uint64_t max_wave_work = 100000000;

/// A decimal number of seconds: digits with an optional fraction and an
/// optional exponent ("1", "0.5", ".5", "1e-9", "2.5E3"); no sign, no
/// spaces, no hexadecimal, inf or nan (std::stod takes all of those).
std::optional<double> parse_seconds(const std::string& v) {
  std::size_t i = 0, digits = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    std::size_t exponent = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++exponent;
    if (exponent == 0) return std::nullopt;
  }
  if (i != v.size() || v.size() > 64) return std::nullopt;
  return std::strtod(v.c_str(), nullptr);
}

RunArgs parse_run_args(const std::vector<std::string>& args) {
  RunArgs a;
  a.source = parse_graph_arguments(args, "run", [&](const std::string& s, auto& value) {
    if (s == "--time") {
      a.time = true;
    } else if (s == "--distributed") {
      a.distributed = true;
    } else if (s == "--mode") {
      const std::string& v = value("--mode");
      try {
        a.mode = parse_execute_mode(v);
      } catch (const PlanError&) {
        throw UsageError{"--mode must be auto, layered, persistent or dataflow, not '" + v + "'" +
                         did_you_mean(v, {"auto", "layered", "persistent", "dataflow"})};
      }
    } else if (s == "--wave-work") {
      const std::string& v = value("--wave-work");
      const auto n = parse_decimal(v, max_wave_work);
      if (!n)
        throw UsageError{"--wave-work must be an integer in 0.." + std::to_string(max_wave_work) +
                         " (spins per wave), not '" + v + "'"};
      a.wave_work = *n;
    } else if (s == "--max-wall-time") {
      const std::string& v = value("--max-wall-time");
      const auto seconds = parse_seconds(v);
      // At least 1 ns, at most a year (the nanosecond count must fit 64 bits).
      if (!seconds || !(*seconds >= 1e-9) || !(*seconds <= 31536000.0))
        throw UsageError{"--max-wall-time must be a number of seconds in 1e-9..31536000 "
                         "(digits, an optional fraction and exponent), not '" + v + "'"};
      a.max_wall_seconds = *seconds;
    } else {
      return false;
    }
    return true;
  });
  return a;
}

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;

/// The synthetic wave (thread-level).
template <class Ordinal, class Offset>
struct SyntheticWave {
  Kokkos::View<std::uint64_t*, Mem> start, finish, executions;
  Kokkos::View<std::uint64_t*, Mem> counters;  ///< ticket clock, order violations
  Kokkos::View<Offset*, Mem> pred_row_map;
  Kokkos::View<Ordinal*, Mem> pred_entries;
  std::uint64_t work = 0;

  KOKKOS_INLINE_FUNCTION TaskState operator()(Ordinal w) const {
    Kokkos::atomic_fetch_add(&executions(w), std::uint64_t(1));
    std::uint64_t busy = w;
    for (std::uint64_t i = 0; i < work; ++i) busy = busy * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t t = Kokkos::atomic_fetch_add(&counters(0), std::uint64_t(1)) + 1;
    start(w) = t;
    std::uint64_t late = busy == 0x5eed5eed5eed5eedull ? 1 : 0;  // keeps the spin (never 1)
    const std::uint64_t last = pred_row_map(w + 1);
    for (std::uint64_t e = pred_row_map(w); e < last; ++e) {
      const std::uint64_t f = volatile_load(&finish(pred_entries(e)));
      if (f == 0 || f >= t) ++late;
    }
    if (late != 0) Kokkos::atomic_fetch_add(&counters(1), late);
    Kokkos::memory_fence();
    finish(w) = Kokkos::atomic_fetch_add(&counters(0), std::uint64_t(1)) + 1;
    return TaskState::Completed;
  }
};

template <class Ordinal>
int plan_and_run(const io::EdgeList& list, const RunArgs& args) {
  using Dep = WaveDependency<Ordinal>;
  Space space;
  const std::uint64_t waves = list.wave_count;
  const std::size_t count = list.dependencies.size();
  // The dependencies on the device, then the CSR and the plan, exactly as
  // plan_barriers(space, waves, host_dependencies, count, scratch) builds them.
  Kokkos::View<Dep*, Mem> deps(Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::run::deps"),
                               count);
  {
    auto host = Kokkos::create_mirror_view(deps);
    for (std::size_t i = 0; i < count; ++i)
      host(i) = Dep{static_cast<Ordinal>(list.dependencies[i].before),
                    static_cast<Ordinal>(list.dependencies[i].after)};
    Kokkos::deep_copy(space, deps, host);
  }
  PlannerScratch<Space, Ordinal, Ordinal> scratch;
  const Kokkos::View<const Dep*, Mem> read_only = deps;
  const auto graph = build_dependency_graph(space, waves, read_only, scratch.graph);
  const auto plan = plan_barriers(space, graph, scratch);
  // Predecessors: the reversed edges' CSR, for the synthetic wave's check.
  Kokkos::View<Dep*, Mem> reversed(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::run::reversed"), count);
  Kokkos::parallel_for(
      "strata::run::reverse", Kokkos::RangePolicy<Space>(space, 0, count),
      KOKKOS_LAMBDA(const std::size_t i) { reversed(i) = Dep{deps(i).after, deps(i).before}; });
  DependencyGraphStorage<Space, Ordinal, Ordinal> pred_storage;
  const auto preds = build_dependency_graph(space, waves, Kokkos::View<const Dep*, Mem>(reversed),
                                            pred_storage);

  SyntheticWave<Ordinal, Ordinal> wave;
  wave.start = Kokkos::View<std::uint64_t*, Mem>("strata::run::start", waves);
  wave.finish = Kokkos::View<std::uint64_t*, Mem>("strata::run::finish", waves);
  wave.executions = Kokkos::View<std::uint64_t*, Mem>("strata::run::executions", waves);
  wave.counters = Kokkos::View<std::uint64_t*, Mem>("strata::run::counters", 2);
  wave.pred_row_map = preds.row_map;
  wave.pred_entries = preds.entries;
  wave.work = args.wave_work;

  LaunchConfig config;
  if (args.max_wall_seconds > 0)
    config.max_wall_time = std::chrono::nanoseconds(
        static_cast<std::int64_t>(std::llround(args.max_wall_seconds * 1e9)));
  Executor<Space, Ordinal, Ordinal> executor(space, plan, graph, config);
  RunOptions options;
  options.mode = args.mode;
  options.label = "strata::run";
  std::uint64_t runs = 0, drained = 0, requeues = 0;
  double seconds = 0;
  RunReport report;
  // Every run completes at least one wave: at most `waves` runs.
  do {
    report = executor.run(wave, options);
    ++runs;
    drained += report.drained ? 1 : 0;
    requeues += report.requeues;
    seconds += report.elapsed_seconds;
  } while (!report.complete && runs <= waves);

  // Verify on the device: every wave executed once, after its predecessors.
  std::uint64_t wrong = 0;
  const auto executions = wave.executions;
  const auto finish = wave.finish;
  Kokkos::parallel_reduce(
      "strata::run::verify", Kokkos::RangePolicy<Space>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& n) {
        if (executions(w) != 1 || finish(w) == 0) ++n;
      },
      wrong);
  const auto counters = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wave.counters);
  if (!report.complete || wrong != 0 || counters(1) != 0)
    throw std::runtime_error("run verification failed: " + std::to_string(wrong) +
                             " waves did not execute exactly once, " +
                             std::to_string(counters(1)) +
                             " started before a predecessor finished (mode " +
                             execute_mode_name(report.mode) + ")");

  std::cout << "mode: " << execute_mode_name(report.mode) << "\n"
            << "reason: " << report.reason << "\n"
            << "verified " << waves << " waves, " << plan.group_count() << " layers\n"
            << "runs: " << runs << " (" << drained << " drained at the wall-time budget), "
            << requeues << " requeues\n";
  if (args.time) {
    const double per_wave = waves == 0 ? 0.0 : seconds * 1e6 / static_cast<double>(waves);
    std::cout << std::setprecision(6) << "time: " << seconds << " s, " << per_wave
              << " us per wave (" << Space::name() << ", league " << report.league_size
              << " x team " << report.team_size << ")\n";
  }
  return exit_ok;
}

}  // namespace

int run_command(const std::vector<std::string>& argv) {
  const RunArgs args = parse_run_args(argv);
  if (args.distributed) {
#ifdef STRATA_ENABLE_MPI
    require_distributed_file(args.source, "run");
    DistributedRunArgs d;
    d.file = args.source.file;
    d.time = args.time;
    d.mode = args.mode;
    d.wave_work = args.wave_work;
    d.max_wall_seconds = args.max_wall_seconds;
    return run_distributed(d);
#else
    throw UsageError{"--distributed needs a strata built with MPI (STRATA_ENABLE_MPI)"};
#endif
  }
  // As `strata plan`: the same demo and reader, 32-bit ids when everything
  // fits, the memory check before anything is allocated.
  // One budget (--max-memory, else the physical memory) bounds the reader
  // and then the run's storage (run_memory_bytes), each checked before it
  // allocates.
  const LoadedGraph graph = load_graph(args.source);
  const io::EdgeList& list = graph.list;
  return with_ordinal(
      list, graph.budget.bytes,
      [&](auto ordinal) { return plan_and_run<decltype(ordinal)>(list, args); },
      RunMemory{});
}

}  // namespace strata::tools
