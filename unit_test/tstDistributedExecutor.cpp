// The distributed executor (src/strata/distributed/distributed_executor.hpp)
// on 1..4 MPI ranks, TEST_EXECSPACE per rank. Each wave hashes its own id with
// the values of its predecessors (in the global in-edge order); a remote
// predecessor's value arrives through the message hook. Every rank checks its
// waves bitwise against a plain host reference (a topological loop over the
// whole graph) in every mode and both readinesses; then a fault, the
// wall-time drain and resume, options that differ between ranks, a team-level
// functor, and that a wave under Readiness::Wave does not wait for a message
// only another wave of its level reads.
#include <cstdint>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>

#include <strata/distributed/distributed_executor.hpp>
#include <strata/distributed/local_graph.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/strata.hpp>

#include "test_backend.hpp"

namespace strata::test {
namespace {

using Comm = distributed::Communicator;
using Space = TEST_EXECSPACE;
using Memory = Space::memory_space;
using Ordinal = std::uint32_t;
using U64View = Kokkos::View<std::uint64_t*, Memory>;
using OrdView = Kokkos::View<Ordinal*, Memory>;
using distributed::Readiness;
constexpr Readiness readinesses[] = {Readiness::Segment, Readiness::Wave};
const char* readiness_name(Readiness r) { return r == Readiness::Wave ? "wave" : "segment"; }

KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xbf58476d1ce4e5b9ull;
}

/// The whole graph's in-edges (every rank builds the same, in input order).
struct InEdges {
  std::vector<std::uint64_t> row, pred;
};
InEdges in_edges(std::uint64_t waves, const std::vector<WaveDependency<Ordinal>>& deps) {
  InEdges in;
  in.row.assign(waves + 1, 0);
  for (const auto& d : deps) ++in.row[d.after + 1];
  for (std::uint64_t w = 0; w < waves; ++w) in.row[w + 1] += in.row[w];
  in.pred.resize(deps.size());
  std::vector<std::uint64_t> at(in.row.begin(), in.row.end() - 1);
  for (const auto& d : deps) in.pred[at[d.after]++] = d.before;
  return in;
}

/// The host reference: a Kahn loop over the whole graph.
std::vector<std::uint64_t> reference_values(std::uint64_t waves, const InEdges& in,
                                            const std::vector<WaveDependency<Ordinal>>& deps) {
  std::vector<std::uint64_t> value(waves, 0), remaining(waves, 0);
  std::vector<std::vector<std::uint64_t>> out(waves);
  for (const auto& d : deps) {
    ++remaining[d.after];
    out[d.before].push_back(d.after);
  }
  std::vector<std::uint64_t> ready;
  for (std::uint64_t w = 0; w < waves; ++w)
    if (remaining[w] == 0) ready.push_back(w);
  while (!ready.empty()) {
    const std::uint64_t w = ready.back();
    ready.pop_back();
    std::uint64_t h = mix(0x1234, w);
    for (std::uint64_t e = in.row[w]; e < in.row[w + 1]; ++e) h = mix(h, value[in.pred[e]]);
    value[w] = h;
    for (auto t : out[w])
      if (--remaining[t] == 0) ready.push_back(t);
  }
  return value;
}

template <class T>
Kokkos::View<T*, Memory> to_device(const std::vector<std::uint64_t>& v, const char* label) {
  Kokkos::View<T*, Memory> d(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = T(v[i]);
  Kokkos::deep_copy(d, h);
  return d;
}

/// Thread-level wave: value(w) = hash of w and its predecessors' values.
/// `fault` (a wave id, or ~0) returns Faulted instead.
struct HashWave {
  U64View value;
  U64View row, pred;
  std::uint64_t fault = ~std::uint64_t(0);
  KOKKOS_FUNCTION TaskState operator()(const Ordinal w) const {
    if (w == fault) return TaskState::Faulted;
    std::uint64_t h = mix(0x1234, w);
    for (std::uint64_t e = row(w); e < row(w + 1); ++e) h = mix(h, value(pred(e)));
    value(w) = h;
    return TaskState::Completed;
  }
};

/// The same, team-level (one thread of the team writes).
struct TeamHashWave {
  HashWave wave;
  KOKKOS_FUNCTION TaskState operator()(const Kokkos::TeamPolicy<Space>::member_type& team,
                                       const Ordinal w) const {
    TaskState state = TaskState::Completed;
    Kokkos::single(Kokkos::PerTeam(team), [&](TaskState& s) { s = wave(w); }, state);
    return state;
  }
};

/// A predecessor's value travels in its 8-byte slot.
struct ValueMessages {
  U64View value;
  KOKKOS_FUNCTION void pack(Ordinal before, Ordinal, char* slot) const {
    const std::uint64_t v = value(before);
    for (int b = 0; b < 8; ++b) slot[b] = char((v >> (8 * b)) & 0xff);
  }
  KOKKOS_FUNCTION void unpack(Ordinal before, Ordinal, const char* slot) const {
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= std::uint64_t(std::uint8_t(slot[b])) << (8 * b);
    value(before) = v;
  }
};

struct Case {
  std::uint64_t waves = 0;
  std::vector<WaveDependency<Ordinal>> deps;
  InEdges in;
  std::vector<std::uint64_t> reference;
  distributed::DistributedPlan<Space, Ordinal> plan;
  DependencyGraph<Space, Ordinal, std::uint32_t> graph;
  U64View value, row, pred;
};

/// Plans `g` over the ranks (each rank passes a contiguous part of the list).
Case make_case(const Comm& comm, const generate::GeneratedGraph& g,
               const distributed::DistributedOptions& options = {}) {
  Case c;
  c.waves = g.wave_count;
  c.deps = generate::narrowed<Ordinal>(g);
  c.in = in_edges(c.waves, c.deps);
  c.reference = reference_values(c.waves, c.in, c.deps);
  const std::size_t n = c.deps.size(), r = std::size_t(comm.rank()), P = std::size_t(comm.size());
  const std::vector<WaveDependency<Ordinal>> mine(c.deps.begin() + std::ptrdiff_t(n * r / P),
                                                  c.deps.begin() + std::ptrdiff_t(n * (r + 1) / P));
  c.plan = distributed::plan_barriers_distributed(Space(), comm, c.waves, mine.data(), mine.size(),
                                                  options);
  c.graph = distributed::local_graph(Space(), comm, c.plan, mine.data(), mine.size());
  c.value = U64View("values", c.waves);
  c.row = to_device<std::uint64_t>(c.in.row, "in rows");
  c.pred = to_device<std::uint64_t>(c.in.pred, "in preds");
  return c;
}

/// Whether this rank's waves hold the reference values (true on every rank).
bool own_values_match(const Comm& comm, const Case& c) {
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.value);
  std::uint64_t bad = 0;
  const std::uint64_t lo = c.plan.first_wave, n = c.plan.shard.wave_count_of(comm.rank());
  for (std::uint64_t w = lo; w < lo + n; ++w) bad += v(w) != c.reference[w];
  return comm.sum(bad) == 0;
}

std::vector<generate::GeneratedGraph> graphs() {
  std::vector<generate::GeneratedGraph> out;
  out.push_back(generate::chain(40));
  out.push_back(generate::sweep2d(9, 7));
  out.push_back(generate::sweep3d(5, 4, 3));
  out.push_back(generate::layered(8, 6, 3, 20, true, 11));
  out.push_back(generate::fanout(30));
  out.push_back(generate::fanin(30));
  for (std::uint64_t seed = 1; seed <= 6; ++seed)
    out.push_back(generate::random_dag(60 + 10 * seed, 200 + 40 * seed, seed));
  out.push_back(generate::random_dag(1, 0, 7));
  out.push_back(generate::random_dag(5, 0, 8));  // no edges: every wave alone
  return out;
}

TEST(DistributedExecutor, BitwiseEqualToTheHostReferenceInEveryMode) {
  const Comm comm;
  for (const auto& g : graphs())
  for (const Readiness readiness : readinesses) {
    Case c = make_case(comm, g);
    distributed::ExchangeOptions x;
    x.message_bytes = 8;
    x.readiness = readiness;
    distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
    for (ExecuteMode mode : {ExecuteMode::Automatic, ExecuteMode::Layered,
                             ExecuteMode::Persistent, ExecuteMode::Dataflow}) {
      Kokkos::deep_copy(c.value, std::uint64_t(0));
      executor.reset();
      RunOptions o;
      o.mode = mode;
      const auto report = executor.run(HashWave{c.value, c.row, c.pred}, ValueMessages{c.value}, o);
      EXPECT_TRUE(report.complete) << g.description;
      EXPECT_FALSE(report.drained) << g.description;
      EXPECT_EQ(report.waves_run, c.waves) << g.description;
      EXPECT_EQ(report.bytes_sent, 8 * report.cross_rank_dependencies) << g.description;
      if (comm.size() == 1) EXPECT_EQ(report.messages_sent, 0u);
      // The rank's time split: wave launches and waiting are parts of it.
      if (c.plan.shard.wave_count_of(comm.rank()) != 0)
        EXPECT_GT(report.wave_seconds, 0.0) << g.description;
      EXPECT_GE(report.idle_seconds, 0.0) << g.description;
      EXPECT_LE(report.wave_seconds + report.idle_seconds, report.elapsed_seconds * (1 + 1e-9))
          << g.description;
      EXPECT_TRUE(own_values_match(comm, c))
          << g.description << " in " << execute_mode_name(mode) << ", " << readiness_name(readiness);
    }
  }
}

TEST(DistributedExecutor, TeamLevelWavesAndAggregatedMessages) {
  const Comm comm;
  for (std::uint64_t per_message : {0u, 1u, 3u})
  for (const Readiness readiness : readinesses) {
    Case c = make_case(comm, generate::sweep3d(6, 5, 4));
    distributed::ExchangeOptions x;
    x.message_bytes = 8;
    x.output_levels_per_message = per_message;
    x.readiness = readiness;
    distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
    const auto report =
        executor.run(TeamHashWave{HashWave{c.value, c.row, c.pred}}, ValueMessages{c.value});
    EXPECT_TRUE(report.complete);
    EXPECT_TRUE(own_values_match(comm, c))
        << per_message << " output levels per message, " << readiness_name(readiness);
  }
}

TEST(DistributedExecutor, FixedPartitionFollowsTheCaller) {
  const Comm comm;
  const auto g = generate::sweep2d(8, 8);
  distributed::DistributedOptions options;
  options.wave_begin.assign(std::size_t(comm.size()) + 1, 0);
  for (int r = 0; r <= comm.size(); ++r)  // uneven on purpose: rank 0 gets the rest
    options.wave_begin[std::size_t(r)] =
        r == 0 ? 0 : g.wave_count - (g.wave_count / 2) * std::uint64_t(comm.size() - r) / std::uint64_t(comm.size());
  Case c = make_case(comm, g, options);
  EXPECT_EQ(c.plan.first_wave, options.wave_begin[std::size_t(comm.rank())]);
  distributed::ExchangeOptions x;
  x.message_bytes = 8;
  distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
  EXPECT_TRUE(executor.run(HashWave{c.value, c.row, c.pred}, ValueMessages{c.value}).complete);
  EXPECT_TRUE(own_values_match(comm, c));
  // A malformed partition is InvalidArgument on every rank.
  distributed::DistributedOptions bad;
  bad.wave_begin = {0, 3};
  bool invalid = false;
  try {
    (void)make_case(comm, g, bad);
  } catch (const PlanError& e) {
    invalid = e.kind() == ErrorKind::InvalidArgument;
  }
  EXPECT_EQ(comm.min(invalid ? 1 : 0), 1);
}

TEST(DistributedExecutor, AFaultStopsEveryRankWithTheGlobalWave) {
  const Comm comm;
  for (const Readiness readiness : readinesses) {
  Case c = make_case(comm, generate::sweep2d(10, 10));
  const std::uint64_t faulted = 57;  // (7, 5): mid-sweep, on some rank
  distributed::ExchangeOptions x;
  x.message_bytes = 8;
  x.readiness = readiness;
  distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
  HashWave wave{c.value, c.row, c.pred, faulted};
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second run throws the same error
    std::uint64_t seen = 0;
    try {
      (void)executor.run(wave, ValueMessages{c.value});
    } catch (const PlanError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::WaveFaulted);
      seen = e.fields().wave;
    }
    EXPECT_EQ(comm.min(seen), faulted);
    EXPECT_EQ(comm.max(seen), faulted);
  }
  executor.reset();
  Kokkos::deep_copy(c.value, std::uint64_t(0));
  wave.fault = ~std::uint64_t(0);
  EXPECT_TRUE(executor.run(wave, ValueMessages{c.value}).complete);
  EXPECT_TRUE(own_values_match(comm, c)) << readiness_name(readiness);
  }
}

