// strata_execute_bench: running the waves of a planned DAG. Every executor mode
// of strata::Executor side by side with the baselines, on the same DAG, in one
// run, on Kokkos::DefaultExecutionSpace (docs/execute.md, "Benchmarks"):
//
//   hostloop        (a) what users write today: one parallel_for(TeamPolicy)
//                   per group over the group's waves, then space.fence()
//   hostloop-async  the same without the per-group fence (kernels queued on one
//                   instance; one fence at the end), as examples/upwind_sweep did
//   workgraph       (b) Kokkos::WorkGraphPolicy on the successor Crs of the DAG
//                   (one thread per wave; the policy's queue is rebuilt per run,
//                   as it must be: its construction is timed with the run)
//   kokkos-graph    (c) Kokkos::Experimental::Graph, one node per group (a
//                   TeamPolicy kernel over the group), built once, submitted per
//                   run (construction not timed; skipped past --graph-max-nodes:
//                   the host implementation of Kokkos 3.4/4.x recurses once per node)
//   layered, persistent, dataflow, auto
//                   strata::Executor::run (reset() + run() per repetition; the
//                   executor is built once, outside the timing)
//
// Workloads (DAG x wave body):
//   chain-N, sweep3d-N, layered-WxD (strata::generate), each with an `empty`
//   wave body and a `small` one (a dependent chain of --small-flops flops);
//   trisolve ilu3d-N / R rows per wave: the lower factor of
//   examples/sparse_trisolve/ilu_lower_factor.hpp, against the serial forward
//   substitution and Kokkos Kernels' sptrsv_solve (RP, TP1, TP1CHAIN).
//
// Every method is first checked (untimed): on each DAG every wave takes a
// ticket from a global atomic counter; every wave must run exactly once and
// after its predecessors. The solve is checked against the serial one
// (relative error <= 1e-12). Times are medians over --repetitions, each after
// one untimed warm-up run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <Kokkos_Core.hpp>
#if KOKKOS_VERSION >= 30300  // Kokkos::Experimental::Graph (create_graph) appeared in Kokkos 3.3
#include <Kokkos_Graph.hpp>
#define STRATA_BENCH_HAVE_KOKKOS_GRAPH 1
#endif

#include <strata/execute/executor.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/version.hpp>

#include "bench_support.hpp"
#include "ilu_lower_factor.hpp"  // examples/sparse_trisolve
#include "kokkos_kernels_sptrsv.hpp"  // unit_test/

namespace {

using namespace strata_bench;
using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using Ordinal = std::uint32_t;
using Offset = std::uint32_t;
using Dep = strata::WaveDependency<Ordinal>;
using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
using Team = TeamPolicy::member_type;
using Plan = strata::BarrierPlan<ExecSpace, Ordinal>;
using Graph = strata::DependencyGraph<ExecSpace, Ordinal, Offset>;

// ---------------------------------------------------------------------------
// Wave bodies: thread-level, `void operator()(Ordinal wave) const`.
struct EmptyWave {
  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal) const {}
};

/// A dependent chain of 2 x iterations flops, its result stored.
struct SmallWave {
  Kokkos::View<double*, MemSpace> out;
  int iterations;
  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal w) const {
    double acc = 1.0, a = 1.0 + 1e-7 * static_cast<double>(w);
    for (int k = 0; k < iterations; ++k) acc = acc * 0.999 + a;
    out(w) = acc;
  }
};

/// The ordering check: each wave takes a ticket from one global counter.
struct TicketWave {
  Kokkos::View<std::uint64_t*, MemSpace> ticket;
  Kokkos::View<std::uint64_t, MemSpace> counter;
  KOKKOS_INLINE_FUNCTION void operator()(const Ordinal w) const {
    Kokkos::atomic_add(&ticket(w), Kokkos::atomic_fetch_add(&counter(), std::uint64_t(1)) + 1);
  }
};

/// Team-level adapter for the baselines: team r of the launch runs wave
/// waves(begin + r) on one thread.
template <class Body>
struct GroupWaves {
  Body body;
  Kokkos::View<const Ordinal*, MemSpace> waves;
  Ordinal begin;
  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const Ordinal w = waves(begin + static_cast<Ordinal>(team.league_rank()));
    Kokkos::single(Kokkos::PerTeam(team), [&]() { body(w); });
  }
};

/// The executor's thread-level functor form around a body, or its staged
/// form where the body has prepare() (the staged triangular solve).
template <class Body, class = void>
struct ExecutorWave {
  Body body;
  KOKKOS_INLINE_FUNCTION strata::TaskState operator()(const Ordinal w) const {
    body(w);
    return strata::TaskState::Completed;
  }
};
template <class Body>
struct ExecutorWave<Body, std::void_t<decltype(std::declval<const Body&>().prepare(Ordinal()))>> {
  Body body;
  KOKKOS_INLINE_FUNCTION auto prepare(const Ordinal w) const { return body.prepare(w); }
  template <class Prepared>
  KOKKOS_INLINE_FUNCTION strata::TaskState operator()(const Ordinal w, const Prepared& p) const {
    body(w, p);
    return strata::TaskState::Completed;
  }
};

template <class Body>
struct WorkGraphWave {
  Body body;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int32_t w) const { body(static_cast<Ordinal>(w)); }
};

