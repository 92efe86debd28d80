// The executor (strata/execute/) on TEST_EXECSPACE, every mode: each wave of
// the differential corpus runs exactly once and after its predecessors
// (tickets from one global counter, checked against the predecessors'
// finish tickets through the reversed graph); drain at the wall-time budget
// and resume, in any mix of modes, ends in the state of one uninterrupted
// run; yield / requeue on the device; RequeueLimit, WaveFaulted (no later
// layer started), NotCoResident; the device-wide barrier; determinism.
#include <chrono>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/device_barrier.hpp>
#include <strata/execute/executor.hpp>
#include <strata/strata.hpp>

#include "differential_corpus.hpp"
#include "test_helpers.hpp"

namespace strata {
namespace {

using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using Ord = std::uint32_t;
using Plan = BarrierPlan<Space, Ord>;
using Graph = DependencyGraph<Space, Ord, Ord>;
using Exec = Executor<Space, Ord, Ord>;
using Member = Exec::team_member;
using U64View = Kokkos::View<std::uint64_t*, Mem>;
using test::expect_plan_error;

const ExecuteMode kModes[] = {ExecuteMode::Layered, ExecuteMode::Persistent,
                              ExecuteMode::Dataflow, ExecuteMode::Automatic};

/// A planned graph with its CSR and the reversed CSR (predecessors).
struct Case {
  std::uint64_t waves = 0;
  std::vector<WaveDependency<Ord>> deps;
  Plan plan;
  Graph graph, preds;
};

Graph graph_of(std::uint64_t waves, const std::vector<WaveDependency<Ord>>& deps) {
  Kokkos::View<WaveDependency<Ord>*, Mem> d("deps", deps.size());
  const Kokkos::View<const WaveDependency<Ord>*, Kokkos::HostSpace,
                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host(deps.data(), deps.size());
  Kokkos::deep_copy(d, host);
  return make_dependency_graph<Space, Ord, Ord>(Space(), waves,
                                                Kokkos::View<const WaveDependency<Ord>*, Mem>(d));
}

Case make_case(std::uint64_t waves, std::vector<WaveDependency<Ord>> deps) {
  Case c;
  c.waves = waves;
  c.deps = std::move(deps);
  c.graph = graph_of(waves, c.deps);
  PlannerScratch<Space, Ord, Ord> scratch;
  c.plan = plan_barriers(Space(), c.graph, scratch);
  std::vector<WaveDependency<Ord>> reversed;
  for (const auto& d : c.deps) reversed.push_back({d.after, d.before});
  c.preds = graph_of(waves, reversed);
  return c;
}

Case make_case(const generate::GeneratedGraph& g) {
  return make_case(g.wave_count, generate::narrowed<Ord>(g));
}

/// What a ticket functor records, per wave.
struct Tickets {
  U64View start, finish, executions, value;
  U64View clock, violations;  // one element each
  explicit Tickets(std::uint64_t waves)
      : start("start", waves), finish("finish", waves), executions("executions", waves),
        value("value", waves), clock("clock", 1), violations("violations", 1) {}
};

/// Thread-level: a start ticket, the predecessors' finish tickets must be
/// earlier, a deterministic value from the predecessors' values, a finish
/// ticket. Yields (or requeues) its first `yields(w)` executions; wave
/// `fault` returns Faulted; `spin` iterations of busy work first.
struct TicketWave {
  U64View start, finish, executions, value, clock, violations;
  Kokkos::View<Ord*, Mem> pred_row_map, pred_entries;
  std::uint64_t yield_mod = 0;        // wave w yields w % yield_mod times (0: never)
  std::uint64_t fault = ~std::uint64_t(0);
  std::uint64_t always_yield = ~std::uint64_t(0);
  std::uint64_t spin = 0;

  TicketWave(const Tickets& t, const Case& c)
      : start(t.start), finish(t.finish), executions(t.executions), value(t.value),
        clock(t.clock), violations(t.violations), pred_row_map(c.preds.row_map),
        pred_entries(c.preds.entries) {}