/// Every third wave yields on its first execution; `endless` requeues forever.
struct YieldOnceWave {
  HashWave wave;
  U64View tries;
  std::uint64_t endless = ~std::uint64_t(0);
  KOKKOS_FUNCTION TaskState operator()(const Ordinal w) const {
    if (w == endless) return TaskState::Requeued;
    if (w % 3 == 0 && tries(w)++ == 0) return TaskState::Yielded;
    return wave(w);
  }
};

TEST(DistributedExecutor, AYieldedWaveRunsAgainAndAnEndlessOneIsRequeueLimit) {
  const Comm comm;
  for (const Readiness readiness : readinesses) {
    Case c = make_case(comm, generate::sweep2d(9, 8));
    distributed::ExchangeOptions x;
    x.message_bytes = 8;
    x.readiness = readiness;
    distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
    const U64View tries("tries", c.waves);
    RunOptions o;
    o.mode = ExecuteMode::Layered;
    const auto report =
        executor.run(YieldOnceWave{HashWave{c.value, c.row, c.pred}, tries}, ValueMessages{c.value}, o);
    EXPECT_TRUE(report.complete) << readiness_name(readiness);
    EXPECT_EQ(report.requeues, (c.waves + 2) / 3) << readiness_name(readiness);
    EXPECT_TRUE(own_values_match(comm, c)) << readiness_name(readiness);
    executor.reset();
    const std::uint64_t endless = 40;
    std::uint64_t seen = 0;
    try {
      (void)executor.run(YieldOnceWave{HashWave{c.value, c.row, c.pred}, tries, endless},
                         ValueMessages{c.value}, o);
    } catch (const PlanError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::RequeueLimit) << readiness_name(readiness);
      seen = e.fields().wave;
    }
    EXPECT_EQ(comm.min(seen), endless) << readiness_name(readiness);
    EXPECT_EQ(comm.max(seen), endless) << readiness_name(readiness);
  }
}