// ---------------------------------------------------------------------------
struct Options {
  int repetitions = 5;
  std::string json = "strata_execute_bench.json";
  std::uint64_t chain = 10000;
  std::uint64_t sweep3d = 30;
  std::uint64_t layered_width = 1000, layered_depth = 100;
  std::uint64_t ilu3d = 30;
  std::vector<std::uint64_t> rows_per_wave = {1, 64};
  int small_flops = 256;
  int team_size = 0;  ///< 0: Kokkos::AUTO
  std::uint64_t graph_max_nodes = 20000;
  int kk_chain_threshold = 0;  ///< 0: 1 on host backends, 64 on a device
  std::uint32_t worker_count = 0;  ///< executor: LaunchConfig::worker_count (0: its default)
  bool profile = false;  ///< per-kernel times of one extra run of every method
  std::vector<std::string> methods;
  std::vector<std::string> filters;
  bool quick = false;
  std::string command_line;
};

const std::vector<std::string>& all_methods() {
  static const std::vector<std::string> m = {"layered", "persistent", "dataflow", "auto",
                                             "hostloop", "hostloop-async", "workgraph", "kokkos-graph"};
  return m;
}

TeamPolicy team_policy(const ExecSpace& space, std::size_t league, int team_size) {
  return team_size > 0 ? TeamPolicy(space, static_cast<int>(league), team_size)
                       : TeamPolicy(space, static_cast<int>(league), Kokkos::AUTO);
}

// ---------------------------------------------------------------------------
// A planned DAG with everything the methods need, built outside the timing.
struct Dag {
  std::string name, description;
  std::uint64_t waves = 0, deps = 0, groups = 0;
  std::vector<Dep> host_deps;
  Plan plan;
  Graph graph;
  strata::DependencyGraphStorage<ExecSpace, Ordinal, Offset> graph_storage;
  std::vector<Ordinal> group_offsets;  ///< host copy
  using WorkGraphPolicy = Kokkos::WorkGraphPolicy<ExecSpace, Kokkos::IndexType<std::int32_t>>;
  typename WorkGraphPolicy::graph_type successors;  ///< Kokkos::Crs: row w lists the waves w releases
  double plan_seconds = 0;
};

std::unique_ptr<Dag> make_dag(const std::string& name, std::uint64_t waves, std::vector<Dep> deps,
                              const std::string& description) {
  auto dag = std::make_unique<Dag>();
  dag->name = name;
  dag->description = description;
  dag->waves = waves;
  dag->deps = deps.size();
  dag->host_deps = std::move(deps);
  const ExecSpace space;
  const Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      dag->host_deps.data(), dag->host_deps.size());
  const Kokkos::View<const Dep*, MemSpace> d = Kokkos::create_mirror_view_and_copy(MemSpace(), host);
  dag->plan_seconds = seconds_of([&] {
    dag->graph = strata::build_dependency_graph(space, waves, d, dag->graph_storage);
    strata::PlannerScratch<ExecSpace, Ordinal, Offset> scratch;
    dag->plan = strata::plan_barriers(space, dag->graph, scratch);
  });
  dag->groups = dag->plan.group_count();
  const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dag->plan.group_offsets);
  dag->group_offsets.assign(offsets.data(), offsets.data() + offsets.extent(0));
  // WorkGraphPolicy's graph: Kokkos::Crs<int, ExecSpace, void, int> whose row w
  // lists the successors of w (completed_work(w) decrements the count of every
  // entry of row w; the initial counts are the in-degrees: one per entry).
  if (waves < 0x7fffffffull && dag->deps < 0x7fffffffull) {
    using Crs = typename Dag::WorkGraphPolicy::graph_type;
    typename Crs::row_map_type row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("workgraph row_map")), waves + 1);
    typename Crs::entries_type entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("workgraph entries")), dag->deps);
    const auto g_row = dag->graph.row_map;
    const auto g_ent = dag->graph.entries;
    Kokkos::parallel_for("workgraph row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, waves + 1),
                         KOKKOS_LAMBDA(const std::size_t i) { row_map(i) = static_cast<std::int32_t>(g_row(i)); });
    Kokkos::parallel_for("workgraph entries", Kokkos::RangePolicy<ExecSpace>(space, 0, dag->deps),
                         KOKKOS_LAMBDA(const std::size_t i) { entries(i) = static_cast<std::int32_t>(g_ent(i)); });
    space.fence();
    dag->successors.row_map = row_map;
    dag->successors.entries = entries;
  }
  return dag;
}

std::unique_ptr<Dag> make_generated_dag(const std::string& name, const strata::generate::GeneratedGraph& g) {
  return make_dag(name, g.wave_count, strata::generate::narrowed<Ordinal>(g), g.description);
}

// ---------------------------------------------------------------------------
// The methods. A Runner runs the DAG once with a body, fenced; prepared once per
// (DAG, method, body) outside the timing.
struct Runner {
  std::string skipped;          ///< non-empty: why the method cannot run here
  std::shared_ptr<std::string> mode_used = std::make_shared<std::string>();  ///< executor: the mode run
  double setup_seconds = 0;     ///< untimed preparation (graph construction, executor)
  std::function<void()> run;
};

bool is_executor_method(const std::string& method) {
  return method == "layered" || method == "persistent" || method == "dataflow" || method == "auto";
}