  KOKKOS_INLINE_FUNCTION TaskState operator()(Ord w) const {
    const std::uint64_t n = Kokkos::atomic_fetch_add(&executions(w), std::uint64_t(1));
    if (w == always_yield) return TaskState::Yielded;
    if (yield_mod != 0 && n < w % yield_mod)
      return n % 2 == 0 ? TaskState::Yielded : TaskState::Requeued;
    const std::uint64_t t = Kokkos::atomic_fetch_add(&clock(0), std::uint64_t(1)) + 1;
    start(w) = t;
    if (w == fault) return TaskState::Faulted;
    std::uint64_t sum = w * 0x9E3779B97F4A7C15ull;
    std::uint64_t busy = 0;
    for (std::uint64_t i = 0; i < spin; ++i) busy = busy * 6364136223846793005ull + i;
    for (std::uint64_t e = pred_row_map(w); e < pred_row_map(w + 1); ++e) {
      const Ord p = pred_entries(e);
      const std::uint64_t f = volatile_load(&finish(p));
      if (f == 0 || f >= t) Kokkos::atomic_fetch_add(&violations(0), std::uint64_t(1));
      sum = sum * 31 + volatile_load(&value(p));
    }
    if (busy == 0x5eed5eed5eed5eedull) sum = 0;  // uses the spin (never true in practice)
    value(w) = sum;
    Kokkos::memory_fence();
    finish(w) = Kokkos::atomic_fetch_add(&clock(0), std::uint64_t(1)) + 1;
    return TaskState::Completed;
  }
};

/// Team-level: the same checks, the predecessors spread over the team.
struct TeamTicketWave {
  TicketWave inner;
  KOKKOS_INLINE_FUNCTION TaskState operator()(const Member& team, Ord w) const {
    std::uint64_t t = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](std::uint64_t& v) {
          Kokkos::atomic_fetch_add(&inner.executions(w), std::uint64_t(1));
          v = Kokkos::atomic_fetch_add(&inner.clock(0), std::uint64_t(1)) + 1;
          inner.start(w) = v;
        },
        t);
    std::uint64_t bad = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, std::uint64_t(inner.pred_row_map(w)),
                                std::uint64_t(inner.pred_row_map(w + 1))),
        [&](const std::uint64_t e, std::uint64_t& b) {
          const std::uint64_t f = volatile_load(&inner.finish(inner.pred_entries(e)));
          if (f == 0 || f >= t) ++b;
        },
        bad);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (bad != 0) Kokkos::atomic_fetch_add(&inner.violations(0), bad);
      std::uint64_t sum = w * 0x9E3779B97F4A7C15ull;
      for (std::uint64_t e = inner.pred_row_map(w); e < inner.pred_row_map(w + 1); ++e)
        sum = sum * 31 + volatile_load(&inner.value(inner.pred_entries(e)));
      inner.value(w) = sum;
      Kokkos::memory_fence();
      inner.finish(w) = Kokkos::atomic_fetch_add(&inner.clock(0), std::uint64_t(1)) + 1;
    });
    return TaskState::Completed;
  }
};

/// The staged form (prepare + operator()(w, prepared)): prepare() reads only
/// the predecessor CSR's row of w (what no wave writes) and counts its calls;
/// the execution checks that its prepared data is w's own and runs the
/// thread-level checks. A wave that runs again reuses its prepared data.
struct PreparedWave {
  Ord wave = 0;
  std::uint64_t pred_begin = 0, pred_end = 0;
};
struct StagedTicketWave {
  TicketWave inner;
  U64View prepares;  // one element: prepare() calls
  KOKKOS_INLINE_FUNCTION PreparedWave prepare(Ord w) const {
    Kokkos::atomic_fetch_add(&prepares(0), std::uint64_t(1));
    return PreparedWave{w, inner.pred_row_map(w), inner.pred_row_map(w + 1)};
  }
  KOKKOS_INLINE_FUNCTION TaskState operator()(Ord w, const PreparedWave& p) const {
    if (p.wave != w || p.pred_begin != inner.pred_row_map(w) ||
        p.pred_end != inner.pred_row_map(w + 1))
      Kokkos::atomic_fetch_add(&inner.violations(0), std::uint64_t(1));
    return inner(w);
  }
};

/// The values a serial run in plan order gives (the reference).
std::vector<std::uint64_t> reference_values(const Case& c) {
  std::vector<std::vector<Ord>> preds(c.waves);
  for (const auto& d : c.deps) preds[d.after].push_back(d.before);
  // The reversed graph's row order is unspecified: the functor sums in CSR
  // order, so take that order from it.
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.preds.row_map);
  const auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.preds.entries);
  std::vector<std::uint64_t> value(c.waves, 0);
  for (const auto& group : c.plan.host_groups())
    for (const std::uint64_t w : group) {
      std::uint64_t sum = w * 0x9E3779B97F4A7C15ull;
      for (std::uint64_t e = rm(w); e < rm(w + 1); ++e) sum = sum * 31 + value[en(e)];
      value[w] = sum;
    }
  return value;
}

struct Outcome {
  std::vector<std::uint64_t> start, finish, executions, value;
  std::uint64_t violations = 0;
};

