// DependencyGraph: the parallel CSR build agrees with a plain host count on
// every row (targets compared as multisets: the order inside a row is
// unspecified), on TEST_EXECSPACE.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <strata/strata.hpp>

#include "test_helpers.hpp"

namespace strata::test {
namespace {

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