template <class Body>
Runner make_runner(const Options& opt, const Dag& dag, const std::string& method, const Body& body) {
  Runner r;
  const ExecSpace space;
  const auto waves = dag.plan.waves;
  const int team_size = opt.team_size;
  const Dag* d = &dag;
  if (is_executor_method(method)) {
    using Executor = strata::Executor<ExecSpace, Ordinal, Offset>;
    strata::LaunchConfig config;
    if (opt.worker_count != 0) config.worker_count = opt.worker_count;
    std::shared_ptr<Executor> executor;
    r.setup_seconds = seconds_of([&] { executor = std::make_shared<Executor>(space, dag.plan, dag.graph, config); });
    strata::RunOptions options;
    options.mode = strata::parse_execute_mode(method);
    options.label = "strata_execute_bench::" + method;
    options.team_size = team_size;
    const ExecutorWave<Body> wave{body};
    const auto mode_used = r.mode_used;
    r.run = [=] {
      executor->reset();
      strata::RunReport report = executor->run(wave, options);
      while (report.drained && !report.complete) report = executor->run(wave, options);  // resume
      space.fence();
      // the mode and its launch shape: league x team size (layered: the widest group's launch)
      *mode_used = std::string(strata::execute_mode_name(report.mode)) + ", " +
                   std::to_string(report.league_size) + "x" + std::to_string(report.team_size);
    };
  } else if (method == "hostloop" || method == "hostloop-async") {
    const bool fence_each = method == "hostloop";
    r.run = [=] {
      for (std::size_t g = 0; g + 1 < d->group_offsets.size(); ++g) {
        const Ordinal begin = d->group_offsets[g];
        Kokkos::parallel_for("strata_execute_bench::hostloop",
                             team_policy(space, d->group_offsets[g + 1] - begin, team_size),
                             GroupWaves<Body>{body, waves, begin});
        if (fence_each) space.fence();
      }
      space.fence();
    };
  } else if (method == "workgraph") {
    if (dag.successors.row_map.extent(0) == 0) {
      r.skipped = "n/a: more than 2^31 - 1 waves or dependencies for WorkGraphPolicy's int32 queue";
      return r;
    }
    const auto successors = dag.successors;
    r.run = [=] {
      // The policy's constructor counts the in-degrees and queues the sources
      // (three kernels and fences); its queue is consumed by the run.
      const typename Dag::WorkGraphPolicy policy(successors);
      Kokkos::parallel_for("strata_execute_bench::workgraph", policy, WorkGraphWave<Body>{body});
      space.fence();
    };
  } else if (method == "kokkos-graph") {
#ifndef STRATA_BENCH_HAVE_KOKKOS_GRAPH
    r.skipped = "n/a: Kokkos " + std::to_string(KOKKOS_VERSION) + " has no Kokkos::Experimental::Graph";
    return r;
#else
    if (dag.groups > opt.graph_max_nodes) {
      std::ostringstream s;
      s << "skipped: " << dag.groups << " nodes > --graph-max-nodes " << opt.graph_max_nodes
        << " (Kokkos' host Graph submits recursively, one stack frame pair per node)";
      r.skipped = s.str();
      return r;
    }
    using KGraph = Kokkos::Experimental::Graph<ExecSpace>;
    auto graph = std::make_shared<std::unique_ptr<KGraph>>();
    r.setup_seconds = seconds_of([&] {
      *graph = std::make_unique<KGraph>(Kokkos::Experimental::create_graph(space, [&](const auto& root) {
        Kokkos::Experimental::GraphNodeRef<ExecSpace> node = root;
        for (std::size_t g = 0; g + 1 < d->group_offsets.size(); ++g) {
          const Ordinal begin = d->group_offsets[g];
          node = node.then_parallel_for("strata_execute_bench::graph_node",
                                        team_policy(space, d->group_offsets[g + 1] - begin, team_size),
                                        GroupWaves<Body>{body, waves, begin});
        }
      }));
    });
    r.run = [=] {
      (*graph)->submit();
      space.fence();
    };
#endif
  } else {
    r.skipped = "n/a: unknown method";
  }
  return r;
}

// ---------------------------------------------------------------------------
// Results
struct MethodResult {
  std::string method, skipped, mode_used;
  bool verified = false;   ///< ticket check (DAG workloads) or relative error (trisolve)
  std::string check;       ///< what the check saw
  double setup_seconds = 0;
  Timing timing;
  double relative_error = -1;  ///< trisolve only
  std::vector<Phase> phases;   ///< --profile only
};

struct BodyResult {
  std::string body;  ///< empty | small | trisolve
  std::vector<MethodResult> methods;
};

struct DagResult {
  std::string name, description;
  std::uint64_t waves = 0, deps = 0, groups = 0;
  double plan_seconds = 0;
  std::vector<BodyResult> bodies;
};

/// Ticket check of one method on a DAG: every wave once, after its predecessors.
std::string ticket_check(const Options& opt, const Dag& dag, const std::string& method, bool* ok) {
  TicketWave body{Kokkos::View<std::uint64_t*, MemSpace>("tickets", dag.waves),
                  Kokkos::View<std::uint64_t, MemSpace>("ticket counter")};
  Runner r = make_runner(opt, dag, method, body);
  if (!r.skipped.empty()) {
    *ok = false;
    return r.skipped;
  }
  r.run();
  const auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), body.ticket);
  std::uint64_t unrun = 0, reruns = 0, order = 0;
  std::vector<char> seen(dag.waves + 1, 0);
  for (std::uint64_t w = 0; w < dag.waves; ++w) {
    // ticket = 1 + the counter value at the wave's start (0: never ran; a sum
    // of two tickets: ran twice, caught by the counting below)
    if (t(w) == 0) ++unrun;
    else if (t(w) > dag.waves || seen[t(w)]) ++reruns;
    else seen[t(w)] = 1;
  }
  for (const auto& e : dag.host_deps)
    if (!(t(e.before) < t(e.after))) ++order;
  std::ostringstream s;
  s << "tickets: " << unrun << " waves not run, " << reruns << " run twice, " << order
    << " dependencies out of order";
  *ok = unrun == 0 && reruns == 0 && order == 0;
  return s.str();
}