TEST(DistributedExecutor, WallTimeDrainsEveryRankAndRunResumes) {
  const Comm comm;
  for (const Readiness readiness : readinesses) {
  Case c = make_case(comm, generate::sweep2d(12, 9));
  LaunchConfig config;
  config.max_wall_time = std::chrono::nanoseconds(1);  // every run stops after its first segment or batch
  distributed::ExchangeOptions x;
  x.message_bytes = 8;
  x.readiness = readiness;
  distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, config, x);
  int runs = 0;
  std::uint64_t waves = 0;
  for (;;) {
    const auto report = executor.run(HashWave{c.value, c.row, c.pred}, ValueMessages{c.value});
    ++runs;
    waves += report.waves_run;
    EXPECT_EQ(comm.min(report.drained ? 1 : 0), comm.max(report.drained ? 1 : 0));
    EXPECT_EQ(report.drained, !report.complete);
    EXPECT_GT(report.waves_run, 0u);
    if (report.complete || runs > 1000) break;
  }
  EXPECT_EQ(waves, c.waves);
  EXPECT_GT(runs, 1);
  EXPECT_TRUE(own_values_match(comm, c));
  // After completion run() is a no-op.
  const auto again = executor.run(HashWave{c.value, c.row, c.pred}, ValueMessages{c.value});
  EXPECT_TRUE(again.complete);
  EXPECT_EQ(again.waves_run, 0u);
  }
}

