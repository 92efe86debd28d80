// The graph generators' shapes (host only): counts, acyclicity, the
// topological-id property where it is claimed, determinism from the seed.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <strata/generate/graph_generators.hpp>
#include <strata/plan/reference_kahn.hpp>

namespace strata::test {
namespace {

using generate::GeneratedGraph;

bool same_graph(const GeneratedGraph& a, const GeneratedGraph& b) {
  if (a.wave_count != b.wave_count || a.dependencies.size() != b.dependencies.size()) return false;
  for (std::size_t i = 0; i < a.dependencies.size(); ++i)
    if (a.dependencies[i].before != b.dependencies[i].before ||
        a.dependencies[i].after != b.dependencies[i].after)
      return false;
  return true;
}

bool has_duplicate_edge(const GeneratedGraph& g) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  for (const auto& d : g.dependencies)
    if (!seen.insert({d.before, d.after}).second) return true;
  return false;
}

/// Groups of the plan (the reference throws on a cycle or an invalid id).
std::size_t groups_of(const GeneratedGraph& g) {
  return reference_kahn(g.wave_count, g.dependencies).group_count();
}

/// How many waves have each undirected degree.
std::map<std::uint64_t, std::uint64_t> degree_histogram(const GeneratedGraph& g) {
  std::vector<std::uint64_t> degree(g.wave_count, 0);
  for (const auto& d : g.dependencies) {
    ++degree[d.before];
    ++degree[d.after];
  }
  std::map<std::uint64_t, std::uint64_t> histogram;
  for (std::uint64_t x : degree) ++histogram[x];
  return histogram;
}

TEST(Generators, FanInIsAllToOne) {
  const auto g = generate::fanin(1000);
  ASSERT_EQ(g.wave_count, 1000u);
  ASSERT_EQ(g.dependencies.size(), 999u);
  for (const auto& d : g.dependencies) EXPECT_EQ(d.after, 999u);
  EXPECT_TRUE(generate::ids_topologically_ordered(g));
  EXPECT_EQ(groups_of(g), 2u);
  EXPECT_EQ(generate::fanin(1).dependencies.size(), 0u);
  EXPECT_EQ(generate::fanin(0).wave_count, 0u);
}

TEST(Generators, BinaryTreeBothDirections) {
  for (std::uint64_t n : {1u, 2u, 7u, 8u, 1000u, 65535u}) {
    std::uint64_t depth = 0;  // floor(log2 n) + 1 levels
    for (std::uint64_t m = n; m > 0; m >>= 1) ++depth;
    for (auto dir : {generate::TreeDirection::Out, generate::TreeDirection::In}) {
      const auto g = generate::binary_tree(n, dir);
      ASSERT_EQ(g.wave_count, n);
      ASSERT_EQ(g.dependencies.size(), n - 1);
      EXPECT_TRUE(generate::ids_topologically_ordered(g)) << g.description;
      EXPECT_FALSE(has_duplicate_edge(g));
      EXPECT_EQ(groups_of(g), depth) << g.description;
      std::vector<std::uint64_t> in(n, 0), out(n, 0);
      for (const auto& d : g.dependencies) {
        ++out[d.before];
        ++in[d.after];
      }
      // out-tree: every wave but the root waits for exactly one; in-tree: mirrored
      const auto& single = dir == generate::TreeDirection::Out ? in : out;
      const auto& fan = dir == generate::TreeDirection::Out ? out : in;
      for (std::uint64_t w = 0; w < n; ++w) {
        EXPECT_LE(fan[w], 2u);
        EXPECT_EQ(single[w], (dir == generate::TreeDirection::Out ? w == 0 : w == n - 1) ? 0u : 1u);
      }
    }
  }
}

TEST(Generators, Ilu2dIsThePermutedFivePointPattern) {
  const std::uint64_t nx = 37, ny = 23;
  const auto g = generate::ilu2d(nx, ny, 11);
  ASSERT_EQ(g.wave_count, nx * ny);
  ASSERT_EQ(g.dependencies.size(), (nx - 1) * ny + nx * (ny - 1));
  EXPECT_TRUE(generate::ids_topologically_ordered(g));
  EXPECT_FALSE(has_duplicate_edge(g));
  // Each wave keeps its grid degree: 4 corners of 2, the border of 3, the rest 4.
  const auto h = degree_histogram(g);
  EXPECT_EQ(h.at(2), 4u);
  EXPECT_EQ(h.at(3), 2 * (nx - 2) + 2 * (ny - 2));
  EXPECT_EQ(h.at(4), (nx - 2) * (ny - 2));
  // Row by row: `after` never decreases, columns ascend inside a row.
  for (std::size_t i = 1; i < g.dependencies.size(); ++i) {
    const auto& p = g.dependencies[i - 1];
    const auto& q = g.dependencies[i];
    EXPECT_TRUE(p.after < q.after || (p.after == q.after && p.before < q.before));
  }
  EXPECT_TRUE(same_graph(g, generate::ilu2d(nx, ny, 11)));
  EXPECT_FALSE(same_graph(g, generate::ilu2d(nx, ny, 12)));
  // A random order makes the factor shallow compared with the natural order's nx+ny-1.
  EXPECT_LT(groups_of(g), nx + ny - 1);
}

TEST(Generators, Ilu3dIsThePermutedSevenPointPattern) {
  const std::uint64_t nx = 9, ny = 7, nz = 5;
  const auto g = generate::ilu3d(nx, ny, nz, 3);
  ASSERT_EQ(g.wave_count, nx * ny * nz);
  ASSERT_EQ(g.dependencies.size(), (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1));
  EXPECT_TRUE(generate::ids_topologically_ordered(g));
  EXPECT_FALSE(has_duplicate_edge(g));
  const auto h = degree_histogram(g);
  EXPECT_EQ(h.at(3), 8u);                                   // corners
  EXPECT_EQ(h.at(6), (nx - 2) * (ny - 2) * (nz - 2));       // interior
  EXPECT_TRUE(same_graph(g, generate::ilu3d(nx, ny, nz, 3)));
  EXPECT_FALSE(same_graph(g, generate::ilu3d(nx, ny, nz, 4)));
  EXPECT_GE(groups_of(g), 2u);
}

TEST(Generators, PowerLawHasHubs) {
  const std::uint64_t n = 100000, m = 4;
  const auto g = generate::power_law(n, m, 5);
  ASSERT_EQ(g.wave_count, n);
  // wave w waits for min(m, w) distinct earlier waves
  std::uint64_t expected = 0;
  for (std::uint64_t w = 1; w < n; ++w) expected += std::min(m, w);
  ASSERT_EQ(g.dependencies.size(), expected);
  EXPECT_TRUE(generate::ids_topologically_ordered(g));
  EXPECT_FALSE(has_duplicate_edge(g));
  std::vector<std::uint64_t> out(n, 0);
  for (const auto& d : g.dependencies) ++out[d.before];
  const std::uint64_t max_out = *std::max_element(out.begin(), out.end());
  EXPECT_GT(max_out, 50 * m);  // a uniform DAG of this size has max out-degree ~ 20
  EXPECT_TRUE(same_graph(g, generate::power_law(n, m, 5)));
  EXPECT_FALSE(same_graph(g, generate::power_law(n, m, 6)));
  EXPECT_EQ(generate::power_law(1, 4, 1).dependencies.size(), 0u);
  EXPECT_EQ(generate::power_law(10, 0, 1).dependencies.size(), 0u);
}

TEST(Generators, TopologicalIdsWhereClaimed) {
  EXPECT_TRUE(generate::ids_topologically_ordered(generate::sweep2d(20, 30)));
  EXPECT_TRUE(generate::ids_topologically_ordered(generate::sweep3d(6, 5, 4)));
  EXPECT_TRUE(generate::ids_topologically_ordered(generate::chain(100)));
  EXPECT_TRUE(generate::ids_topologically_ordered(generate::fanout(100)));
  // shuffled kinds: ids are not a topological order
  EXPECT_FALSE(generate::ids_topologically_ordered(generate::random_dag(1000, 5000, 1)));
  EXPECT_FALSE(generate::ids_topologically_ordered(generate::layered(50, 10, 2, 10, true, 1)));
  EXPECT_TRUE(generate::ids_topologically_ordered(generate::layered(50, 10, 2, 10, false, 1)));
}

}  // namespace
}  // namespace strata::test