template <class Body>
MethodResult run_method(const Options& opt, const Dag& dag, const std::string& method,
                        const Body& body, const std::string& check, bool check_ok,
                        const std::function<void()>& before = {}) {
  MethodResult m;
  m.method = method;
  m.check = check;
  m.verified = check_ok;
  Runner r = make_runner(opt, dag, method, body);
  if (!r.skipped.empty()) {
    m.skipped = r.skipped;
    return m;
  }
  m.setup_seconds = r.setup_seconds;
  m.timing = time_calls(opt.repetitions, 1, r.run, before);
  m.mode_used = *r.mode_used;
  if (opt.profile) {
    if (before) before();
    m.phases = phases_of(r.run, "(outside kernels: host code, copies, fences, launch overhead)");
  }
  return m;
}

bool selected(const Options& opt, const std::string& name) {
  if (opt.filters.empty()) return true;
  for (const auto& f : opt.filters)
    if (name.find(f) != std::string::npos) return true;
  return false;
}

DagResult run_dag(const Options& opt, const Dag& dag) {
  DagResult r;
  r.name = dag.name;
  r.description = dag.description;
  r.waves = dag.waves;
  r.deps = dag.deps;
  r.groups = dag.groups;
  r.plan_seconds = dag.plan_seconds;
  std::vector<std::pair<std::string, bool>> checks;
  for (const auto& m : opt.methods) {
    bool ok = false;
    const std::string s = ticket_check(opt, dag, m, &ok);
    checks.emplace_back(s, ok);
  }
  {
    BodyResult b{"empty", {}};
    for (std::size_t i = 0; i < opt.methods.size(); ++i)
      b.methods.push_back(run_method(opt, dag, opt.methods[i], EmptyWave{}, checks[i].first, checks[i].second));
    r.bodies.push_back(b);
  }
  {
    BodyResult b{"small", {}};
    const SmallWave body{Kokkos::View<double*, MemSpace>("small wave results", dag.waves), std::max(1, opt.small_flops / 2)};
    for (std::size_t i = 0; i < opt.methods.size(); ++i)
      b.methods.push_back(run_method(opt, dag, opt.methods[i], body, checks[i].first, checks[i].second));
    r.bodies.push_back(b);
  }
  return r;
}

// ---------------------------------------------------------------------------
// The triangular solve.
struct KkResult {
  std::string algorithm, skipped;
  Timing timing;
  double symbolic_seconds = 0;
  std::uint64_t levels = 0;
  double relative_error = -1;
};

struct TrisolveResult {
  std::string name;
  std::uint64_t n = 0, rows = 0, nonzeros = 0;
  double build_seconds = 0;
  Timing serial;
  std::vector<KkResult> kk;
  std::vector<DagResult> waves;  ///< one per rows_per_wave: methods on the wave DAG
};

int kk_chain_threshold(const Options& opt) {
  if (opt.kk_chain_threshold > 0) return opt.kk_chain_threshold;
  // The threshold is also TP1CHAIN's team size (Kokkos Kernels sets one from
  // the other). Host backends: 1 (a team of 2 OpenMP threads per level took
  // 28 s on ilu3d 100 here, 75x TP1); a device: 64.
  if (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) return 1;
  return 64;
}

KkResult run_kk(const Options& opt, const std::string& algorithm_name,
                KokkosSparse::Experimental::SPTRSVAlgorithm algorithm,
                const strata_example::DeviceFactor<MemSpace>& f, const std::vector<double>& ref) {
  KkResult r;
  r.algorithm = algorithm_name;
  strata_sptrsv_test::KkHandle<ExecSpace, MemSpace> kh;
  const int rows = static_cast<int>(f.b.extent(0));
  kh.create_sptrsv_handle(algorithm, rows, true /*lower*/);
  if (algorithm == KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1CHAIN) {
    const int t = kk_chain_threshold(opt);
    kh.get_sptrsv_handle()->set_team_size(t);
    kh.get_sptrsv_handle()->reset_chain_threshold(t);
  }
  const Kokkos::View<int*, MemSpace> row_map(const_cast<int*>(f.row_map.data()), f.row_map.extent(0));
  const Kokkos::View<int*, MemSpace> entries(const_cast<int*>(f.entries.data()), f.entries.extent(0));
  const Kokkos::View<double*, MemSpace> values(const_cast<double*>(f.values.data()), f.values.extent(0));
  const Kokkos::View<double*, MemSpace> b(const_cast<double*>(f.b.data()), f.b.extent(0));
  const auto x = f.x;
  r.symbolic_seconds = seconds_of([&] {
    strata_sptrsv_test::kk_symbolic(kh, row_map, entries, values);
    ExecSpace().fence();
  });
  r.levels = static_cast<std::uint64_t>(kh.get_sptrsv_handle()->get_num_levels());
  r.timing = time_calls(
      opt.repetitions, 1,
      [&] {
        strata_sptrsv_test::kk_solve(kh, row_map, entries, values, b, x);
        ExecSpace().fence();
      },
      // x = 0 before each solve, not NaN as for Strata's methods: Kokkos
      // Kernels 4.6's SEQLVLSCHD_RP starts a row's sum from x's previous
      // value (solve_impl's serial path; the team paths reduce from zero),
      // so it returns NaN from a NaN-filled x on every backend it runs on.
      [x] { Kokkos::deep_copy(x, 0.0); });
  const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  r.relative_error = strata_example::relative_error(hx, ref);
  kh.destroy_sptrsv_handle();
  return r;
}

