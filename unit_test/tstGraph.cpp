// DependencyGraph: the parallel CSR build agrees with a plain host count on
// every row (targets compared as multisets where the order inside a row is
// unspecified, i.e. on devices; host backends keep the input order), on
// TEST_EXECSPACE.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/atomics.hpp>
#include <strata/strata.hpp>

#include "test_helpers.hpp"

namespace strata::test {
namespace {

// Lists over several of the host CSR build's row buckets (up to 16384 rows
// each) with the last one partial: a random DAG with shuffled ids, and a hub
// row that fills one bucket on its own, with duplicates and rows with no
// dependency.
std::vector<std::pair<std::uint64_t, std::vector<Dep>>> bucket_cases() {
  std::vector<std::pair<std::uint64_t, std::vector<Dep>>> cases;
  auto random = generate::random_dag(3 * 16384 + 123, 200000, 7);
  generate::shuffle_ids(random, 5);
  cases.emplace_back(random.wave_count, generate::narrowed<std::uint32_t>(random));
  std::vector<Dep> hub;
  const std::uint32_t waves = 70001;
  for (std::uint32_t i = 0; i < 60000; ++i) {
    hub.push_back({20000, (i * 7919u + 1u) % waves == 20000 ? 0u : (i * 7919u + 1u) % waves});
    if (i % 7 == 0) hub.push_back({(i * 104729u) % waves == 5u ? 6u : (i * 104729u) % waves, 5u});
    if (i % 11 == 0) hub.push_back({69999, 70000});  // a duplicate in the last, partial bucket
  }
  cases.emplace_back(waves, hub);
  return cases;
}

void expect_csr_matches(std::uint64_t waves, const std::vector<Dep>& deps) {
  using DepView = Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", deps.size());
  Kokkos::deep_copy(device, DepView(deps.data(), deps.size()));
  const auto graph = make_dependency_graph(
      TEST_EXECSPACE(), waves, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device));
  ASSERT_EQ(graph.wave_count(), waves);
  ASSERT_EQ(graph.dependency_count(), deps.size());
  EXPECT_EQ(graph.bytes(), (waves + 1) * sizeof(std::uint32_t) + deps.size() * sizeof(std::uint32_t));

  std::vector<std::vector<std::uint32_t>> rows(waves);
  for (const auto& d : deps) rows[d.before].push_back(d.after);
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.entries);
  ASSERT_EQ(row_map(0), 0u);
  for (std::size_t w = 0; w < waves; ++w) {
    ASSERT_EQ(row_map(w + 1) - row_map(w), rows[w].size()) << "row " << w;
    std::vector<std::uint32_t> got(entries.data() + row_map(w), entries.data() + row_map(w + 1));
    std::sort(got.begin(), got.end());
    std::sort(rows[w].begin(), rows[w].end());
    ASSERT_EQ(got, rows[w]) << "row " << w;
  }
}

TEST(DependencyGraph, CsrOfSmallGraphs) {
  expect_csr_matches(0, {});
  expect_csr_matches(5, {});
  expect_csr_matches(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  expect_csr_matches(3, {{2, 0}, {2, 0}, {2, 1}, {0, 1}});  // duplicates, last row first
}

TEST(DependencyGraph, CsrOfGeneratedGraphs) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto g = generate::random_dag(200 + 37 * seed, 1000 + 111 * seed, seed);
    expect_csr_matches(g.wave_count, generate::narrowed<std::uint32_t>(g));
  }
  const auto fan = generate::fanout(5000);
  expect_csr_matches(fan.wave_count, generate::narrowed<std::uint32_t>(fan));
}