// A wave whose own input is in must not wait for a message that only another
// wave of its level reads. Rank 0: A (0) -> C (1), C sleeping; rank 1: P (2)
// -> Q (3) -> X (4), A -> X, C -> Y (5). X and Y share level 2, so under
// Readiness::Segment X waits for C's message; under Readiness::Wave it runs
// while C sleeps. X records the value of C that its rank holds when it runs.
// Host backends only (the wave sleeps).
#if defined(STRATA_TEST_BACKEND_SERIAL) || defined(STRATA_TEST_BACKEND_OPENMP) || \
    defined(STRATA_TEST_BACKEND_THREADS)
struct LateInputWave {
  HashWave wave;
  U64View seen;
  TaskState operator()(const Ordinal w) const {
    if (w == 1) std::this_thread::sleep_for(std::chrono::milliseconds(400));
    if (w == 4) seen(0) = wave.value(1);
    return wave(w);
  }
};

TEST(DistributedExecutor, AWaveDoesNotWaitForAnotherWavesMessage) {
  const Comm comm;
  if (comm.size() == 1) GTEST_SKIP() << "needs two ranks";
  {
    generate::GeneratedGraph g;
    g.wave_count = 6;
    g.dependencies = {{0, 1}, {0, 4}, {1, 5}, {2, 3}, {3, 4}};
    g.description = "late input";
    distributed::DistributedOptions options;
    options.wave_begin.assign(std::size_t(comm.size()) + 1, 6);
    options.wave_begin[0] = 0;
    options.wave_begin[1] = 2;
    for (const Readiness readiness : readinesses) {
      Case c = make_case(comm, g, options);
      distributed::ExchangeOptions x;
      x.message_bytes = 8;
      x.readiness = readiness;
      distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
      const U64View seen("seen", 1);
      const auto report =
          executor.run(LateInputWave{HashWave{c.value, c.row, c.pred}, seen}, ValueMessages{c.value});
      EXPECT_TRUE(report.complete);
      EXPECT_TRUE(own_values_match(comm, c)) << readiness_name(readiness);
      if (comm.rank() == 1) {
        const auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), seen);
        // Segment: C's message was in before X started; Wave: X ran before C did.
        EXPECT_EQ(s(0), readiness == Readiness::Wave ? 0 : c.reference[1]) << readiness_name(readiness);
      }
    }
  }
}
#endif