TrisolveResult run_trisolve(const Options& opt) {
  TrisolveResult t;
  t.n = opt.ilu3d;
  t.name = "trisolve-ilu3d-" + std::to_string(opt.ilu3d);
  strata_example::LowerFactor L;
  t.build_seconds = seconds_of([&] { L = strata_example::ilu3d_lower_factor(opt.ilu3d); });
  t.rows = static_cast<std::uint64_t>(L.rows);
  t.nonzeros = static_cast<std::uint64_t>(L.nonzeros());
  const std::vector<double> b = strata_example::rhs_of(L);
  std::vector<double> ref;
  t.serial = time_calls(opt.repetitions, 1, [&] { ref = strata_example::forward_substitution(L, b); });
  const auto f = strata_example::to_device<MemSpace>(L, b);
  using Algo = KokkosSparse::Experimental::SPTRSVAlgorithm;
  // SEQLVLSCHED_TP2 is commented out of the enum in both Kokkos Kernels 3.4
  // (Trilinos 13.2) and 4.6; RP, TP1 and TP1CHAIN exist in both.
  t.kk.push_back(run_kk(opt, "kk-RP", Algo::SEQLVLSCHD_RP, f, ref));
  t.kk.push_back(run_kk(opt, "kk-TP1", Algo::SEQLVLSCHD_TP1, f, ref));
  t.kk.push_back(run_kk(opt, "kk-TP1CHAIN", Algo::SEQLVLSCHD_TP1CHAIN, f, ref));
  for (const std::uint64_t rpw : opt.rows_per_wave) {
    const std::string name = t.name + "/" + std::to_string(rpw) + "rows";
    const auto dag = make_dag(name, strata_example::wave_count_of(L, rpw),
                              strata_example::wave_dependencies(L, rpw),
                              "ilu3d " + std::to_string(opt.ilu3d) + "^3 lower factor, " +
                                  std::to_string(rpw) + " rows per wave");
    DagResult r;
    r.name = dag->name;
    r.description = dag->description;
    r.waves = dag->waves;
    r.deps = dag->deps;
    r.groups = dag->groups;
    r.plan_seconds = dag->plan_seconds;
    // Every run starts from x = NaN (untimed): a row solved before one of
    // its columns would read NaN instead of the previous run's value.
    const auto x = f.x;
    const auto reset_x = [x] { Kokkos::deep_copy(x, std::nan("")); };
    const auto solve = [&](const std::string& m, const auto& body, const std::string& ticket,
                           bool ok) {
      MethodResult mr = run_method(opt, *dag, m, body, ticket, ok, reset_x);
      if (mr.skipped.empty()) {
        const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.x);
        mr.relative_error = strata_example::relative_error(hx, ref);
        mr.verified = ok && mr.relative_error <= 1e-12;
        std::ostringstream s;
        s << ticket << "; relative error " << std::setprecision(3) << mr.relative_error;
        mr.check = s.str();
      }
      return mr;
    };
    BodyResult body_result{"trisolve", {}};
    const strata_example::SolveRows<MemSpace> body{f, static_cast<std::int64_t>(rpw), L.rows};
    std::vector<std::pair<std::string, bool>> tickets;
    for (const auto& m : opt.methods) {
      bool ok = false;
      const std::string ticket = ticket_check(opt, *dag, m, &ok);
      tickets.emplace_back(ticket, ok);
      body_result.methods.push_back(solve(m, body, ticket, ok));
    }
    r.bodies.push_back(body_result);
    // The same solve in the executor's staged form (a row's data loaded
    // while the persistent mode's barrier is crossed); the baselines have no
    // such form: their rows are the body above.
    BodyResult staged_result{"trisolve-staged", {}};
    const strata_example::SolveRowsStaged<MemSpace> staged{f, static_cast<std::int64_t>(rpw), L.rows};
    for (std::size_t i = 0; i < opt.methods.size(); ++i) {
      const std::string& m = opt.methods[i];
      if (!is_executor_method(m)) {
        MethodResult skipped;
        skipped.method = m;
        skipped.skipped = "n/a: the staged form is the executor's (this method's time is the trisolve body's)";
        staged_result.methods.push_back(skipped);
        continue;
      }
      staged_result.methods.push_back(solve(m, staged, tickets[i].first, tickets[i].second));
    }
    r.bodies.push_back(staged_result);
    t.waves.push_back(r);
  }
  return t;
}

// ---------------------------------------------------------------------------
// Output
/// Anchors: the methods every other one is compared with (time of anchor /
/// time of method: > 1 means the method is faster).
const char* const k_anchors[] = {"hostloop", "workgraph", "kokkos-graph"};

const MethodResult* find_method(const BodyResult& b, const std::string& name) {
  for (const auto& m : b.methods)
    if (m.method == name && m.skipped.empty()) return &m;
  return nullptr;
}