Outcome outcome_of(const Tickets& t) {
  Outcome o;
  auto copy = [](const U64View& v) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<std::uint64_t>(h.data(), h.data() + h.extent(0));
  };
  o.start = copy(t.start);
  o.finish = copy(t.finish);
  o.executions = copy(t.executions);
  o.value = copy(t.value);
  o.violations = copy(t.violations)[0];
  return o;
}

::testing::AssertionResult ran_once_in_order(const Case& c, const Outcome& o,
                                             std::uint64_t yield_mod) {
  if (o.violations != 0)
    return ::testing::AssertionFailure() << o.violations << " predecessor-order violations";
  for (std::uint64_t w = 0; w < c.waves; ++w) {
    const std::uint64_t expected = 1 + (yield_mod != 0 ? w % yield_mod : 0);
    if (o.executions[w] != expected)
      return ::testing::AssertionFailure()
             << "wave " << w << " executed " << o.executions[w] << " times, expected " << expected;
    if (o.finish[w] == 0) return ::testing::AssertionFailure() << "wave " << w << " never finished";
  }
  for (const auto& d : c.deps)
    if (!(o.finish[d.before] < o.start[d.after]))
      return ::testing::AssertionFailure() << "wave " << d.after << " started before " << d.before
                                           << " finished";
  return ::testing::AssertionSuccess();
}

/// What the drain tests share: a wave slow enough that a 200 µs budget
/// expires mid-run (each wave spins), every odd wave yielding once, and an
/// executor configuration with that budget.
TicketWave slow_yielding_wave(const Tickets& t, const Case& c) {
  TicketWave wave(t, c);
  wave.spin = 20000;
  wave.yield_mod = 2;
  return wave;
}

LaunchConfig short_budget() {
  LaunchConfig config;
  config.max_wall_time = std::chrono::microseconds(200);
  return config;
}

/// What the runs of a draining executor added up to.
struct DrainedRuns {
  int runs = 0, drained = 0;
  std::uint64_t waves = 0, layers = 0, requeues = 0;
};

/// Runs `exec` until it is complete (at most 100000 runs), run k with
/// options_of(k), checking that every run made progress, that its report
/// counts the waves of all runs so far and is drained exactly when it is
/// not complete, and that the budget expired at least once.
template <class Wave, class OptionsOf>
DrainedRuns run_until_complete(Exec& exec, const Wave& wave, OptionsOf options_of) {
  DrainedRuns d;
  while (!exec.complete() && d.runs < 100000) {
    const RunReport r = exec.run(wave, options_of(d.runs));
    ++d.runs;
    EXPECT_GE(r.waves_run, 1u);  // every run makes progress
    d.waves += r.waves_run;
    d.layers += r.layers;
    d.requeues += r.requeues;
    EXPECT_EQ(r.waves_total, d.waves);
    EXPECT_EQ(r.drained, !r.complete);
    d.drained += r.drained ? 1 : 0;
  }
  EXPECT_TRUE(exec.complete()) << "still running after " << d.runs << " runs";
  EXPECT_GE(d.drained, 1) << "the budget never expired: make the waves slower";
  return d;
}

/// The corpus graphs the executor runs: the first valid ones of each kind.
std::vector<std::uint64_t> corpus_indices() {
  std::vector<std::uint64_t> picked;
  for (std::uint64_t i = 0; i < 16; ++i)
    if (i % 8 != 7) picked.push_back(i);
  return picked;
}