// The validation pass can also learn the list's order (whether the ids are a
// topological order, every dependency having before < after, and whether the
// list is sorted by one endpoint), the count pass the in-degrees; on host
// backends each row keeps the input order of its dependencies.
TEST(DependencyGraph, CountPassGivesInDegreesAndTheIdOrder) {
  using DepView = Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  auto sweep = generate::sweep3d(9, 7, 5);
  auto shuffled = sweep;
  generate::shuffle_ids(shuffled, 3);
  for (const auto* g : {&sweep, &shuffled}) {
    const auto deps = generate::narrowed<std::uint32_t>(*g);
    Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", deps.size());
    Kokkos::deep_copy(device, DepView(deps.data(), deps.size()));
    DependencyGraphStorage<TEST_EXECSPACE> storage;
    GraphCounts<TEST_EXECSPACE> counts;
    counts.in_degrees = GraphCounts<TEST_EXECSPACE>::InDegrees::Yes;
    counts.check_topological = true;
    const auto graph = build_dependency_graph(
        TEST_EXECSPACE(), g->wave_count, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device),
        storage, counts);
    EXPECT_EQ(counts.topological, generate::ids_topologically_ordered(*g)) << g->description;
    EXPECT_EQ(counts.topological, g == &sweep);
    EXPECT_EQ(counts.order.edges_in_order(), g == &sweep) << "sweep3d lists each wave's inputs in order";
    ASSERT_TRUE(counts.in_degrees_counted);
    ASSERT_GE(counts.in_degree.extent(0), g->wave_count);
    std::vector<std::uint32_t> in(g->wave_count, 0);
    std::vector<std::vector<std::uint32_t>> rows(g->wave_count);
    for (const auto& d : deps) {
      ++in[d.after];
      rows[d.before].push_back(d.after);
    }
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts.in_degree);
    for (std::size_t w = 0; w < g->wave_count; ++w) ASSERT_EQ(got(w), in[w]) << "wave " << w;
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, TEST_EXECSPACE::memory_space>::accessible) {
      const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map);
      const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.entries);
      for (std::size_t w = 0; w < g->wave_count; ++w)
        ASSERT_EQ(std::vector<std::uint32_t>(entries.data() + row_map(w), entries.data() + row_map(w + 1)),
                  rows[w]) << "row " << w << " in input order";
    }
  }
  // One backward dependency is enough to lose the order (still acyclic).
  const std::vector<Dep> back{{0, 1}, {1, 2}, {3, 2}};
  Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", back.size());
  Kokkos::deep_copy(device, DepView(back.data(), back.size()));
  DependencyGraphStorage<TEST_EXECSPACE> storage;
  GraphCounts<TEST_EXECSPACE> counts;
  counts.check_topological = true;
  counts.in_degrees = GraphCounts<TEST_EXECSPACE>::InDegrees::UnlessTopological;
  build_dependency_graph(TEST_EXECSPACE(), 4, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device),
                         storage, counts);
  EXPECT_FALSE(counts.topological);
  EXPECT_TRUE(counts.in_degrees_counted);
  // Topological ids: the in-degrees are skipped when asked to.
  const std::vector<Dep> forward{{0, 1}, {1, 2}, {2, 3}};
  Kokkos::deep_copy(device, DepView(forward.data(), forward.size()));
  build_dependency_graph(TEST_EXECSPACE(), 4, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device),
                         storage, counts);
  EXPECT_TRUE(counts.topological);
  EXPECT_FALSE(counts.in_degrees_counted);
  EXPECT_TRUE(counts.order.by_before && counts.order.by_after && counts.order.edges_in_order());
  // Asked to skip the CSR for a list in topological order, nothing is built.
  counts.skip_if_edges_in_order = true;
  const auto none = build_dependency_graph(
      TEST_EXECSPACE(), 4, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device), storage, counts);
  EXPECT_FALSE(counts.built);
  EXPECT_EQ(none.row_map.extent(0), 0u);
  // Topological ids in no list order: the CSR is built.
  const std::vector<Dep> unsorted{{1, 3}, {0, 2}, {2, 3}};
  Kokkos::deep_copy(device, DepView(unsorted.data(), unsorted.size()));
  build_dependency_graph(TEST_EXECSPACE(), 4, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device),
                         storage, counts);
  EXPECT_TRUE(counts.topological);
  EXPECT_FALSE(counts.order.by_before || counts.order.by_after);
  EXPECT_FALSE(counts.order.edges_in_order());
  EXPECT_TRUE(counts.built);
  // A list sorted by one endpoint nonincreasing is in order read backwards.
  const std::vector<Dep> backwards{{2, 3}, {1, 3}, {0, 2}};
  Kokkos::deep_copy(device, DepView(backwards.data(), backwards.size()));
  build_dependency_graph(TEST_EXECSPACE(), 4, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device),
                         storage, counts);
  EXPECT_TRUE(counts.order.by_before_descending && !counts.order.by_before);
  EXPECT_TRUE(counts.order.reversed() && counts.order.edges_in_order());
  EXPECT_FALSE(counts.built);
}

// The host backends build the CSR bucket by bucket (up to 16384 rows each): lists
// over several buckets with the last one partial, a hub row that fills one
// bucket on its own, duplicates, and rows with no dependency, with the
// in-degrees counted. Against a host count: every row (in input order on
// host backends, as a multiset on devices) and every in-degree.
TEST(DependencyGraph, CsrAcrossRowBuckets) {
  using DepView = Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, TEST_EXECSPACE::memory_space>::accessible;
  for (const auto& [wave_count, deps] : bucket_cases()) {
    Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", deps.size());
    Kokkos::deep_copy(device, DepView(deps.data(), deps.size()));
    DependencyGraphStorage<TEST_EXECSPACE> storage;
    GraphCounts<TEST_EXECSPACE> counts;
    counts.in_degrees = GraphCounts<TEST_EXECSPACE>::InDegrees::Yes;
    const auto graph = build_dependency_graph(
        TEST_EXECSPACE(), wave_count, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device),
        storage, counts);
    ASSERT_TRUE(counts.in_degrees_counted);
    std::vector<std::uint32_t> in(wave_count, 0);
    std::vector<std::vector<std::uint32_t>> rows(wave_count);
    for (const auto& d : deps) {
      ++in[d.after];
      rows[d.before].push_back(d.after);
    }
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts.in_degree);
    const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map);
    const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.entries);
    ASSERT_EQ(row_map(0), 0u);
    for (std::size_t w = 0; w < wave_count; ++w) {
      ASSERT_EQ(got(w), in[w]) << "in-degree of wave " << w;
      std::vector<std::uint32_t> row(entries.data() + row_map(w), entries.data() + row_map(w + 1));
      if (!host) {
        std::sort(row.begin(), row.end());
        std::sort(rows[w].begin(), rows[w].end());
      }
      ASSERT_EQ(row, rows[w]) << "row " << w;
    }
  }
}