void write_methods(std::ostream& out, const DagResult& d, const BodyResult& b, const char* indent) {
  out << "{";
  for (std::size_t i = 0; i < b.methods.size(); ++i) {
    const auto& m = b.methods[i];
    out << (i ? "," : "") << "\n" << indent << json_string(m.method) << ": ";
    if (!m.skipped.empty()) {
      out << "{\"skipped\": " << json_string(m.skipped) << "}";
      continue;
    }
    const double t = m.timing.median();
    out << "{\"time\": " << json_timing(m.timing) << ", \"verified\": " << (m.verified ? "true" : "false")
        << ", \"check\": " << json_string(m.check) << ", \"setup_s\": " << json_number(m.setup_seconds)
        << ", \"us_per_wave\": " << json_number(1e6 * t / double(std::max<std::uint64_t>(d.waves, 1)))
        << ", \"us_per_layer\": " << json_number(1e6 * t / double(std::max<std::uint64_t>(d.groups, 1)));
    if (!m.mode_used.empty()) out << ", \"mode_used\": " << json_string(m.mode_used);
    if (m.relative_error >= 0) out << ", \"relative_error\": " << json_number(m.relative_error);
    out << json_phases(m.phases);
    out << ", \"speedup_vs\": {";
    bool first = true;
    for (const char* a : k_anchors) {
      const MethodResult* anchor = find_method(b, a);
      if (!anchor) continue;
      out << (first ? "" : ", ") << json_string(a) << ": " << json_number(anchor->timing.median() / t);
      first = false;
    }
    out << "}}";
  }
  out << "}";
}

void write_dag(std::ostream& out, const DagResult& d) {
  out << "    {\"name\": " << json_string(d.name) << ", \"description\": " << json_string(d.description)
      << ", \"waves\": " << d.waves << ", \"deps\": " << d.deps << ", \"groups\": " << d.groups
      << ", \"plan_s\": " << json_number(d.plan_seconds) << ",\n     \"bodies\": {";
  for (std::size_t i = 0; i < d.bodies.size(); ++i) {
    out << (i ? "," : "") << "\n       " << json_string(d.bodies[i].body) << ": ";
    write_methods(out, d, d.bodies[i], "         ");
  }
  out << "}}";
}

void write_json(const Options& opt, const std::vector<DagResult>& dags, const TrisolveResult* tri,
                const std::string& date, const std::string& load_start) {
  std::ofstream out(opt.json);
  out << "{\n  \"schema\": \"strata-execute-bench/1\",\n  \"environment\": {\n"
      << json_environment(opt.command_line, date, load_start)
      << "    \"repetitions\": " << opt.repetitions << ",\n"
      << "    \"methods\": [";
  for (std::size_t i = 0; i < opt.methods.size(); ++i) out << (i ? ", " : "") << json_string(opt.methods[i]);
  out << "],\n"
      << "    \"team_size\": " << opt.team_size << ",\n"
      << "    \"small_flops\": " << opt.small_flops << ",\n"
      << "    \"kk_chain_threshold\": " << kk_chain_threshold(opt) << "\n  },\n"
      << "  \"notes\": {\n"
      << "    \"times\": " << json_string("wall clock of one fenced run, median over repetitions after one warm-up; us_per_wave = median / waves, us_per_layer = median / groups; speedup_vs[A] = median(A) / median(method), > 1: faster than A") << ",\n"
      << "    \"executor\": " << json_string("layered / persistent / dataflow / auto: strata::Executor built once per DAG and body (setup_s, untimed); timed: reset() + run() (+ resumed run() calls while drained) + fence, thread-level functor form; mode_used: the mode the run used (auto: the launch policy's choice) and its launch shape, league x team size (layered: the widest group's launch)") << ",\n"
      << "    \"hostloop\": " << json_string("(a) one parallel_for(TeamPolicy(group size, team_size or AUTO)) per group, Kokkos::single per team runs the wave, space.fence() after each group") << ",\n"
      << "    \"hostloop-async\": " << json_string("the same launches queued on one instance, one fence at the end") << ",\n"
      << "    \"workgraph\": " << json_string("(b) Kokkos::WorkGraphPolicy<IndexType<int32>> on the Crs of successors; the policy (its in-degree count and source queue: three kernels) is built inside the timed run, its queue being consumed by a run") << ",\n"
      << "    \"kokkos-graph\": " << json_string("(c) Kokkos::Experimental::Graph, one then_parallel_for(TeamPolicy) node per group chained; built once (setup_s), timed: submit() + fence") << ",\n"
      << "    \"verified\": " << json_string("ticket check on the DAG (every wave once, after its predecessors); trisolve: also relative error <= 1e-12 against the serial forward substitution") << "\n  },\n"
      << "  \"dags\": [\n";
  for (std::size_t i = 0; i < dags.size(); ++i) {
    write_dag(out, dags[i]);
    out << (i + 1 < dags.size() ? ",\n" : "\n");
  }
  out << "  ],\n  \"trisolve\": ";
  if (!tri) {
    out << "null\n}\n";
    return;
  }
  out << "{\"name\": " << json_string(tri->name) << ", \"n\": " << tri->n << ", \"rows\": " << tri->rows
      << ", \"nonzeros\": " << tri->nonzeros << ", \"build_s\": " << json_number(tri->build_seconds)
      << ",\n    \"serial\": " << json_timing(tri->serial) << ",\n    \"kk\": {";
  for (std::size_t i = 0; i < tri->kk.size(); ++i) {
    const auto& k = tri->kk[i];
    out << (i ? "," : "") << "\n      " << json_string(k.algorithm) << ": ";
    if (!k.skipped.empty()) {
      out << "{\"skipped\": " << json_string(k.skipped) << "}";
      continue;
    }
    out << "{\"time\": " << json_timing(k.timing) << ", \"symbolic_s\": " << json_number(k.symbolic_seconds)
        << ", \"levels\": " << k.levels << ", \"relative_error\": " << json_number(k.relative_error)
        << ", \"verified\": " << (k.relative_error >= 0 && k.relative_error <= 1e-12 ? "true" : "false")
        << ", \"speedup_vs_serial\": " << json_number(tri->serial.median() / k.timing.median()) << "}";
  }
  double best_kk = 0;
  for (const auto& k : tri->kk)
    if (k.skipped.empty() && (best_kk == 0 || k.timing.median() < best_kk)) best_kk = k.timing.median();
  out << "},\n    \"best_kk_s\": " << json_number(best_kk) << ",\n    \"waves\": [\n";
  for (std::size_t i = 0; i < tri->waves.size(); ++i) {
    write_dag(out, tri->waves[i]);
    out << (i + 1 < tri->waves.size() ? ",\n" : "\n");
  }
  out << "    ]}\n}\n";
}