TEST(Execute, CorpusEveryWaveOnceAfterItsPredecessorsInEveryMode) {
  const bool pairs = DeviceLimits::query(Space()).max_team_size >= 2;
  for (const std::uint64_t index : corpus_indices()) {
    const Case c = make_case(test::corpus_graph(index));
    const auto expected = reference_values(c);
    for (const ExecuteMode mode : kModes)
      // thread-level, team-level, thread-level yielding, team-level on teams of 2
      // threads, thread-level on teams of 2 threads (one wave per thread: lanes),
      // and yielding there; staged, and staged yielding on teams of 2 threads
      // where the backend has them
      for (int form = 0; form < 8; ++form) {
        if (form >= 3 && form <= 5 && !pairs) continue;
        SCOPED_TRACE("corpus " + std::to_string(index) + " mode " + execute_mode_name(mode) +
                     " form " + std::to_string(form));
        Tickets t(c.waves);
        TicketWave wave(t, c);
        if (form == 2 || form == 5 || form == 7) wave.yield_mod = 3;
        Exec exec(Space(), c.plan, c.graph);
        RunOptions options;
        options.mode = mode;
        if ((form >= 3 && form <= 5) || (form == 7 && pairs)) options.team_size = 2;
        const StagedTicketWave staged{wave, U64View("prepares", 1)};
        const RunReport r = form == 1 || form == 3 ? exec.run(TeamTicketWave{wave}, options)
                            : form >= 6            ? exec.run(staged, options)
                                                   : exec.run(wave, options);
        if (form >= 6) {  // at least one prepare() per wave
          const auto n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged.prepares);
          EXPECT_GE(n(0), c.waves);
        }
        if (options.team_size == 2) EXPECT_EQ(r.team_size, 2);
        EXPECT_NE(r.mode, ExecuteMode::Automatic);
        if (mode != ExecuteMode::Automatic) EXPECT_EQ(r.mode, mode);
        EXPECT_FALSE(r.reason.empty());
        EXPECT_TRUE(r.complete);
        EXPECT_FALSE(r.drained);
        EXPECT_EQ(r.waves_run, c.waves);
        EXPECT_EQ(r.waves_total, c.waves);
        EXPECT_EQ(r.layers, c.plan.group_count());
        const Outcome o = outcome_of(t);
        EXPECT_TRUE(ran_once_in_order(c, o, wave.yield_mod));
        EXPECT_EQ(o.value, expected);  // deterministic functor, deterministic result
        std::uint64_t yields = 0;
        for (std::uint64_t w = 0; w < c.waves; ++w) yields += wave.yield_mod ? w % 3 : 0;
        EXPECT_EQ(r.requeues, yields);
        // run() after completion: a no-op report.
        const RunReport again = exec.run(wave, options);
        EXPECT_EQ(again.waves_run, 0u);
        EXPECT_TRUE(again.complete);
      }
  }
}

TEST(Execute, DrainAtTheWallTimeBudgetThenResumeEqualsOneRun) {
  const Case c = make_case(generate::sweep2d(24, 24));  // 576 waves, 47 groups
  const auto expected = reference_values(c);
  // The runs rotate through the modes, so every mode resumes a drained run
  // of every other.
  for (const ExecuteMode first : kModes) {
    SCOPED_TRACE(std::string("first mode ") + execute_mode_name(first));
    Tickets t(c.waves);
    const TicketWave wave = slow_yielding_wave(t, c);
    Exec exec(Space(), c.plan, c.graph, short_budget());
    std::size_t m = 0;
    while (m < 4 && kModes[m] != first) ++m;
    const DrainedRuns d = run_until_complete(exec, wave, [&](int run) {
      RunOptions options;
      options.mode = kModes[(m + std::size_t(run)) % 4];
      return options;
    });
    EXPECT_EQ(d.waves, c.waves);
    EXPECT_EQ(d.layers, c.plan.group_count());
    std::uint64_t yields = 0;
    for (std::uint64_t w = 0; w < c.waves; ++w) yields += w % 2;
    EXPECT_EQ(d.requeues, yields);
    const Outcome o = outcome_of(t);
    EXPECT_TRUE(ran_once_in_order(c, o, wave.yield_mod));
    EXPECT_EQ(o.value, expected);
  }
}

TEST(Execute, RequeueLimitNamesTheWave) {
  const Case c = make_case(test::corpus_graph(1));
  ASSERT_GT(c.waves, 5u);
  for (const ExecuteMode mode : kModes) {
    SCOPED_TRACE(execute_mode_name(mode));
    Tickets t(c.waves);
    TicketWave wave(t, c);
    wave.always_yield = 5;
    Exec exec(Space(), c.plan, c.graph);
    RunOptions options;
    options.mode = mode;
    options.max_requeues_per_wave = 3;
    const PlanError e =
        expect_plan_error(ErrorKind::RequeueLimit, [&] { exec.run(wave, options); });
    EXPECT_EQ(e.wave(), 5u);
    EXPECT_EQ(e.requested(), 3u);
    EXPECT_EQ(outcome_of(t).executions[5], 4u);  // 3 requeues allowed, the 4th is the error
    EXPECT_FALSE(exec.complete());
    // The state is kept: the same error until reset().
    EXPECT_EQ(expect_plan_error(ErrorKind::RequeueLimit, [&] { exec.run(wave, options); }).wave(),
              5u);
    exec.reset();
    for (const auto& task : exec.task_snapshot()) {  // reset: every slot Queued, no requeues
      ASSERT_EQ(task.state_word, static_cast<std::uint32_t>(TaskState::Queued));
      ASSERT_EQ(task.priority_age, 0u);
    }
    wave.always_yield = ~std::uint64_t(0);
    Kokkos::deep_copy(t.finish, 0);
    Kokkos::deep_copy(t.executions, 0);
    EXPECT_TRUE(exec.run(wave, options).complete);
  }
}