// count_in_degrees over a CSR that nobody counted (a caller's: the planner's
// Start step counts it then), into a View holding stale values, against a
// host count. On host backends each thread counts the entries of its own
// range of waves and sends the others' to spare counters; the ctest runs at
// 2 and 4 OpenMP threads give several ranges.
TEST(DependencyGraph, InDegreesOfAnUncountedCsrMatchAHostCount) {
  for (const auto& [wave_count, deps] : bucket_cases()) {
    const Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space> device = to_device(deps, "deps");
    const auto graph = make_dependency_graph(TEST_EXECSPACE(), wave_count, device);
    Kokkos::View<std::uint32_t*, TEST_EXECSPACE::memory_space> in_degree("in_degree", wave_count);
    Kokkos::deep_copy(in_degree, 77u);
    count_in_degrees(TEST_EXECSPACE(), graph, in_degree);
    std::vector<std::uint32_t> expected(wave_count, 0);
    for (const auto& d : deps) ++expected[d.after];
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in_degree);
    for (std::size_t w = 0; w < wave_count; ++w)
      ASSERT_EQ(got(w), expected[w]) << "in-degree of wave " << w << " of " << wave_count;
  }
}

TEST(DependencyGraph, InvalidInputBuildsNothing) {
  DependencyGraphStorage<TEST_EXECSPACE> storage;
  const std::vector<Dep> deps{{0, 1}, {1, 9}};
  using DepView = Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", deps.size());
  Kokkos::deep_copy(device, DepView(deps.data(), deps.size()));
  auto e = expect_plan_error(ErrorKind::InvalidWave, [&] {
    build_dependency_graph(TEST_EXECSPACE(), 3,
                           Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device), storage);
  });
  EXPECT_EQ(e.after(), 9u);
  EXPECT_EQ(storage.row_map.extent(0), 0u) << "validation must come before any allocation";
}

}  // namespace
}  // namespace strata::test

// The counters the graph, plan and executor modules update concurrently
// (core/atomics.hpp): 16- and 8-bit counters under heavy contention (one
// counter for half the threads: a hub's degree), beside neighbours in the
// same 32-bit word that other threads update at the same time. On a device
// these take a native 32-bit atomic on the word that holds them: every update
// must land, each old value must be seen once, and no neighbour may change.
// As everywhere in Strata, no counter leaves its type's range.
template <class T>
void check_small_counters_under_contention() {
  using Mem = TEST_EXECSPACE::memory_space;
  const std::size_t n = sizeof(T) == 1 ? 400 : 60000;  // 2 * updates of the hub
  Kokkos::View<T*, Mem> counters("counters", 8);
  Kokkos::View<T*, Mem> olds("olds", n / 2);
  auto init = Kokkos::create_mirror(counters);  // a copy on every backend: the initial values
  for (std::size_t i = 0; i < 8; ++i) init(i) = T(3 * i + 1);
  init(1) = T(n / 2 + 1);  // goes down by up to n / 2 at once, never below zero
  Kokkos::deep_copy(counters, init);
  Kokkos::parallel_for(
      "hub", Kokkos::RangePolicy<TEST_EXECSPACE>(0, n), KOKKOS_LAMBDA(const std::size_t i) {
        // even i: the hub, counter 2; odd i: its neighbour 3 (the hub's
        // word) up, and counter 1 (the hub's word for 8-bit counters, its
        // neighbour 0's for 16-bit ones) down and up again.
        if (i % 2 == 0) {
          olds(i / 2) = strata::fetch_add<TEST_EXECSPACE>(&counters(2), T(1));
        } else {
          strata::fetch_add<TEST_EXECSPACE>(&counters(3), T(1));
          strata::fetch_sub<TEST_EXECSPACE>(&counters(1), T(1));
          strata::fetch_add<TEST_EXECSPACE>(&counters(1), T(1));
        }
      });
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counters);
  for (std::size_t i = 0; i < 8; ++i) {
    const T expected = (i == 2 || i == 3) ? T(init(i) + n / 2) : init(i);
    EXPECT_EQ(got(i), expected) << "counter " << i << " of " << sizeof(T) << " bytes";
  }
  auto seen = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), olds);
  std::vector<T> sorted(seen.data(), seen.data() + seen.extent(0));
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k)
    ASSERT_EQ(sorted[k], T(init(2) + k)) << "old values of the hub, " << sizeof(T) << " bytes";
}

TEST(CoreAtomics, SmallCountersUnderContentionKeepTheirNeighbours) {
  check_small_counters_under_contention<std::uint16_t>();
  check_small_counters_under_contention<std::int16_t>();
  check_small_counters_under_contention<std::uint8_t>();
}