std::string fmt(double x, int precision) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << x;
  return o.str();
}

void print_dag(const DagResult& d, double best_kk = 0) {
  std::cout << "\n" << d.name << ": " << d.description << " — " << d.waves << " waves, " << d.deps
            << " dependencies, " << d.groups << " groups\n";
  for (const auto& b : d.bodies) {
    std::cout << "  " << std::left << std::setw(16) << ("[" + b.body + "]") << std::right << std::setw(12)
              << "median ms" << std::setw(11) << "us/wave" << std::setw(11) << "us/layer" << std::setw(10)
              << "vs (a)" << std::setw(10) << "vs (b)" << std::setw(10) << "vs (c)";
    if (best_kk > 0) std::cout << std::setw(10) << "vs KK";
    std::cout << "  check\n";
    for (const auto& m : b.methods) {
      std::cout << "  " << std::left << std::setw(16) << m.method << std::right;
      if (!m.skipped.empty()) {
        std::cout << "  " << m.skipped << "\n";
        continue;
      }
      const double t = m.timing.median();
      std::cout << std::setw(12) << fmt(1e3 * t, 3) << std::setw(11)
                << fmt(1e6 * t / double(std::max<std::uint64_t>(d.waves, 1)), 3) << std::setw(11)
                << fmt(1e6 * t / double(std::max<std::uint64_t>(d.groups, 1)), 2);
      for (const char* a : k_anchors) {
        const MethodResult* anchor = find_method(b, a);
        std::cout << std::setw(10) << (anchor ? fmt(anchor->timing.median() / t, 2) : std::string("-"));
      }
      if (best_kk > 0) std::cout << std::setw(10) << fmt(best_kk / t, 2);
      std::cout << "  " << (m.verified ? "ok" : "FAILED: " + m.check);
      if (!m.mode_used.empty()) std::cout << " (mode " << m.mode_used << ")";
      std::cout << "\n";
      if (!m.phases.empty()) {
        std::cout << "      profile (one run):";
        for (std::size_t p = 0; p < m.phases.size() && p < 5; ++p)
          std::cout << (p ? ";" : "") << " " << m.phases[p].name << " " << fmt(1e3 * m.phases[p].seconds, 3)
                    << " ms x" << m.phases[p].calls;
        std::cout << "\n";
      }
    }
  }
  std::cout.flush();
}

void print_trisolve_head(const TrisolveResult& t) {
  std::cout << "\n" << t.name << ": " << t.rows << " rows, " << t.nonzeros << " nonzeros; serial "
            << fmt(1e3 * t.serial.median(), 3) << " ms\n";
  for (const auto& k : t.kk) {
    std::cout << "  " << std::left << std::setw(14) << k.algorithm << std::right;
    if (!k.skipped.empty()) {
      std::cout << "  " << k.skipped << "\n";
      continue;
    }
    std::cout << std::setw(12) << fmt(1e3 * k.timing.median(), 3) << " ms  " << k.levels
              << " levels, relative error " << std::setprecision(3) << k.relative_error
              << (k.relative_error <= 1e-12 ? "  ok" : "  FAILED") << "\n";
  }
}

// ---------------------------------------------------------------------------
[[noreturn]] void usage(int code) {
  std::cout
      << "usage: strata_execute_bench [--quick] [--filter NAME[,NAME...]] [--repetitions N] [--json FILE]\n"
         "         [--methods M,M,...] [--chain N] [--sweep3d N] [--layered WIDTHxDEPTH]\n"
         "         [--ilu3d N] [--rows-per-wave R[,R...]] [--small-flops F] [--team-size T]\n"
         "         [--graph-max-nodes N] [--kk-chain-threshold T] [--worker-count W] [--profile]\n"
         "         [Kokkos options]\n"
         "Workloads (filter by name): chain, sweep3d, layered, trisolve. Methods: layered, persistent,\n"
         "dataflow, auto (strata::Executor), hostloop, hostloop-async, workgraph, kokkos-graph (default: all).\n"
         "Defaults are CI-sized (chain 10000, sweep3d 30, layered 1000x100, ilu3d 30); the issue-13\n"
         "set: --chain 100000 --sweep3d 100 --ilu3d 100. --quick: a few-second smoke run.\n"
         "See docs/execute.md (Benchmarks).\n";
  if (Kokkos::is_initialized()) Kokkos::finalize();
  std::exit(code);
}

std::uint64_t parse_count(const std::string& what, const std::string& text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || v == 0 || text[0] == '-') {
    std::cerr << "strata_execute_bench: " << what << " must be a positive integer, got '" << text << "'\n";
    usage(2);
  }
  return v;
}