TEST(Execute, FaultNamesTheWaveAndNoLaterLayerStarts) {
  const Case c = make_case(generate::layered(12, 8, 2, 0, true, 3));
  const auto host = c.plan.host_mirror();
  ASSERT_GE(c.plan.group_count(), 4u);
  const Ord victim = host.waves(host.group_offsets(2) + 1);  // a wave of group 2
  for (const ExecuteMode mode : kModes)
    for (const std::uint32_t league : {0u, 1u}) {
      SCOPED_TRACE(std::string(execute_mode_name(mode)) + " league " + std::to_string(league));
      Tickets t(c.waves);
      TicketWave wave(t, c);
      wave.fault = victim;
      Exec exec(Space(), c.plan, c.graph);
      RunOptions options;
      options.mode = mode;
      options.league_size = league;
      const PlanError e =
          expect_plan_error(ErrorKind::WaveFaulted, [&] { exec.run(wave, options); });
      EXPECT_EQ(e.wave(), victim);
      const Outcome o = outcome_of(t);
      const std::uint64_t fault_ticket = o.start[victim];
      ASSERT_NE(fault_ticket, 0u);
      // The mode that ran: Automatic may choose dataflow (narrow groups on a
      // device), which has no barrier to stop later layers at.
      ExecuteMode used = mode;
      if (mode == ExecuteMode::Automatic) {
        Tickets clean_tickets(c.waves);
        Exec clean(Space(), c.plan, c.graph);
        used = clean.run(TicketWave(clean_tickets, c), options).mode;
      }
      const bool barriers = used != ExecuteMode::Dataflow;
      for (std::uint64_t w = 0; w < c.waves; ++w) {
        if (host.level(w) <= 2 || o.start[w] == 0) continue;
        // A later layer: never in the barrier modes; in dataflow never after
        // the fault when one team runs everything.
        EXPECT_FALSE(barriers) << "wave " << w << " of group " << host.level(w) << " started";
        if (league == 1) EXPECT_LT(o.start[w], fault_ticket) << "wave " << w;
      }
      const auto tasks = exec.task_snapshot();
      EXPECT_EQ(tasks[victim].state_word, static_cast<std::uint32_t>(TaskState::Faulted));
    }
}

/// Dataflow on teams of several threads (every device backend's default;
/// teams of 2 on a host backend that has them): a thread-level chain's inner
/// links run on the team's leader alone, with no team collective between
/// them (DataflowKernel::run_links). Four chains of 400 waves, chain k's
/// wave 200 also waiting for chain k-1's wave 100 (so links end and counters
/// take over mid-chain): every wave once and in order, with yielding links,
/// a fault inside a chain, and a drain inside the chains, then resume.
TEST(Execute, DataflowRunsThreadLevelChainsOnTeamsOfSeveralThreads) {
  const std::uint64_t chains = 4, length = 400;
  std::vector<WaveDependency<Ord>> deps;
  for (std::uint64_t k = 0; k < chains; ++k)
    for (std::uint64_t i = 1; i < length; ++i)
      deps.push_back({static_cast<Ord>(k * length + i - 1), static_cast<Ord>(k * length + i)});
  for (std::uint64_t k = 1; k < chains; ++k)
    deps.push_back({static_cast<Ord>((k - 1) * length + 100), static_cast<Ord>(k * length + 200)});
  const Case c = make_case(chains * length, deps);
  const auto expected = reference_values(c);
  RunOptions options;
  options.mode = ExecuteMode::Dataflow;
  if (is_host_backend_v<Space> && DeviceLimits::query(Space()).max_team_size >= 2)
    options.team_size = 2;
  for (const std::uint64_t yield_mod : {0u, 3u}) {
    SCOPED_TRACE("yield_mod " + std::to_string(yield_mod));
    Tickets t(c.waves);
    TicketWave wave(t, c);
    wave.yield_mod = yield_mod;
    Exec exec(Space(), c.plan, c.graph);
    const RunReport r = exec.run(wave, options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.waves_run, c.waves);
    const Outcome o = outcome_of(t);
    EXPECT_TRUE(ran_once_in_order(c, o, yield_mod));
    EXPECT_EQ(o.value, expected);
    std::uint64_t yields = 0;
    for (std::uint64_t w = 0; w < c.waves; ++w) yields += yield_mod ? w % yield_mod : 0;
    EXPECT_EQ(r.requeues, yields);
  }
  {  // a fault inside chain 2: named, Faulted, and its chain stops there
    SCOPED_TRACE("fault");
    const Ord victim = static_cast<Ord>(2 * length + 300);
    Tickets t(c.waves);
    TicketWave wave(t, c);
    wave.fault = victim;
    Exec exec(Space(), c.plan, c.graph);
    EXPECT_EQ(expect_plan_error(ErrorKind::WaveFaulted, [&] { exec.run(wave, options); }).wave(),
              victim);
    const Outcome o = outcome_of(t);
    for (std::uint64_t w = victim + 1; w < 3 * length; ++w) ASSERT_EQ(o.executions[w], 0u) << w;
    EXPECT_EQ(exec.task_snapshot()[victim].state_word,
              static_cast<std::uint32_t>(TaskState::Faulted));
  }
  {  // slow waves and a short budget: drains inside the chains, then resumes
    SCOPED_TRACE("drain");
    Tickets t(c.waves);
    const TicketWave wave = slow_yielding_wave(t, c);
    Exec exec(Space(), c.plan, c.graph, short_budget());
    const DrainedRuns d = run_until_complete(exec, wave, [&](int) { return options; });
    EXPECT_EQ(d.waves, c.waves);
    const Outcome o = outcome_of(t);
    EXPECT_TRUE(ran_once_in_order(c, o, wave.yield_mod));
    EXPECT_EQ(o.value, expected);
  }
}

