// Distributed planning (src/strata/distributed) on 1..4 MPI ranks, TEST_EXECSPACE
// per rank: the plan gathered on rank 0 equals plan_barriers and the host
// reference on the differential corpus; errors are the same on every rank
// (checked by gathering every rank's kind and fields); sharding under a
// budget; ranks with no waves; the parallel edge-list reader against
// io::read_edge_list. Its own main: MPI, then Kokkos (tstDistributedMain.cpp).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>

#include <strata/distributed/gather_plan.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/distributed/read_edge_list_distributed.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/strata.hpp>

#include "differential_corpus.hpp"
#include "test_helpers.hpp"

namespace strata::test {
namespace {

using Comm = distributed::Communicator;

/// Splits n items into `ranks` contiguous parts of uneven sizes (some empty
/// when `skew`): the global input order is preserved.
std::vector<std::size_t> split(std::size_t n, int ranks, std::uint64_t skew) {
  std::vector<std::size_t> begin(std::size_t(ranks) + 1, 0);
  SplitMix64 rng(skew * 31 + 7);
  std::vector<std::uint64_t> w(static_cast<std::size_t>(ranks));
  std::uint64_t total = 0;
  for (auto& x : w) total += (x = skew == 0 ? 1 : rng.below(4));  // 0: an empty part
  if (total == 0) w.back() = total = 1;
  std::uint64_t acc = 0;
  for (int r = 0; r < ranks; ++r) {
    acc += w[std::size_t(r)];
    begin[std::size_t(r) + 1] = std::size_t(n * acc / total);
  }
  return begin;
}

template <class T>
std::vector<T> local_part(const std::vector<T>& all, const Comm& comm, std::uint64_t skew) {
  const auto b = split(all.size(), comm.size(), skew);
  return std::vector<T>(all.begin() + std::ptrdiff_t(b[std::size_t(comm.rank())]),
                        all.begin() + std::ptrdiff_t(b[std::size_t(comm.rank()) + 1]));
}

/// Every rank's value, on every rank.
std::vector<std::uint64_t> all_gather(const Comm& comm, std::uint64_t v) {
  std::vector<std::uint64_t> out(std::size_t(comm.size()));
  MPI_Allgather(&v, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T, comm.comm());
  return out;
}

/// True on every rank iff true on every rank.
bool everywhere(const Comm& comm, bool ok) { return comm.min(ok ? 1 : 0) == 1; }

/// An error's identity: kind, its fields and a hash of its text.
std::vector<std::uint64_t> identity_of(const PlanError& e) {
  const auto f = e.fields();
  std::uint64_t h = 1469598103934665603ull;
  for (char c : f.text) h = (h ^ std::uint8_t(c)) * 1099511628211ull;
  return {std::uint64_t(f.kind), f.wave_count, f.before, f.after, f.wave, f.unscheduled_waves,
          f.line, f.needed_ranks, f.available_ranks, f.budget_bytes, h};
}

/// Plans `deps` split over the ranks: returns the error identity (empty when
/// planned) after checking it is identical on every rank; on success checks
/// the gathered plan against the reference and plan_barriers on rank 0, and
/// every rank's levels and group sizes.
template <class Ordinal>
std::vector<std::uint64_t> plan_everywhere(const Comm& comm, std::uint64_t waves,
                                           const std::vector<WaveDependency<Ordinal>>& all,
                                           std::uint64_t skew, std::uint64_t budget = 0,
                                           const char* what = "") {
  const auto mine = local_part(all, comm, skew);
  distributed::DistributedOptions options;
  options.rank_budget_bytes = budget;
  std::vector<std::uint64_t> id;
  try {
    const auto local = distributed::plan_barriers_distributed(TEST_EXECSPACE(), comm, waves,
                                                              mine.data(), mine.size(), options);
    const auto plan = distributed::gather_plan(TEST_EXECSPACE(), comm, local);
    const ReferencePlan ref = reference_kahn(waves, all.data(), all.size());
    if (comm.rank() == 0) {
      EXPECT_TRUE(same_plan(plan, ref)) << what;
      const auto single = plan_barriers(TEST_EXECSPACE(), waves, all.data(), all.size());
      const auto a = plan.host_mirror(), b = single.host_mirror();
      bool identical = a.group_count() == b.group_count() && a.wave_count() == b.wave_count();
      for (std::size_t i = 0; identical && i < a.wave_count(); ++i)
        identical = a.waves(i) == b.waves(i) && a.level(i) == b.level(i);
      for (std::size_t g = 0; identical && g <= a.group_count(); ++g)
        identical = a.group_offsets(g) == b.group_offsets(g);
      EXPECT_TRUE(identical) << what << ": gathered plan differs from plan_barriers";
    }
    // Every rank: its levels and the global group sizes.
    EXPECT_EQ(local.group_count(), ref.group_count()) << what;
    for (std::size_t g = 0; g < ref.group_count() && g < local.group_count(); ++g)
      EXPECT_EQ(local.group_sizes[g], ref.group_offsets[g + 1] - ref.group_offsets[g]) << what;
    std::vector<std::uint64_t> ref_level(waves);
    for (std::size_t g = 0; g < ref.group_count(); ++g)
      for (std::size_t i = ref.group_offsets[g]; i < ref.group_offsets[g + 1]; ++i)
        ref_level[ref.waves[i]] = g;
    const auto lv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.level);
    for (std::size_t i = 0; i < lv.extent(0); ++i)
      EXPECT_EQ(std::uint64_t(lv(i)), ref_level[local.first_wave + i]) << what;
  } catch (const PlanError& e) {
    id = identity_of(e);
  }
  // The same outcome on every rank, field for field.
  const auto count = all_gather(comm, id.size());
  for (auto c : count) EXPECT_EQ(c, id.size()) << what << ": ranks disagree on failing";
  if (!everywhere(comm, count.front() == id.size())) return id;
  for (std::size_t k = 0; k < id.size(); ++k) {
    const auto values = all_gather(comm, id[k]);
    for (auto v : values) EXPECT_EQ(v, id[k]) << what << ": field " << k << " differs by rank";
  }
  return id;
}

TEST(Distributed, MatchesSingleProcessOnTheDifferentialCorpus) {
  const Comm comm;
  std::uint64_t planned = 0, errors = 0;
  for (std::uint64_t index = 0; index < 240; ++index) {
    const GeneratedGraph g = corpus_graph(index);
    const auto deps = generate::narrowed<std::uint32_t>(g);
    const std::string what = "graph " + std::to_string(index) + " (" + g.description + ")";
    const auto id = plan_everywhere(comm, g.wave_count, deps, index % 3, 0, what.c_str());
    // The error equals the single-process one (kind and fields).
    try {
      (void)reference_kahn(g.wave_count, deps);
      EXPECT_TRUE(id.empty()) << what;
      ++planned;
    } catch (const PlanError& e) {
      EXPECT_EQ(id, identity_of(e)) << what << ": " << e.what();
      ++errors;
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GE(planned, 180u);
  EXPECT_GE(errors, 20u);
}

TEST(Distributed, SixtyFourBitOrdinalsAndLargerGraphs) {
  const Comm comm;
  auto g = generate::sweep3d(12, 9, 7);
  generate::shuffle_ids(g, 3);
  EXPECT_TRUE(plan_everywhere(comm, g.wave_count, g.dependencies, 1).empty());
  const auto r = generate::random_dag(3000, 12000, 9);
  EXPECT_TRUE(plan_everywhere(comm, r.wave_count, generate::narrowed<std::uint32_t>(r), 2).empty());
}

TEST(Distributed, BadDependencyOnlyInTheLastRanksPartIsTheSameErrorEverywhere) {
  const Comm comm;
  auto g = generate::random_dag(200, 800, 4);
  auto deps = generate::narrowed<std::uint32_t>(g);
  // The last rank's part (skew 0: equal parts) ends with an invalid wave, then a self edge.
  deps.push_back({3, 250});
  deps.push_back({7, 7});
  const auto id = plan_everywhere(comm, g.wave_count, deps, 0);
  EXPECT_EQ(id, identity_of(PlanError::invalid_wave(200, 3, 250)));
  ASSERT_FALSE(id.empty());
  // Two offenders on different ranks: the first in global order wins.
  auto two = generate::narrowed<std::uint32_t>(g);
  two.insert(two.begin() + 5, {9, 9});       // rank 0's part
  two.push_back({1, 999});                   // the last rank's part
  EXPECT_EQ(plan_everywhere(comm, g.wave_count, two, 0),
            identity_of(PlanError::self_dependency(9)));
}

TEST(Distributed, CycleIsTheSameErrorEverywhere) {
  const Comm comm;
  auto deps = generate::narrowed<std::uint32_t>(generate::chain(50));
  deps.push_back({49, 20});  // 30 waves on a cycle
  EXPECT_EQ(plan_everywhere(comm, 50, deps, 2), identity_of(PlanError::cycle(30)));
}

TEST(Distributed, BudgetTooSmallForOneRankForcesSharding) {
  const Comm comm;
  const auto g = generate::sweep3d(10, 10, 10);
  const auto deps = generate::narrowed<std::uint32_t>(g);
  const auto rates = distributed::shard_rates<std::uint32_t, DefaultOffset>();
  const std::uint64_t total = rates.fixed + rates.per_wave * g.wave_count +
                              rates.per_dependency * deps.size();
  // A budget of about a third of the total needs 3 or 4 ranks.
  const std::uint64_t budget = total / 3;
  const std::uint64_t needed =
      distributed::ranks_needed(rates, g.wave_count, deps.size(), 3, budget);
  ASSERT_GT(needed, 1u);
  ASSERT_LE(needed, 4u);
  const auto id = plan_everywhere(comm, g.wave_count, deps, 1, budget);
  if (std::uint64_t(comm.size()) >= needed) {
    EXPECT_TRUE(id.empty());
  } else {
    EXPECT_EQ(id, identity_of(PlanError::insufficient_ranks(needed, comm.size(), budget)));
  }
  // A budget below one wave's bytes is MemoryConstrained on every rank.
  const auto tiny = plan_everywhere(comm, g.wave_count, deps, 1, 16);
  ASSERT_FALSE(tiny.empty());
  EXPECT_EQ(tiny.front(), std::uint64_t(ErrorKind::MemoryConstrained));
}

TEST(Distributed, BudgetIsCheckedFromTheCountsBeforeAnyPerWaveArray) {
  const Comm comm;
  const std::vector<WaveDependency<std::uint64_t>> none;
  // 2^40 waves: 8 TiB per rank of out-degrees alone, had anything been allocated.
  const auto id = plan_everywhere(comm, std::uint64_t(1) << 40, none, 0, std::uint64_t(1) << 30);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(id.front(), std::uint64_t(ErrorKind::InsufficientRanks));
  // 2^63 waves: more ranks than MPI can run at any budget, so no rank count
  // helps: MemoryConstrained, as strata plan answers it.
  const auto huge = plan_everywhere(comm, std::uint64_t(1) << 63, none, 0, std::uint64_t(1) << 30);
  ASSERT_FALSE(huge.empty());
  EXPECT_EQ(huge.front(), std::uint64_t(ErrorKind::MemoryConstrained));
}

TEST(Distributed, ShardPlanPartitionIsBalancedAndWithinBudget) {
  const Comm comm;
  const auto g = generate::fanout(400);  // one heavy wave
  const auto deps = generate::narrowed<std::uint32_t>(g);
  const auto mine = local_part(deps, comm, 0);
  const auto view = Kokkos::View<const WaveDependency<std::uint32_t>*, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(mine.data(), mine.size());
  const auto d = distributed::distribute_dependencies(Kokkos::DefaultHostExecutionSpace(), comm,
                                               g.wave_count, view, 0);
  const auto& b = d.shard.wave_begin;
  ASSERT_EQ(b.size(), std::size_t(comm.size()) + 1);
  EXPECT_EQ(b.front(), 0u);
  EXPECT_EQ(b.back(), g.wave_count);
  for (std::size_t r = 0; r + 1 < b.size(); ++r) EXPECT_LE(b[r], b[r + 1]);
  // Every owned dependency's `before` is owned; the dependency counts add up.
  const auto owned = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.owned);
  for (std::size_t i = 0; i < owned.extent(0); ++i) {
    EXPECT_GE(owned(i).before, b[std::size_t(comm.rank())]);
    EXPECT_LT(owned(i).before, b[std::size_t(comm.rank()) + 1]);
  }
  EXPECT_EQ(comm.sum(std::uint64_t(owned.extent(0))), deps.size());
  // A rank's bytes stay below W / P + 1 + the heaviest wave.
  const auto& r = d.shard.rates;
  const std::uint64_t mine_bytes = r.per_wave * d.shard.wave_count_of(comm.rank()) +
                                   r.per_dependency * owned.extent(0);
  EXPECT_LT(mine_bytes, d.shard.total_weight / std::uint64_t(comm.size()) + 1 + r.per_wave +
                            r.per_dependency * 399);
}

TEST(Distributed, RanksWithNoWavesOrNoDependencies) {
  const Comm comm;
  // Fewer waves than ranks.
  const std::vector<WaveDependency<std::uint32_t>> two = {{1, 0}};
  EXPECT_TRUE(plan_everywhere(comm, 2, two, 0).empty());
  // No waves at all, and waves with no dependencies.
  EXPECT_TRUE(plan_everywhere(comm, 0, std::vector<WaveDependency<std::uint32_t>>{}, 0).empty());
  EXPECT_TRUE(plan_everywhere(comm, 5, std::vector<WaveDependency<std::uint32_t>>{}, 0).empty());
  // Every dependency given on one rank (skewed parts: most ranks pass nothing).
  const auto g = generate::layered(20, 6, 2, 30, true, 8);
  for (std::uint64_t skew = 1; skew < 6; ++skew)
    EXPECT_TRUE(plan_everywhere(comm, g.wave_count, generate::narrowed<std::uint32_t>(g), skew)
                    .empty());
}

/// The file on every rank (rank 0 writes it).
std::string shared_file(const Comm& comm, const std::string& name, const std::string& text) {
  const std::string path = "strata_dist_" + name + "_" + std::to_string(comm.size()) + ".txt";
  if (comm.rank() == 0) std::ofstream(path, std::ios::binary) << text;
  MPI_Barrier(comm.comm());
  return path;
}

/// Reads `text` in parallel and with io::read_edge_list: the same
/// dependencies (gathered in order) or the same error on every rank.
void check_reader(const Comm& comm, const std::string& name, const std::string& text) {
  const std::string path = shared_file(comm, name, text);
  std::vector<std::uint64_t> want_error;
  io::EdgeList want;
  try {
    want = io::read_edge_list(path);
  } catch (const PlanError& e) {
    want_error = identity_of(e);
  }
  std::vector<std::uint64_t> got_error;
  distributed::DistributedEdgeList got;
  try {
    got = distributed::read_edge_list_distributed(comm, path);
  } catch (const PlanError& e) {
    got_error = identity_of(e);
  }
  EXPECT_EQ(got_error, want_error) << name;
  if (want_error.empty() && got_error.empty()) {
    EXPECT_EQ(got.wave_count, want.wave_count) << name;
    EXPECT_EQ(got.dependency_count, want.dependencies.size()) << name;
    EXPECT_EQ(got.max_wave_id, want.max_wave_id) << name;
    EXPECT_EQ(got.first_index, comm.exclusive_sum(std::uint64_t(got.dependencies.size()))) << name;
    for (std::size_t i = 0; i < got.dependencies.size(); ++i)
      EXPECT_EQ(got.dependencies[i], want.dependencies[got.first_index + i]) << name;
  }
  MPI_Barrier(comm.comm());
  if (comm.rank() == 0) std::remove(path.c_str());
}

TEST(Distributed, ParallelReaderMatchesTheSerialReader) {
  const Comm comm;
  check_reader(comm, "plain", "4 3\n0 1\n1 2\n2 3\n");
  check_reader(comm, "comments", "# a comment\n\n   \n# another\n5 4\n0 1\n# mid\n\n1 2\n2 3\n3 4\n# end\n");
  check_reader(comm, "crlf", "# c\r\n5 3\r\n0 1\r\n\r\n1\t2\r\n3 4\r\n");
  check_reader(comm, "no_final_newline", "3 2\n0 1\n1 2");
  check_reader(comm, "one_long_line_then_short", "3 2\n0                                         1\n1 2\n");
  check_reader(comm, "header_late", "#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n2 1\n0 1\n");
  check_reader(comm, "empty", "");
  check_reader(comm, "only_comments", "# nothing\n\n");
  check_reader(comm, "too_many", "3 1\n0 1\n1 2\n");
  check_reader(comm, "too_few", "3 3\n0 1\n1 2\n");
  check_reader(comm, "huge_header", "3 1000000\n0 1\n");
  check_reader(comm, "bad_header", "3 x\n0 1\n");
  // A generated graph, with a malformed line in the last rank's byte range.
  std::ostringstream out;
  const auto g = generate::random_dag(500, 2000, 3);
  io::write_edge_list(out, g.wave_count, g.dependencies, "random");
  const std::string good = out.str();
  check_reader(comm, "generated", good);
  std::string bad = good;
  bad.insert(bad.size() - 3, "x");  // inside the last dependency line
  check_reader(comm, "malformed_last", bad);
  std::string early = good;
  early.insert(early.find('\n', early.find('\n') + 1) + 1, "7 -1\n");  // rank 0's, and the last
  check_reader(comm, "malformed_first_and_last", early.substr(0, early.size() - 3) + "y\n");
}

}  // namespace
}  // namespace strata::test