Options parse(int argc, char* argv[]) {
  Options opt;
  opt.command_line = command_line(argc, argv);
  bool repetitions_given = false;
  std::vector<std::string> given;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "strata_execute_bench: " << a << " needs a value\n";
        usage(2);
      }
      return argv[++i];
    };
    if (a.rfind("--kokkos-", 0) == 0) continue;
    given.push_back(a);
    if (a == "--quick") opt.quick = true;
    else if (a == "--filter") opt.filters = split(value());
    else if (a == "--repetitions") { opt.repetitions = static_cast<int>(parse_count(a, value())); repetitions_given = true; }
    else if (a == "--json") opt.json = value();
    else if (a == "--methods") opt.methods = split(value());
    else if (a == "--chain") opt.chain = parse_count(a, value());
    else if (a == "--sweep3d") opt.sweep3d = parse_count(a, value());
    else if (a == "--layered") {
      const std::string v = value();
      const auto x = v.find('x');
      if (x == std::string::npos) {
        std::cerr << "strata_execute_bench: --layered takes WIDTHxDEPTH, got '" << v << "'\n";
        usage(2);
      }
      opt.layered_width = parse_count(a, v.substr(0, x));
      opt.layered_depth = parse_count(a, v.substr(x + 1));
    }
    else if (a == "--ilu3d") opt.ilu3d = parse_count(a, value());
    else if (a == "--rows-per-wave") {
      opt.rows_per_wave.clear();
      for (const auto& s : split(value())) opt.rows_per_wave.push_back(parse_count(a, s));
    }
    else if (a == "--small-flops") opt.small_flops = static_cast<int>(parse_count(a, value()));
    else if (a == "--team-size") opt.team_size = static_cast<int>(parse_count(a, value()));
    else if (a == "--graph-max-nodes") opt.graph_max_nodes = parse_count(a, value());
    else if (a == "--profile") opt.profile = true;
    else if (a == "--worker-count") opt.worker_count = static_cast<std::uint32_t>(parse_count(a, value()));
    else if (a == "--kk-chain-threshold") opt.kk_chain_threshold = static_cast<int>(parse_count(a, value()));
    else if (a == "--help" || a == "-h") usage(0);
    else {
      std::cerr << "strata_execute_bench: unknown argument '" << a << "'\n";
      usage(2);
    }
  }
  if (opt.quick) {  // sizes not given explicitly shrink to a smoke run
    auto has = [&](const char* o) { return std::find(given.begin(), given.end(), o) != given.end(); };
    if (!has("--chain")) opt.chain = 2000;
    if (!has("--sweep3d")) opt.sweep3d = 10;
    if (!has("--layered")) { opt.layered_width = 100; opt.layered_depth = 20; }
    if (!has("--ilu3d")) opt.ilu3d = 10;
    if (!repetitions_given) opt.repetitions = 1;
  }
  if (opt.methods.empty()) opt.methods = all_methods();
  for (const auto& m : opt.methods)
    if (std::find(all_methods().begin(), all_methods().end(), m) == all_methods().end()) {
      std::cerr << "strata_execute_bench: unknown method '" << m << "'\n";
      usage(2);
    }
  return opt;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    const Options opt = parse(argc, argv);
    const std::string date = utc_now(), load_start = load_average();
    std::cout << bench_heading("strata_execute_bench", STRATA_BENCH_KOKKOSKERNELS_VERSION) << ", "
              << opt.repetitions << " repetitions (medians), load " << load_start << "\n"
              << "vs (a) / (b) / (c): time of hostloop / workgraph / kokkos-graph over the method's (> 1: faster)\n";
    namespace g = strata::generate;
    std::vector<DagResult> dags;
    auto failed = [](const BodyResult& b) {
      for (const auto& m : b.methods)
        if (m.skipped.empty() && !m.verified) return true;
      return false;
    };
    std::vector<std::pair<std::string, std::function<g::GeneratedGraph()>>> specs = {
        {"chain-" + std::to_string(opt.chain), [&] { return g::chain(opt.chain); }},
        {"sweep3d-" + std::to_string(opt.sweep3d), [&] { return g::sweep3d(opt.sweep3d, opt.sweep3d, opt.sweep3d); }},
        {"layered-" + std::to_string(opt.layered_width) + "x" + std::to_string(opt.layered_depth),
         [&] { return g::layered(opt.layered_width, opt.layered_depth, 4, 10, true, 1); }},
    };
    std::unique_ptr<TrisolveResult> tri;
    for (const auto& s : specs) {
      if (!selected(opt, s.first)) continue;
      const auto dag = make_generated_dag(s.first, s.second());
      dags.push_back(run_dag(opt, *dag));
      print_dag(dags.back());
      for (const auto& b : dags.back().bodies)
        if (failed(b)) rc = 1;
      write_json(opt, dags, nullptr, date, load_start);
    }
    if (selected(opt, "trisolve-ilu3d")) {
      tri = std::make_unique<TrisolveResult>(run_trisolve(opt));
      print_trisolve_head(*tri);
      double best_kk = 0;
      for (const auto& k : tri->kk) {
        if (k.skipped.empty() && (best_kk == 0 || k.timing.median() < best_kk)) best_kk = k.timing.median();
        if (k.skipped.empty() && !(k.relative_error <= 1e-12)) rc = 1;
      }
      for (const auto& w : tri->waves) {
        print_dag(w, best_kk);
        for (const auto& b : w.bodies)
          if (failed(b)) rc = 1;
      }
    }
    write_json(opt, dags, tri.get(), date, load_start);
    std::cout << "\nJSON: " << opt.json << (rc ? "  (FAILED checks: see above)" : "") << "\n";
  } catch (const std::exception& e) {
    std::cerr << "strata_execute_bench: " << e.what() << "\n";
    rc = 2;
  }
  Kokkos::finalize();
  return rc;
}