TEST(DistributedExecutor, OptionsThatDifferBetweenRanksAreInvalidArgument) {
  const Comm comm;
  if (comm.size() == 1) GTEST_SKIP() << "needs two ranks";
  Case c = make_case(comm, generate::chain(20));
  bool invalid = false;
  distributed::ExchangeOptions x;
  x.message_bytes = comm.rank() == 1 ? 16 : 8;
  try {
    distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
  } catch (const PlanError& e) {
    invalid = e.kind() == ErrorKind::InvalidArgument &&
              std::string(e.what()).find("message_bytes") != std::string::npos;
  }
  EXPECT_EQ(comm.min(invalid ? 1 : 0), 1);
  x.message_bytes = 8;
  distributed::Executor<Space, Ordinal> executor(Space(), comm, c.plan, c.graph, {}, x);
  RunOptions o;
  o.mode = comm.rank() == 0 ? ExecuteMode::Layered : ExecuteMode::Dataflow;
  invalid = false;
  try {
    (void)executor.run(HashWave{c.value, c.row, c.pred}, ValueMessages{c.value}, o);
  } catch (const PlanError& e) {
    invalid = e.kind() == ErrorKind::InvalidArgument &&
              std::string(e.what()).find("RunOptions::mode") != std::string::npos;
  }
  EXPECT_EQ(comm.min(invalid ? 1 : 0), 1);
  // The executor is still usable with agreeing options.
  EXPECT_TRUE(executor.run(HashWave{c.value, c.row, c.pred}, ValueMessages{c.value}).complete);
  EXPECT_TRUE(own_values_match(comm, c));
}

}  // namespace
}  // namespace strata::test