TEST(Execute, LeagueAboveTheCoResidentBoundIsNotCoResident) {
  const Case c = make_case(generate::chain(10));
  Tickets t(c.waves);
  TicketWave wave(t, c);
  Exec exec(Space(), c.plan, c.graph);
  for (const ExecuteMode mode : {ExecuteMode::Persistent, ExecuteMode::Dataflow}) {
    RunOptions options;
    options.mode = mode;
    options.league_size = 1u << 30;
    const PlanError e =
        expect_plan_error(ErrorKind::NotCoResident, [&] { exec.run(wave, options); });
    EXPECT_EQ(e.requested(), 1u << 30);
    EXPECT_LT(e.available(), 1u << 30);
    EXPECT_GE(e.available(), 1u);
    options.league_size = static_cast<std::uint32_t>(e.available());  // the bound itself runs
    options.team_size = 100000;
    expect_plan_error(ErrorKind::InvalidLaunchConfig, [&] { exec.run(wave, options); });
  }
  RunOptions options;
  options.league_size = 1;
  options.mode = ExecuteMode::Persistent;
  EXPECT_TRUE(exec.run(wave, options).complete);
  EXPECT_TRUE(ran_once_in_order(c, outcome_of(t), 0));
}

/// The persistent kernel's league rendezvous decides for the whole league at
/// once (core/league_rendezvous.hpp). With residency timeouts so short that
/// teams give up while others are still arriving, every run must either run
/// no wave at all (NotCoResident, every state word still Queued) or the whole
/// plan in order: a team that went ahead while another gave up would run
/// part of a group and then wait at the device-wide barrier for a team that
/// left. Many layers, leagues of several teams, repeated runs.
TEST(Execute, PersistentRendezvousRunsTheWholeLeagueOrNoTeam) {
  const Case c = make_case(generate::layered(6, 40, 2, 0, true, 7));  // 240 waves, 40 groups
  ASSERT_GE(c.plan.group_count(), 20u);
  const auto limits = DeviceLimits::query(Space());
  const std::chrono::nanoseconds timeouts[] = {std::chrono::nanoseconds(1),
                                               std::chrono::microseconds(2),
                                               std::chrono::microseconds(50)};
  std::uint64_t abandoned = 0, completed = 0;
  for (const int team_size : {1, 2}) {
    if (team_size > 1 && limits.max_team_size < 2) continue;
    Exec exec(Space(), c.plan, c.graph);
    for (int rep = 0; rep < 60; ++rep) {
      SCOPED_TRACE("team size " + std::to_string(team_size) + " run " + std::to_string(rep));
      exec.reset();
      Tickets t(c.waves);
      TicketWave wave(t, c);
      RunOptions options;
      options.mode = ExecuteMode::Persistent;
      options.team_size = team_size;
      options.residency_timeout = timeouts[rep % 3];
      try {
        const RunReport r = exec.run(wave, options);
        ++completed;
        EXPECT_TRUE(r.complete);
        EXPECT_TRUE(ran_once_in_order(c, outcome_of(t), 0));
      } catch (const PlanError& e) {
        ++abandoned;
        ASSERT_EQ(e.kind(), ErrorKind::NotCoResident) << e.what();
        EXPECT_GE(e.requested(), 2u);  // a league of one never waits
        EXPECT_EQ(exec.waves_completed(), 0u);
        const Outcome o = outcome_of(t);
        for (std::uint64_t w = 0; w < c.waves; ++w)
          ASSERT_EQ(o.executions[w], 0u) << "wave " << w << " ran in an abandoned league";
        for (const auto& task : exec.task_snapshot())
          ASSERT_EQ(task.state_word, static_cast<std::uint32_t>(TaskState::Queued));
      }
    }
  }
  EXPECT_EQ(abandoned + completed, limits.max_team_size < 2 ? 60u : 120u);
  // A non-positive timeout is an invalid launch configuration.
  Exec exec(Space(), c.plan, c.graph);
  Tickets t(c.waves);
  RunOptions options;
  options.residency_timeout = std::chrono::nanoseconds(0);
  expect_plan_error(ErrorKind::InvalidLaunchConfig, [&] { exec.run(TicketWave(t, c), options); });
}

