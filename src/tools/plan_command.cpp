// strata plan FILE|-|--demo: read an edge list or a Matrix Market file, plan
// it, print the plan (text, JSON or Graphviz dot).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <Kokkos_Core.hpp>

#include <strata/io/edge_list.hpp>
#include <strata/io/matrix_market.hpp>
#include <strata/io/plan_dot.hpp>
#include <strata/io/plan_writer.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/reference_kahn.hpp>
#include <strata/version.hpp>

#include "commands.hpp"
#include "graph_input.hpp"
#include "memory_budget.hpp"
#include "mpi_session.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "suggest.hpp"

namespace strata::tools {

namespace {

struct PlanArgs {
  GraphSource source;
  bool json = false;
  bool dot = false;
  bool time = false;
  int repeats = 5;
  PlanMode mode = PlanMode::Automatic;
  bool mode_given = false;
  bool distributed = false;     ///< --distributed (MPI)
  std::uint64_t rank_budget = 0;  ///< --rank-budget
};

PlanArgs parse_plan_args(const std::vector<std::string>& args) {
  PlanArgs a;
  a.source = parse_graph_arguments(args, "plan", [&](const std::string& s, auto& value) {
    if (s == "--time") {
      a.time = true;
    } else if (s == "--output") {
      const std::string& v = value("--output");
      if (v != "text" && v != "json" && v != "dot")
        throw UsageError{"--output must be 'text', 'json' or 'dot', not '" + v + "'"};
      a.json = v == "json";
      a.dot = v == "dot";
    } else if (s == "--mode") {
      const std::string& v = value("--mode");
      try {
        a.mode = parse_plan_mode(v);
        a.mode_given = true;
      } catch (const PlanError&) {
        throw UsageError{"--mode must be auto, sparse, dense, hybrid, fused or persistent, not '" +
                         v + "'" +
                         did_you_mean(v, {"auto", "sparse", "dense", "hybrid", "fused",
                                          "persistent"})};
      }
    } else if (s == "--distributed") {
      a.distributed = true;
    } else if (s == "--rank-budget") {
      a.rank_budget = parse_byte_count(value("--rank-budget"), "--rank-budget");
    } else if (s == "--repeats") {
      const std::string& v = value("--repeats");
      const auto n = parse_decimal(v, 1000);
      if (!n || *n < 1)
        throw UsageError{"--repeats must be an integer in 1..1000, not '" + v + "'"};
      a.repeats = static_cast<int>(*n);
    } else {
      return false;
    }
    return true;
  });
  if (a.rank_budget != 0 && !a.distributed)
    throw UsageError{"--rank-budget applies to --distributed planning only"};
  if (a.distributed) {
    if (a.dot) throw UsageError{"--output dot does not apply to --distributed (large graphs)"};
    if (a.source.max_memory != 0)
      throw UsageError{"--max-memory does not apply to --distributed: use --rank-budget"};
    if (a.mode_given && a.mode != PlanMode::Automatic)
      throw UsageError{"--mode does not apply to --distributed (its step is the sparse one)"};
  }
  return a;
}

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class Fn>
double seconds(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The dot writer's size limit worded for the tool.
CliError dot_limit_error(const PlanError& e) {
  return CliError{"InvalidArgument: " + e.message() +
                      ". Fix: use --output json or --output text for a graph this large (dot's "
                      "layout time grows faster than linearly and thousands of nodes are "
                      "unreadable), or plan a smaller part of it.",
                  exit_usage};
}

template <class Ordinal>
int plan_and_print(io::EdgeList list, const PlanArgs& args) {
  using Space = Kokkos::DefaultExecutionSpace;
  std::vector<WaveDependency<Ordinal>> narrowed;
  const WaveDependency<Ordinal>* deps = nullptr;
  const std::size_t count = list.dependencies.size();
  if constexpr (std::is_same_v<Ordinal, std::uint64_t>) {
    deps = list.dependencies.data();
  } else {
    try {
      narrowed.reserve(count);
    } catch (const std::exception& e) {  // std::bad_alloc
      throw PlanError::storage_reserve_failed("narrowed dependencies", count, e.what());
    }
    for (const auto& d : list.dependencies)
      narrowed.push_back({static_cast<Ordinal>(d.before), static_cast<Ordinal>(d.after)});
    deps = narrowed.data();
    // The 64-bit list is not needed any more: planning holds only the copy
    // (what plan_memory_bytes counts).
    std::vector<WaveDependency<std::uint64_t>>().swap(list.dependencies);
  }
  Space space;
  PlannerScratch<Space, Ordinal, Ordinal> scratch;
  PlanOptions options;
  options.mode = args.mode;
  options.device_memory_budget_bytes = args.source.max_memory;  // 0 (not given): unbounded here
  PlanStatistics stats;
  options.statistics = &stats;
  auto plan = [&] {
    const Progress progress("planning " + std::to_string(list.wave_count) + " waves");
    return plan_barriers(space, list.wave_count, deps, count, scratch, options);
  }();
  if (args.time) {
    // Planning only (parsing excluded), on the scratch the first plan sized;
    // planner and reference alternate so both see the same machine state.
    std::vector<double> plan_t, ref_t;
    for (int r = 0; r < args.repeats; ++r) {
      plan_t.push_back(seconds(
          [&] { plan = plan_barriers(space, list.wave_count, deps, count, scratch, options); }));
      ref_t.push_back(seconds([&] { (void)reference_kahn(list.wave_count, deps, count); }));
    }
    const double plan_s = median(plan_t), ref_s = median(ref_t);
    diagnostics() << std::setprecision(6) << "plan_seconds " << plan_s << " (median of "
                  << args.repeats << " timed repeats after the planned one)\n"
              << "reference_seconds " << ref_s << "\n"
              << "backend " << Space::name() << " concurrency " << space.concurrency()
              << " ordinal_bits " << 8 * sizeof(Ordinal) << " repeats " << args.repeats << "\n"
              << "mode " << plan_mode_name(args.mode) << " sparse_layers " << stats.sparse_layers
              << " paced_batches " << stats.paced_batches << " dense_layers " << stats.dense_layers
              << " one_thread_steps " << stats.one_thread_steps
              << " chained_waves " << stats.chained_waves << " fused "
              << (stats.fused ? "from_layer " + std::to_string(stats.fused_from_layer) +
                                    " workers " + std::to_string(stats.fused_workers)
                              : std::string("no"))
              << " persistent "
              << (stats.persistent ? "from_layer " + std::to_string(stats.persistent_from_layer) +
                                         " teams " + std::to_string(stats.persistent_teams)
                                   : std::string("no"))
              << "\n";
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const std::uint64_t plan_bytes =
        (plan.level.span() + plan.waves.span() + plan.group_offsets.span()) * sizeof(Ordinal);
    diagnostics() << "planner_bytes " << scratch.bytes() + plan_bytes << " max_rss_bytes "
              << std::uint64_t(usage.ru_maxrss) * 1024 << "\n";
  }
  if (args.dot) {
    try {
      io::write_plan_dot(std::cout, plan, deps, count);
    } catch (const PlanError& e) {
      if (e.kind() != ErrorKind::InvalidArgument) throw;
      throw dot_limit_error(e);
    }
    std::cout.flush();
  } else {
    io::write_plan(std::cout, plan, args.json);
  }
  return exit_ok;
}

}  // namespace

namespace {
bool output_rank = true;
runtime::ThreadsPerRank threads_of_rank;
}  // namespace

bool is_output_rank() { return output_rank; }
void set_output_rank(bool output) { output_rank = output; }
const runtime::ThreadsPerRank& rank_threads() { return threads_of_rank; }
void set_rank_threads(const runtime::ThreadsPerRank& threads) { threads_of_rank = threads; }

int plan_command(const std::vector<std::string>& argv) {
  const PlanArgs args = parse_plan_args(argv);
  if (args.distributed) {
#ifdef STRATA_ENABLE_MPI
    require_distributed_file(args.source, "plan");
    DistributedPlanArgs d;
    d.file = args.source.file;
    d.json = args.json;
    d.time = args.time;
    d.repeats = args.repeats;
    d.rank_budget = args.rank_budget;
    return plan_distributed(d);
#else
    throw UsageError{"--distributed needs a strata built with MPI (STRATA_ENABLE_MPI)"};
#endif
  }
  // The budget bounds the reader (the file's text and its dependency list)
  // and then the planning, each checked before it allocates.
  refuse_single_process_under_mpi_launcher();
  LoadedGraph graph = load_graph(args.source);
  io::EdgeList& list = graph.list;
  if (args.dot) {  // before planning: a picture of a large graph is refused at once
    try {
      io::check_dot_limits(list.wave_count, list.dependencies.size());
    } catch (const PlanError& e) {
      throw dot_limit_error(e);
    }
  }
  return with_ordinal(list, graph.budget.bytes, [&](auto ordinal) {
    return plan_and_print<decltype(ordinal)>(std::move(list), args);
  });
}

}  // namespace strata::tools