TEST(Execute, TaskSnapshotFeedsTheLaunchRequest) {
  const Case c = make_case(generate::sweep2d(16, 16));
  Tickets t(c.waves);
  TicketWave wave(t, c);
  wave.spin = 20000;
  LaunchConfig config;
  config.max_wall_time = std::chrono::microseconds(100);
  Exec exec(Space(), c.plan, c.graph, config);
  RunOptions options;
  options.mode = ExecuteMode::Layered;
  const RunReport r = exec.run(wave, options);
  ASSERT_TRUE(r.drained);
  const auto tasks = exec.task_snapshot();
  ASSERT_EQ(tasks.size(), c.waves);
  std::uint64_t done = 0;
  for (const auto& task : tasks)
    done += task.state_word == static_cast<std::uint32_t>(TaskState::Completed) ? 1 : 0;
  EXPECT_EQ(done, r.waves_total);
  const LaunchRequest request = exec.launch_request();
  EXPECT_EQ(request.queue_len, c.waves - done);  // Queued slots are schedulable
}

TEST(Execute, AutomaticModeFollowsThePlanShape) {
  const Case chain = make_case(generate::chain(64));
  const Case single = make_case(64, {});
  Tickets t(64);
  for (const Case* c : {&chain, &single}) {
    TicketWave wave(t, *c);
    Exec exec(Space(), c->plan, c->graph);
    const RunReport r = exec.run(wave);
    EXPECT_FALSE(r.reason.empty());
    if (c == &single) {
      EXPECT_EQ(r.mode, ExecuteMode::Layered) << r.reason;
    } else if (Space().concurrency() == 1) {
      EXPECT_EQ(r.mode, ExecuteMode::Persistent) << r.reason;
    } else {
      EXPECT_EQ(r.mode, ExecuteMode::Dataflow) << r.reason;
    }
  }
  EXPECT_EQ(parse_execute_mode("dataflow"), ExecuteMode::Dataflow);
  EXPECT_STREQ(execute_mode_name(ExecuteMode::Automatic), "auto");
  expect_plan_error(ErrorKind::InvalidArgument, [] { parse_execute_mode("barrier"); });
}

TEST(Execute, AutomaticChoiceIsMadeOncePerFunctorTypeAndTeamSize) {
  // run() keeps its automatic choice for the next run of the same functor
  // type and team size; another functor type or team size chooses afresh,
  // as a new executor would.
  const Case chain = make_case(generate::chain(64));
  Tickets t(64);
  TicketWave wave(t, chain);
  const TeamTicketWave team_wave{wave};
  Exec exec(Space(), chain.plan, chain.graph);
  const RunReport first = exec.run(wave);
  exec.reset();
  const RunReport again = exec.run(wave);
  EXPECT_EQ(again.mode, first.mode);
  EXPECT_EQ(again.reason, first.reason);
  exec.reset();
  const RunReport team = exec.run(team_wave);
  Exec fresh(Space(), chain.plan, chain.graph);
  const RunReport team_fresh = fresh.run(team_wave);
  EXPECT_EQ(team.mode, team_fresh.mode);
  EXPECT_EQ(team.reason, team_fresh.reason);
  RunOptions one_thread_teams;
  one_thread_teams.team_size = 1;
  exec.reset();
  fresh.reset();
  EXPECT_EQ(exec.run(wave, one_thread_teams).reason, fresh.run(wave, one_thread_teams).reason);
}

// Thread-level waves in the persistent and layered modes run one per thread;
// on a device, with no team size requested, the teams widen so that the
// widest group needs about one team per multiprocessor (the persistent mode:
// fewer participants at the device-wide barrier; the layered mode: fewer
// teams than a multiprocessor could keep resident).
TEST(Execute, ThreadLevelTeamsSpreadTheWidestGroupOverTheMultiprocessors) {
  using execute::detail::lane_team_size;
  EXPECT_EQ(lane_team_size(50000, 132), 256);  // 379 per multiprocessor: capped
  EXPECT_EQ(lane_team_size(7500, 132), 64);    // 57 -> two warps
  EXPECT_EQ(lane_team_size(10, 132), 32);      // a warp at least
  EXPECT_EQ(lane_team_size(0, 132), 32);
  EXPECT_EQ(lane_team_size(std::uint64_t(1) << 40, 0), 256);  // no count known: 1
  // 3 groups of 10,000: on a device of 132 multiprocessors, teams of 96
  const Case c = make_case(generate::layered(10000, 3, 2, 0, true, 7));
  // The persistent league, and the layered mode's launch of each group.
  for (const ExecuteMode mode : {ExecuteMode::Persistent, ExecuteMode::Layered}) {
    SCOPED_TRACE(execute_mode_name(mode));
    Tickets t(c.waves);
    TicketWave wave(t, c);
    Exec exec(Space(), c.plan, c.graph);
    RunOptions options;
    options.mode = mode;
    const RunReport r = exec.run(wave, options);
    EXPECT_TRUE(r.complete);
    EXPECT_TRUE(ran_once_in_order(c, outcome_of(t), 0));
    const DeviceLimits limits = DeviceLimits::query(Space());
    if (is_host_backend_v<Space>) {
      EXPECT_EQ(r.team_size, 1);
    } else {
      EXPECT_EQ(r.team_size,
                std::min<int>(lane_team_size(10000, limits.multiprocessor_count),
                              static_cast<int>(limits.max_team_size)));
      EXPECT_LE(std::uint64_t(r.league_size) * std::uint64_t(r.team_size), 10000u + 255u);
    }
  }
}

TEST(Execute, EmptyPlanIsCompleteAtOnce) {
  const Case c = make_case(0, {});
  Tickets t(1);
  TicketWave wave(t, c);
  Exec exec(Space(), c.plan, c.graph);
  EXPECT_TRUE(exec.complete());
  for (const ExecuteMode mode : kModes) {
    RunOptions options;
    options.mode = mode;
    const RunReport r = exec.run(wave, options);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.waves_run, 0u);
  }
}

/// Every team adds to round g's counter, passes the barrier, and checks that
/// every team's addition is visible; the completion function counts rounds.
/// With `split`, the barrier's two halves (arrive, then wait), and between
/// them each thread reads `constant` (what no participant writes).
struct BarrierRounds {
  DeviceBarrier<Mem> barrier;
  U64View counts, completions, errors;
  std::uint64_t league = 1, rounds = 1;
  bool split = false;
  U64View constant;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for (std::uint64_t g = 0; g < rounds; ++g) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_fetch_add(&counts(g), std::uint64_t(1)); });
      std::uint64_t* done = &completions(0);
      bool passed = false;
      if (split) {
        const auto arrival = barrier.arrive(team, league, [&]() { *done += 1; });
        if (constant(g) != g * 7) Kokkos::atomic_fetch_add(&errors(0), std::uint64_t(1));
        passed = barrier.wait(team, arrival);
      } else {
        passed = barrier.arrive_and_wait(team, league, [&]() { *done += 1; });
      }
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        if (!passed || volatile_load(&counts(g)) != league || volatile_load(done) < g + 1)
          Kokkos::atomic_fetch_add(&errors(0), std::uint64_t(1));
      });
    }
  }
};

TEST(DeviceBarrier, EveryRoundSeesEveryTeamsWrites) {
  Space space;
  U64View constant("constant", 200);
  {
    const auto h = Kokkos::create_mirror_view(constant);
    for (std::uint64_t g = 0; g < 200; ++g) h(g) = g * 7;
    Kokkos::deep_copy(constant, h);
  }
  for (const bool split : {false, true}) {
    SCOPED_TRACE(split ? "arrive, then wait" : "arrive_and_wait");
    BarrierRounds k{DeviceBarrier<Mem>("test barrier"), U64View("counts", 200),
                    U64View("completions", 1), U64View("errors", 1), 1, 200, split, constant};
    const auto limits = DeviceLimits::query(space);
    k.league = resident_teams(space, k, 1, limits);
    if (k.league > 64) k.league = 64;
    k.barrier.reset(space);
    Kokkos::parallel_for(Kokkos::TeamPolicy<Space>(space, static_cast<int>(k.league), 1), k);
    space.fence();
    const auto errors = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.errors);
    const auto completions = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.completions);
    EXPECT_EQ(errors(0), 0u);
    EXPECT_EQ(completions(0), 200u);
  }
}

}  // namespace
}  // namespace strata
