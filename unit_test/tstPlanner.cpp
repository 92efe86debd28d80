// The seed's planner behaviours, plus duplicates, empty graphs, deterministic
// first offenders, overflow and allocation failure, on TEST_EXECSPACE.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <strata/generate/graph_generators.hpp>
#include <strata/plan/detail/host_kahn.hpp>  // rule K's parts and outboxes, looked at directly
#include <strata/plan/planner_storage.hpp>
#include <strata/plan/reference_kahn.hpp>
#include <strata/strata.hpp>

#include "sptrsv_matrices.hpp"
#include "test_helpers.hpp"

namespace strata::test {
namespace {

TEST(Planner, IndependentWavesShareOneBarrierFreeGroup) {
  const auto plan = test::plan<std::uint32_t>(4, {});
  EXPECT_EQ(plan.global_barriers(), 0u);
  EXPECT_EQ(plan.host_groups(), (Groups{{0, 1, 2, 3}}));
}

TEST(Planner, ChainRequiresOneBarrierBetweenEachWave) {
  const auto plan = test::plan<std::uint32_t>(4, {{0, 1}, {1, 2}, {2, 3}});
  EXPECT_EQ(plan.global_barriers(), 3u);
  EXPECT_EQ(plan.host_groups(), (Groups{{0}, {1}, {2}, {3}}));
}

TEST(Planner, DiamondFusesTheMiddleWaves) {
  const auto plan = test::plan<std::uint32_t>(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  EXPECT_EQ(plan.global_barriers(), 2u);
  EXPECT_EQ(plan.host_groups(), (Groups{{0}, {1, 2}, {3}}));
  const auto host = plan.host_mirror();
  EXPECT_EQ(host.level(0), 0u);
  EXPECT_EQ(host.level(1), 1u);
  EXPECT_EQ(host.level(2), 1u);
  EXPECT_EQ(host.level(3), 2u);
}

TEST(Planner, InvalidSelfAndCyclicDependenciesFailLoudly) {
  auto invalid = expect_plan_error(ErrorKind::InvalidWave, [] { test::plan<std::uint32_t>(2, {{0, 2}}); });
  EXPECT_EQ(invalid.wave_count(), 2u);
  EXPECT_EQ(invalid.before(), 0u);
  EXPECT_EQ(invalid.after(), 2u);

  auto self = expect_plan_error(ErrorKind::SelfDependency, [] { test::plan<std::uint32_t>(2, {{1, 1}}); });
  EXPECT_EQ(self.wave(), 1u);

  auto cycle = expect_plan_error(ErrorKind::Cycle, [] { test::plan<std::uint32_t>(2, {{0, 1}, {1, 0}}); });
  EXPECT_EQ(cycle.unscheduled_waves(), 2u);
}

TEST(Planner, CycleCountsEveryWaveItBlocks) {
  // 0 -> 1 -> 2 schedule; 3 <-> 4 is a cycle and 5 waits behind it.
  auto cycle = expect_plan_error(ErrorKind::Cycle, [] {
    test::plan<std::uint32_t>(6, {{0, 1}, {1, 2}, {3, 4}, {4, 3}, {4, 5}});
  });
  EXPECT_EQ(cycle.unscheduled_waves(), 3u);
}

TEST(Planner, WideFanoutUsesOneCsrAndTwoGroups) {
  std::vector<Dep> deps;
  for (std::uint32_t after = 1; after < 1025; ++after) deps.push_back({0, after});
  const auto plan = test::plan(1025, deps);
  EXPECT_EQ(plan.global_barriers(), 1u);
  const Groups groups = plan.host_groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::vector<std::uint64_t>{0}));
  ASSERT_EQ(groups[1].size(), 1024u);
  for (std::uint64_t i = 0; i < 1024; ++i) EXPECT_EQ(groups[1][i], i + 1);
}

template <class Scratch>
std::vector<const void*> buffer_pointers(const Scratch& s) {
  return {s.graph.row_map.data(), s.graph.entries.data(), s.graph.cursor.data(),
          s.remaining.data(),     s.order.data(),         s.sort_counts.data()};
}

TEST(Planner, ScratchIsReusedAcrossShapesWithoutAllocating) {
  using Scratch = PlannerScratch<TEST_EXECSPACE, std::uint32_t, std::uint32_t>;
  auto scratch = Scratch::try_with_capacity(1025, 1024);
  EXPECT_GE(scratch.wave_capacity(), 1025u);
  EXPECT_GE(scratch.dependency_capacity(), 1024u);
  const auto pointers = buffer_pointers(scratch);
  const std::size_t waves = scratch.wave_capacity(), deps = scratch.dependency_capacity();

  std::vector<Dep> wide;
  for (std::uint32_t after = 1; after < 1025; ++after) wide.push_back({0, after});
  const auto a = plan_barriers(TEST_EXECSPACE(), 1025, wide.data(), wide.size(), scratch);
  EXPECT_EQ(a.host_groups()[1].size(), 1024u);

  const std::vector<Dep> narrow{{0, 1}, {1, 2}, {2, 3}};
  const auto b = plan_barriers(TEST_EXECSPACE(), 4, narrow.data(), narrow.size(), scratch);
  EXPECT_EQ(b.global_barriers(), 3u);
  const auto c = plan_barriers(TEST_EXECSPACE(), 1025, wide.data(), wide.size(), scratch);
  EXPECT_EQ(c.global_barriers(), 1u);

  EXPECT_EQ(scratch.wave_capacity(), waves);
  EXPECT_EQ(scratch.dependency_capacity(), deps);
  EXPECT_EQ(buffer_pointers(scratch), pointers) << "planning a smaller or equal shape reallocated";

  // A larger shape grows the buffers its plan uses (a list in no order: a
  // CSR is built), and they are kept: planning it again allocates nothing.
  // Buffers that path does not read (e.g. the release counts of a top-down
  // step on a host backend) are grown only when a plan needs them, or by
  // PlannerScratch::reserve.
  std::vector<Dep> larger(wide.begin(), wide.begin() + 512);
  larger.push_back({1, 1025});
  larger.insert(larger.end(), wide.begin() + 512, wide.end());
  const auto d = plan_barriers(TEST_EXECSPACE(), 1026, larger.data(), larger.size(), scratch);
  EXPECT_EQ(d.global_barriers(), 2u);
  EXPECT_GE(scratch.graph.row_map.extent(0), 1027u);
  EXPECT_GE(scratch.dependency_capacity(), 1025u);
  const auto grown = buffer_pointers(scratch);
  plan_barriers(TEST_EXECSPACE(), 1026, larger.data(), larger.size(), scratch);
  EXPECT_EQ(buffer_pointers(scratch), grown) << "planning the same shape again reallocated";
  scratch.reserve(TEST_EXECSPACE(), 1026, 1025);
  EXPECT_GE(scratch.wave_capacity(), 1026u);
}

// The host reference of both layout steps: the ids 0..n-1 stably sorted by
// their level.
std::vector<std::uint32_t> stable_order_by_level(const std::vector<std::uint32_t>& level) {
  std::vector<std::uint32_t> order(level.size());
  for (std::size_t w = 0; w < level.size(); ++w) order[w] = std::uint32_t(w);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return level[a] < level[b]; });
  return order;
}

// layout_from_levels on TEST_EXECSPACE against a host std::stable_sort and
// the offsets counted on the host.
void expect_layout_from_levels_sorts(const std::vector<std::uint32_t>& level,
                                     std::uint64_t groups) {
  using Ordinal = std::uint32_t;
  using Plan = BarrierPlan<TEST_EXECSPACE, Ordinal>;
  const std::uint64_t waves = level.size();
  const std::vector<Ordinal> expected_waves = stable_order_by_level(level);
  std::vector<Ordinal> expected_offsets(groups + 1, 0);
  for (const Ordinal l : level) ++expected_offsets[l + 1];
  for (std::uint64_t g = 0; g < groups; ++g) expected_offsets[g + 1] += expected_offsets[g];

  Plan plan;
  plan.level = to_device(level, "levels");
  plan.waves = typename Plan::view_type("waves", waves);
  plan.group_offsets = typename Plan::view_type("offsets", groups + 1);
  PlannerScratch<TEST_EXECSPACE, Ordinal, Ordinal> scratch;  // the spare only past 256
  reserve_layout(TEST_EXECSPACE(), waves, scratch, groups);
  layout_from_levels(TEST_EXECSPACE(), groups, plan, scratch);
  TEST_EXECSPACE().fence();
  const auto got_waves = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.waves);
  const auto got_offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.group_offsets);
  EXPECT_EQ(std::vector<Ordinal>(got_waves.data(), got_waves.data() + waves), expected_waves)
      << groups << " groups, " << waves << " waves";
  EXPECT_EQ(std::vector<Ordinal>(got_offsets.data(), got_offsets.data() + groups + 1),
            expected_offsets)
      << groups << " groups, " << waves << " waves";
}

// The layout seam shared with the distributed gather: a stable sort by
// level and the group offsets, against a host std::stable_sort, for level
// counts around the sort's digit boundaries (one pass up to 256 groups, two
// up to 65536, three beyond) and with empty groups. On a GPU the last pass's
// few digits run in many short chunks: this covers that chunking too.
TEST(Planner, LayoutFromLevelsIsAStableSortWithOffsets) {
  std::uint64_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  for (const std::uint64_t groups : {1ull, 2ull, 20ull, 256ull, 257ull, 600ull, 65537ull}) {
    for (const std::uint64_t waves : {0ull, 1ull, 33ull, 5000ull, 70001ull}) {
      if (waves == 0 && groups != 1) continue;
      std::vector<std::uint32_t> level(waves);
      for (std::uint64_t w = 0; w < waves; ++w) {
        // every other group empty, and the deepest one always present
        level[w] =
            std::uint32_t(w + 1 == waves ? groups - 1 : (next() % groups) & ~std::uint64_t(1));
      }
      expect_layout_from_levels_sorts(level, groups);
    }
  }
}

// One pass of the device's tiled sort (a team per tile, bitmask ranks in a
// round), run on every backend (a host team is one thread), against a host
// std::stable_sort by the pass's digit: from the identity and from a
// shuffled order, for tiles that end inside a round and passes of 1, 3, 20
// and 256 digits.
TEST(Planner, TiledLevelSortPassIsStable) {
  using Ordinal = std::uint32_t;
  using Space = TEST_EXECSPACE;
  using View = Kokkos::View<Ordinal*, Space::memory_space>;
  for (const std::size_t digits : {std::size_t(1), std::size_t(3), std::size_t(20), std::size_t(256)}) {
    for (const std::size_t n : {std::size_t(1), std::size_t(300), std::size_t(4097), std::size_t(70001)}) {
      for (const bool identity : {true, false}) {
        const unsigned shift = 8;
        std::vector<Ordinal> level(n), src(n);
        for (std::size_t w = 0; w < n; ++w) {
          level[w] = Ordinal(((w * 2654435761u) % digits) << shift | (w % 7));
          src[w] = Ordinal(identity ? w : (w * 7919) % n);
        }
        if (!identity && n % 7919 == 0) continue;  // not a permutation
        std::vector<Ordinal> expected = src;
        std::stable_sort(expected.begin(), expected.end(), [&](Ordinal a, Ordinal b) {
          return (level[a] >> shift) < (level[b] >> shift);
        });
        const std::size_t counters = digits * ((n + 4095) / 4096);
        const View dst("dst", n);
        plan::detail::TiledSortPass<Space, Ordinal> pass;
        pass.level = to_device(level, "levels");
        pass.src = to_device(src, "src");
        pass.identity_input = identity;
        pass.n = n;
        pass.tile = plan::detail::tiled_sort_tile_size(n, digits, counters);
        pass.counts = View("counts", counters);
        pass.shift = shift;
        pass.mask = Ordinal(255);
        pass.digits = digits;
        pass.count(Space());
        plan::detail::exclusive_scan_counts(Space(), pass.counts);
        pass.place(Space(), dst);
        const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
        EXPECT_EQ(std::vector<Ordinal>(got.data(), got.data() + n), expected)
            << digits << " digits, " << n << " waves, " << (identity ? "identity" : "shuffled");
      }
    }
  }
}

// As many groups as waves: one wave per level (a chain's plan; the levels a
// shuffle of the ids, 7919 prime to every count) is laid out as the inverse
// of the levels; where one level holds two waves and another none, the
// scatter's check sends it to the radix sort.
TEST(Planner, LayoutFromLevelsWithAsManyGroupsAsWaves) {
  for (const std::uint64_t waves : {2ull, 33ull, 257ull, 70001ull}) {
    std::vector<std::uint32_t> level(waves);
    for (std::uint64_t w = 0; w < waves; ++w) level[w] = std::uint32_t(w * 7919 % waves);
    expect_layout_from_levels_sorts(level, waves);
    level[waves / 2] = level[0];  // level[0]'s level twice, the other level empty
    expect_layout_from_levels_sorts(level, waves);
  }
}

/// What counting_sort_by_level gave on TEST_EXECSPACE: the order, each
/// level's (first, size) from `group`, and, per position, the sum of
/// level + 1 over its `counted` calls (level + 1 when called once).
struct CountingSorted {
  std::vector<std::uint32_t> order, first, size, counted;
};

CountingSorted counting_sort_on_test_space(const std::vector<std::uint32_t>& level,
                                           std::uint64_t groups, LevelSizes level_sizes) {
  using Mem = TEST_EXECSPACE::memory_space;
  const std::uint64_t n = level.size();
  std::vector<std::uint32_t> host_sizes(groups, 0);
  for (const std::uint32_t l : level) ++host_sizes[l];
  const auto levels = to_device(level, "levels");
  const auto sizes = to_device(host_sizes, "sizes");
  Kokkos::View<std::uint32_t*, Mem> order("order", n), counted("counted", n);
  Kokkos::View<std::uint32_t*, Mem> first("first", groups + 1), size("size", groups + 1);
  counting_sort_by_level(
      TEST_EXECSPACE(), n, groups, sizes,
      KOKKOS_LAMBDA(std::uint64_t k) { return std::uint64_t(levels(k)); },
      KOKKOS_LAMBDA(std::uint64_t k, std::uint64_t l) { counted(k) += std::uint32_t(l + 1); },
      KOKKOS_LAMBDA(std::uint64_t slot, std::uint64_t k) { order(slot) = std::uint32_t(k); },
      KOKKOS_LAMBDA(std::uint64_t l, std::uint64_t f, std::uint64_t c) {
        first(l) = std::uint32_t(f);
        size(l) = std::uint32_t(c);
      },
      level_sizes);
  TEST_EXECSPACE().fence();
  const auto back = [](const Kokkos::View<std::uint32_t*, Mem>& v) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<std::uint32_t>(h.data(), h.data() + h.extent(0));
  };
  return CountingSorted{back(order), back(first), back(size), back(counted)};
}

// The host layout step shared by the planner and the sptrsv symbolic phase:
// against std::stable_sort for one slice (few waves, Serial, a chain's
// many levels), several (OpenMP, CUDA) and one wave per level on several
// threads, with every callback's calls; where every level is present, both
// with and without the caller saying so (LevelSizes).
TEST(Planner, CountingSortByLevelIsAStableSortForEverySliceCount) {
  const auto expect_sorted = [](const std::vector<std::uint32_t>& level, std::uint64_t groups,
                                LevelSizes level_sizes, const std::string& note) {
    const std::uint64_t waves = level.size();
    const std::vector<std::uint32_t> expected = stable_order_by_level(level);
    std::vector<std::uint32_t> first(groups + 1, 0), size(groups + 1, 0), counted(waves);
    for (const std::uint32_t l : level) ++size[l];
    for (std::uint64_t g = 0; g < groups; ++g) first[g + 1] = first[g] + size[g];
    size[groups] = 0;
    for (std::uint64_t w = 0; w < waves; ++w) counted[w] = level[w] + 1;
    const CountingSorted got = counting_sort_on_test_space(level, groups, level_sizes);
    const std::string shape = std::to_string(groups) + " groups, " + std::to_string(waves) +
                              " waves, " +
                              std::to_string(counting_sort_slices(TEST_EXECSPACE(), waves, groups)) +
                              " slices" + note;
    EXPECT_EQ(got.order, expected) << shape;
    EXPECT_EQ(got.first, first) << shape;
    EXPECT_EQ(got.size, size) << shape;
    EXPECT_EQ(got.counted, counted) << shape;
  };
  std::uint64_t seed = 777;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  for (const std::uint64_t groups : {1ull, 3ull, 20ull, 600ull, 70001ull}) {
    for (const std::uint64_t waves : {0ull, 1ull, 5000ull, 70001ull}) {
      if (groups > waves && !(waves == 0 && groups == 1)) continue;
      std::vector<std::uint32_t> level(waves);
      // Every level present. One wave per level (a chain's plan; on more
      // than one thread the sort is then the inverse permutation): the
      // levels a shuffle of the ids (7919 is prime to every wave count).
      for (std::uint64_t w = 0; w < waves; ++w)
        level[w] = std::uint32_t(groups == waves ? w * 7919 % waves
                                 : w < groups    ? w
                                                 : next() % groups);
      expect_sorted(level, groups, LevelSizes::Any, "");
      if (waves >= groups)  // every level present (not so for no waves in one level)
        expect_sorted(level, groups, LevelSizes::NonEmpty, ", every level said non-empty");
      if (groups == waves && waves > 1) {
        // As many levels as waves, but one empty and another shared: the
        // one-per-level pass's check sends it to the general sort.
        level[waves / 2] = level[0];
        expect_sorted(level, groups, LevelSizes::Any, ", one level empty");
      }
    }
  }
}

TEST(Planner, GeneratedLayeredDagsKeepExactDepthFor2048Shapes) {
  PlannerScratch<TEST_EXECSPACE> scratch;
  for (std::uint32_t width = 1; width <= 64; ++width)
    for (std::uint32_t depth = 1; depth <= 32; ++depth) {
      std::vector<Dep> deps;
      for (std::uint32_t layer = 0; layer + 1 < depth; ++layer)
        for (std::uint32_t slot = 0; slot < width; ++slot)
          deps.push_back({layer * width + slot, (layer + 1) * width + slot});
      const auto plan =
          plan_barriers(TEST_EXECSPACE(), width * depth, deps.data(), deps.size(), scratch);
      ASSERT_EQ(plan.group_count(), depth) << width << "x" << depth;
      ASSERT_EQ(plan.global_barriers(), depth - 1);
      const auto offsets = plan.host_mirror().group_offsets;
      for (std::uint32_t g = 0; g < depth; ++g) ASSERT_EQ(offsets(g + 1) - offsets(g), width);
    }
}

TEST(Planner, DuplicateDependenciesChangeNothing) {
  const std::vector<Dep> once{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
  std::vector<Dep> thrice;
  for (int r = 0; r < 3; ++r) thrice.insert(thrice.end(), once.rbegin(), once.rend());
  EXPECT_EQ(test::plan(5, once).host_groups(), test::plan(5, thrice).host_groups());
  EXPECT_EQ(test::plan(5, thrice).host_groups(), (Groups{{0}, {1, 2}, {3}, {4}}));
}

TEST(Planner, EmptyGraphs) {
  const auto none = test::plan<std::uint32_t>(0, {});
  EXPECT_EQ(none.group_count(), 0u);
  EXPECT_EQ(none.global_barriers(), 0u);
  EXPECT_EQ(none.wave_count(), 0u);
  ASSERT_EQ(none.group_offsets.extent(0), 1u);

  auto e = expect_plan_error(ErrorKind::InvalidWave, [] { test::plan<std::uint32_t>(0, {{3, 4}, {0, 0}}); });
  EXPECT_EQ(e.wave_count(), 0u);
  EXPECT_EQ(e.before(), 3u);
  EXPECT_EQ(e.after(), 4u);

  const auto one = test::plan<std::uint32_t>(1, {});
  EXPECT_EQ(one.host_groups(), (Groups{{0}}));
}

TEST(Planner, FirstOffenderInInputOrderIsReported) {
  // Many offenders, spread so that every thread's share of the validation
  // sees some: the reported one is always the first in input order.
  for (std::uint32_t first_bad : {0u, 1u, 777u, 4095u, 9999u}) {
    std::vector<Dep> deps;
    for (std::uint32_t i = 0; i < 10000; ++i) deps.push_back({i, i + 1});  // valid chain
    for (std::uint32_t i = first_bad + 1; i < 10000; i += 3) deps[i] = {i, i};  // later self edges
    deps[first_bad] = {first_bad, 20000 + first_bad};                          // first: invalid
    auto e = expect_plan_error(ErrorKind::InvalidWave, [&] { test::plan(10001, deps); });
    EXPECT_EQ(e.before(), first_bad);
    EXPECT_EQ(e.after(), 20000u + first_bad);
    deps[first_bad] = {5, 5};  // now the first offender is a self edge
    for (std::uint32_t i = first_bad + 2; i < 10000; i += 5) deps[i] = {i, 50000};
    auto s = expect_plan_error(ErrorKind::SelfDependency, [&] { test::plan(10001, deps); });
    EXPECT_EQ(s.wave(), 5u);
  }
}

// Rule K's parts: contiguous id ranges that cover the waves, each wave owned
// by the part whose range holds it (the owner is a multiply and a shift), also
// beyond 2^32 waves.
TEST(Planner, HostKahnPartsCoverTheWavesInOrder) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 17ull, 1000ull, 1048579ull, 4294967295ull,
                          4294967296ull, 21474836487ull})
    for (std::uint64_t parts : {1ull, 2ull, 3ull, 7ull, 16ull, 64ull, 127ull}) {
      if (parts > n) continue;
      const plan::detail::WaveOwners owners(n, parts);
      EXPECT_EQ(owners.begin(0), 0u);
      EXPECT_EQ(owners.begin(parts), n);
      for (std::uint64_t p = 0; p < parts; ++p) {
        const std::uint64_t b = owners.begin(p), e = owners.begin(p + 1);
        ASSERT_LE(b, e) << n << " waves, part " << p << " of " << parts;
        EXPECT_LE(e - b, 2 * (n / parts) + 2) << n << " waves, part " << p << " of " << parts;
        if (b == e) continue;
        EXPECT_EQ(owners.owner(b), p) << n << " waves, part " << p << " of " << parts;
        EXPECT_EQ(owners.owner(e - 1), p) << n << " waves, part " << p << " of " << parts;
      }
    }
}

// Rule K's walk with one-target outboxes: every send stops at a full box,
// often inside a wave's row, so a layer takes many rounds; the levels and
// layer sizes are still the reference's (on one thread: the serial walk).
TEST(Planner, HostKahnWithTinyOutboxesGivesTheReferenceLevels) {
  using Space = TEST_EXECSPACE;
  using Ord = std::uint32_t;
  using DepView = Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const auto g = generate::layered(300, 12, 3, 20, true, 5);
  const auto deps = generate::narrowed<Ord>(g);
  const std::uint64_t waves = g.wave_count;
  Kokkos::View<Dep*, Space::memory_space> device("deps", deps.size());
  Kokkos::deep_copy(device, DepView(deps.data(), deps.size()));
  DependencyGraphStorage<Space> storage;
  const auto graph = build_dependency_graph(
      Space(), waves, Kokkos::View<const Dep*, Space::memory_space>(device), storage);
  Kokkos::View<Ord*, Space::memory_space> remaining("remaining", waves), stash("stash", waves),
      level("level", waves), sizes("sizes", waves);
  count_in_degrees(Space(), graph, remaining);
  plan::detail::HostKahnBuffers buffers(1, 0);
  buffers.parts = plan::detail::host_kahn_threads(Space(), waves);
  buffers.box_size = 1;
  Kokkos::View<Ord*, Space::memory_space> outbox("outbox", buffers.parts * buffers.parts);
  const auto walk = plan::detail::host_kahn(
      Space(), graph, plan::detail::host_kahn_views(remaining, stash, level, sizes, outbox),
      buffers, /*narrow_frontier=*/8);
  const ReferencePlan ref = reference_kahn(waves, deps);
  ASSERT_EQ(walk.groups, ref.group_count()) << g.description;
  EXPECT_EQ(walk.scheduled, waves);
  const auto got_level = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level);
  const auto got_sizes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sizes);
  for (std::size_t l = 0; l < ref.group_count(); ++l) {
    EXPECT_EQ(got_sizes(l), ref.group_offsets[l + 1] - ref.group_offsets[l]) << "layer " << l;
    for (std::uint64_t i = ref.group_offsets[l]; i < ref.group_offsets[l + 1]; ++i)
      ASSERT_EQ(got_level(ref.waves[i]), l) << "wave " << ref.waves[i];
  }
}

TEST(Planner, CountsThatDoNotFitTheTypesAreCountOverflow) {
  using Small = std::uint16_t;
  // wave count beyond a 16-bit ordinal
  auto w = expect_plan_error(ErrorKind::CountOverflow, [] {
    PlannerScratch<TEST_EXECSPACE, Small, std::uint32_t> scratch;
    const std::vector<WaveDependency<Small>> deps;
    plan_barriers(TEST_EXECSPACE(), 70000, deps.data(), 0, scratch);
  });
  EXPECT_EQ(w.field(), "wave count");
  // dependency count beyond a 16-bit offset
  auto d = expect_plan_error(ErrorKind::CountOverflow, [] {
    PlannerScratch<TEST_EXECSPACE, std::uint32_t, Small> scratch;
    std::vector<Dep> deps(70000, Dep{0, 1});
    plan_barriers(TEST_EXECSPACE(), 2, deps.data(), deps.size(), scratch);
  });
  EXPECT_EQ(d.field(), "dependency count");
  // the largest count that fits still plans
  PlannerScratch<TEST_EXECSPACE, std::uint32_t, Small> scratch;
  std::vector<Dep> deps(65535, Dep{0, 1});
  const auto plan = plan_barriers(TEST_EXECSPACE(), 2, deps.data(), deps.size(), scratch);
  EXPECT_EQ(plan.host_groups(), (Groups{{0}, {1}}));
}

// Every step at the limits of 16-bit types, in every mode (and device-paced):
// the most edges a 16-bit offset holds, all out of one hub (walked in team
// strides by the device-paced step, where an Offset-typed stride never ended
// on CUDA); the most waves a 16-bit ordinal holds; and the deepest graph they
// allow, levels up to 65,534, in the modes that walk it in one launch (65,535
// launches or host round trips per mode would dominate the suite).
TEST(Planner, EveryModeAtTheLimitsOfSixteenBitTypes) {
  using Small = std::uint16_t;
  std::vector<PlanOptions> variants;
  for (PlanMode mode : {PlanMode::Automatic, PlanMode::Sparse, PlanMode::Dense, PlanMode::Hybrid,
                        PlanMode::Fused, PlanMode::Persistent}) {
    PlanOptions o;
    o.mode = mode;
    variants.push_back(o);
  }
  PlanOptions paced;
  paced.mode = PlanMode::Sparse;
  paced.layers_per_sync = 64;
  variants.push_back(paced);

  std::vector<Dep> hub;  // 65,535 edges onto 1,000 targets, duplicates included
  for (std::uint32_t e = 0; e < 65535; ++e) hub.push_back(Dep{0, 1 + e % 1000});
  std::vector<WaveDependency<Small>> star;  // 65,535 waves: wave 0 before all others
  for (std::uint32_t w = 1; w < 65535; ++w) star.push_back({Small(0), Small(w)});
  std::vector<WaveDependency<Small>> chain;  // 65,535 waves in 65,535 layers
  for (std::uint32_t w = 0; w + 1 < 65535; ++w) chain.push_back({Small(w), Small(w + 1)});
  for (const PlanOptions& options : variants) {
    const char* name = plan_mode_name(options.mode);
    PlannerScratch<TEST_EXECSPACE, std::uint32_t, Small> wide_offsets;
    const auto h = plan_barriers(TEST_EXECSPACE(), 1001, hub.data(), hub.size(), wide_offsets, options);
    EXPECT_EQ(h.group_count(), 2u) << name;
    EXPECT_EQ(h.host_mirror().group_offsets(1), 1u) << name;
    PlannerScratch<TEST_EXECSPACE, Small, Small> small;
    const auto s = plan_barriers(TEST_EXECSPACE(), 65535, star.data(), star.size(), small, options);
    EXPECT_EQ(s.group_count(), 2u) << name;
    EXPECT_EQ(s.host_mirror().waves(65534), 65534u) << name;
    // (persistent on a CPU backend: a spin barrier among host threads per
    // layer, slow on an oversubscribed CI machine; its depth is tested on devices)
    constexpr bool host_backend =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, TEST_EXECSPACE::memory_space>::accessible;
    const bool one_launch_per_walk =
        options.layers_per_sync == 0 &&
        (options.mode == PlanMode::Automatic || options.mode == PlanMode::Fused ||
         (options.mode == PlanMode::Persistent && !host_backend));
    if (!one_launch_per_walk) continue;
    const auto c = plan_barriers(TEST_EXECSPACE(), 65535, chain.data(), chain.size(), small, options);
    EXPECT_EQ(c.group_count(), 65535u) << name;
    EXPECT_EQ(c.host_mirror().level(65534), 65534u) << name;
  }
}

TEST(Planner, FailedAllocationIsStorageReserveFailed) {
  // 2^56 waves with 64-bit ordinals: 512 PiB for the first buffer alone, more
  // than a 48- or 57-bit virtual address space, so the allocation fails even
  // where the host overcommits (vm.overcommit_memory=1, as on the GPU machine:
  // 2^40 waves, 8 TiB a buffer, were mapped there, then touched until the test
  // was killed). Device allocations of that size fail the same way.
  const std::uint64_t waves = std::uint64_t(1) << 56;
  PlannerScratch<TEST_EXECSPACE, std::uint64_t, std::uint64_t> scratch;
  auto e = expect_plan_error(ErrorKind::StorageReserveFailed, [&] {
    const std::vector<WaveDependency<std::uint64_t>> deps;
    plan_barriers(TEST_EXECSPACE(), waves, deps.data(), 0, scratch);
  });
  EXPECT_FALSE(e.field().empty());
  EXPECT_GE(e.requested(), waves);
  EXPECT_FALSE(e.message().empty());
  // The scratch is still usable afterwards.
  const std::vector<WaveDependency<std::uint64_t>> deps{{0, 1}};
  EXPECT_EQ(plan_barriers(TEST_EXECSPACE(), 2, deps.data(), 1, scratch).global_barriers(), 1u);
}

// A list too large to allocate for and invalid as well is reported as
// invalid, as the validation pass comes before any plan buffer (rule T's
// checked pass allocates first, and falls back where that fails).
TEST(Planner, InvalidListIsReportedBeforeAFailedAllocation) {
  const std::uint64_t waves = std::uint64_t(1) << 56;
  PlannerScratch<TEST_EXECSPACE, std::uint64_t, std::uint64_t> scratch;
  const std::vector<WaveDependency<std::uint64_t>> deps{{0, 1}, {1, waves}};
  expect_plan_error(ErrorKind::InvalidWave, [&] {
    plan_barriers(TEST_EXECSPACE(), waves, deps.data(), deps.size(), scratch);
  });
}

TEST(Planner, SixtyFourBitOrdinalsGiveTheSamePlan) {
  const auto g = generate::random_dag(3000, 12000, 7);
  const auto narrow = plan_barriers(TEST_EXECSPACE(), g.wave_count,
                                    generate::narrowed<std::uint32_t>(g).data(),
                                    g.dependencies.size());
  const auto wide =
      plan_barriers(TEST_EXECSPACE(), g.wave_count, g.dependencies.data(), g.dependencies.size());
  EXPECT_EQ(narrow.host_groups(), wide.host_groups());
  EXPECT_GT(narrow.group_count(), 10u);
}

TEST(Planner, PlansFromDeviceViewsAndFromABuiltGraph) {
  const auto g = generate::layered(50, 40, 3, 20, true, 11);
  const auto deps = generate::narrowed<std::uint32_t>(g);
  using DepView = Kokkos::View<Dep*, TEST_EXECSPACE::memory_space>;
  DepView device("deps", deps.size());
  Kokkos::deep_copy(device, Kokkos::View<const Dep*, Kokkos::HostSpace,
                                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>(deps.data(), deps.size()));
  const auto ref = reference_kahn(g.wave_count, deps);
  EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), g.wave_count, device), ref));

  PlannerScratch<TEST_EXECSPACE> scratch;
  const auto graph = make_dependency_graph(TEST_EXECSPACE(), g.wave_count,
                                           Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device));
  EXPECT_EQ(graph.wave_count(), g.wave_count);
  EXPECT_EQ(graph.dependency_count(), deps.size());
  EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), graph, scratch), ref));
  EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), graph, scratch), ref));  // graph reusable
}

TEST(PlannerModes, EachForcedModeRunsItsSteps) {
  const auto g = generate::layered(300, 20, 2, 20, true, 5);
  const auto deps = generate::narrowed<std::uint32_t>(g);
  const auto ref = reference_kahn(g.wave_count, deps);
  for (PlanMode mode : {PlanMode::Sparse, PlanMode::Dense, PlanMode::Fused}) {
    PlanStatistics stats;
    PlanOptions options;
    options.mode = mode;
    options.statistics = &stats;
    PlannerScratch<TEST_EXECSPACE> scratch;
    const auto plan = plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(),
                                    scratch, options);
    EXPECT_TRUE(same_plan(plan, ref)) << plan_mode_name(mode);
    EXPECT_EQ(stats.sparse_layers, mode == PlanMode::Sparse ? 20u : 0u) << plan_mode_name(mode);
    EXPECT_EQ(stats.dense_layers, mode == PlanMode::Dense ? 20u : 0u) << plan_mode_name(mode);
    EXPECT_EQ(stats.fused, mode == PlanMode::Fused) << plan_mode_name(mode);
    EXPECT_EQ(stats.sources, 300u);
  }
}

// A forced bottom-up walk scans every wave per layer: on a deep graph its
// work is bounded by PlanPolicy::dense_scan_budget graph sizes, after which
// the layers run top-down (the plan is the same).
TEST(PlannerModes, ForcedDenseOnADeepGraphStaysBounded) {
  auto chain = generate::chain(20000);
  const auto cd = generate::narrowed<std::uint32_t>(chain);
  PlanStatistics stats;
  PlanOptions options;
  options.mode = PlanMode::Dense;
  options.statistics = &stats;
  const auto plan = plan_barriers(TEST_EXECSPACE(), chain.wave_count, cd.data(), cd.size(), options);
  EXPECT_EQ(plan.group_count(), 20000u);
  const auto budget = PlanPolicy::standard().dense_scan_budget;
  // (waves + edges) * budget scans, one wave-count scan per dense layer.
  EXPECT_EQ(stats.dense_layers, budget * (20000u + 19999u) / 20000u);
  EXPECT_EQ(stats.dense_budget_spent_at_layer, stats.dense_layers);
  EXPECT_EQ(stats.sparse_layers, 20000u - stats.dense_layers);
  // A shallow wide graph stays bottom-up throughout.
  const auto g = generate::layered(300, 20, 2, 20, true, 5);
  const auto gd = generate::narrowed<std::uint32_t>(g);
  plan_barriers(TEST_EXECSPACE(), g.wave_count, gd.data(), gd.size(), options);
  EXPECT_EQ(stats.dense_layers, 20u);
  EXPECT_EQ(stats.dense_budget_spent_at_layer, 0u);
}

// Rule P7 (issue 43, item 6: spin-waiting under load): on a host backend of
// several threads a narrow top-down layer runs on one thread instead of
// forking the pool, whose join waits for every thread (on a loaded machine,
// for descheduled ones). The plan is the same with the rule on and off, in
// every layer-walking mode; the statistic counts exactly the narrow top-down
// layers there, and is 0 on one thread, on a device and with the rule off.
TEST(PlannerModes, NarrowLayersRunOnOneThreadWithTheSamePlan) {
  const auto space = TEST_EXECSPACE();
  const std::uint64_t threads = static_cast<std::uint64_t>(space.concurrency());
  const bool pool_host = plan::detail::has_one_thread_step_space<TEST_EXECSPACE>() && threads > 1;
  // Narrow below this many waves (a layer this wide keeps the pool).
  const std::uint64_t narrow = PlanPolicy::standard().one_thread_max_frontier_per_thread * threads;
  // A long chain (every layer one wave), and a graph wide then narrow: a
  // source releases `narrow` waves (one layer exactly at the threshold), all
  // of which a sink waits for, then a chain of 300 (ids in topological order
  // reversed, so that no mode levels them in one pass).
  // (On a device or one thread the rule never fires, and `narrow` counts the
  // device's whole concurrency: tens of millions of waves on a GPU. A wide
  // layer of 4,096 waves then shows the same.)
  std::vector<Dep> wide_narrow;
  const std::uint32_t wide = static_cast<std::uint32_t>(pool_host ? narrow : 4096), tail = 300;
  const std::uint32_t waves = 2 + wide + tail;
  const auto id = [&](std::uint32_t i) { return waves - 1 - i; };
  for (std::uint32_t i = 1; i <= wide; ++i) wide_narrow.push_back({id(0), id(i)});
  for (std::uint32_t i = 1; i <= wide; ++i) wide_narrow.push_back({id(i), id(wide + 1)});
  for (std::uint32_t i = wide + 1; i + 1 < waves; ++i) wide_narrow.push_back({id(i), id(i + 1)});
  const auto chain = generate::chain(3000);
  const auto chain_deps = generate::narrowed<std::uint32_t>(chain);
  struct Case {
    const char* name;
    std::uint64_t waves;
    const std::vector<Dep>* deps;
    std::uint64_t wide_layers;  ///< top-down layers of at least `narrow` waves
  };
  for (const Case& c : {Case{"chain 3000", chain.wave_count, &chain_deps, 0},
                        Case{"wide then narrow", waves, &wide_narrow, 1}}) {
    const auto ref = reference_kahn(c.waves, *c.deps);
    for (PlanMode mode : {PlanMode::Sparse, PlanMode::Dense, PlanMode::Hybrid}) {
      for (const bool rule : {true, false}) {
        PlanStatistics stats;
        PlanOptions options;
        options.mode = mode;
        options.one_thread_layers = rule;
        options.statistics = &stats;
        PlannerScratch<TEST_EXECSPACE> scratch;
        const auto plan = plan_barriers(space, c.waves, c.deps->data(), c.deps->size(), scratch,
                                        options);
        const std::string what = std::string(c.name) + ", " + plan_mode_name(mode) +
                                 (rule ? ", rule P7 on" : ", rule P7 off");
        EXPECT_TRUE(same_plan(plan, ref)) << what;
        // The bottom-up layers are never narrow steps (they scan every wave).
        const std::uint64_t top_down = stats.sparse_layers;
        // (Only a forced Sparse walk runs the wide layer top-down.)
        const std::uint64_t wide_top_down = mode == PlanMode::Sparse ? c.wide_layers : 0;
        const std::uint64_t expected = rule && pool_host ? top_down - wide_top_down : 0;
        EXPECT_EQ(stats.one_thread_steps, expected) << what;
        if (mode == PlanMode::Sparse) EXPECT_GT(top_down, 0u) << what;
      }
    }
  }
}

// Persistent: every layer in one launch of a co-resident league, the teams
// meeting on a tally word between layers; the same plan as the reference.
TEST(PlannerModes, PersistentRunsEveryLayerInOneLaunch) {
  const auto limits = DeviceLimits::query(TEST_EXECSPACE());
  // The fan-out's hub releases 5,000 targets from one thread: all but
  // `kept` take a slot of their own on the tally word.
  for (const auto& g : {generate::layered(300, 20, 2, 20, true, 5), generate::sweep3d(12, 10, 8),
                        generate::chain(3000), generate::fanout(5000)}) {
    const auto deps = generate::narrowed<std::uint32_t>(g);
    PlanStatistics stats;
    PlanOptions options;
    options.mode = PlanMode::Persistent;
    options.statistics = &stats;
    PlannerScratch<TEST_EXECSPACE> scratch;
    const auto plan = plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(),
                                    scratch, options);
    EXPECT_TRUE(same_plan(plan, reference_kahn(g.wave_count, deps))) << g.description;
    EXPECT_TRUE(stats.persistent) << g.description;
    EXPECT_EQ(stats.persistent_from_layer, 0u) << g.description;
    EXPECT_GE(stats.persistent_teams, 1u) << g.description;
    // On a device, at most one team per multiprocessor (persistent_walk_league).
    if (limits.multiprocessor_count > 0)
      EXPECT_LE(stats.persistent_teams, limits.multiprocessor_count) << g.description;
    EXPECT_EQ(stats.sparse_layers + stats.dense_layers + stats.paced_batches, 0u) << g.description;
  }
  // A cycle behind the persistent layers is still a Cycle with its count.
  const auto cycle = expect_plan_error(ErrorKind::Cycle, [] {
    PlanOptions options;
    options.mode = PlanMode::Persistent;
    const std::vector<Dep> deps{{0, 1}, {1, 2}, {3, 4}, {4, 3}, {4, 5}};
    plan_barriers(TEST_EXECSPACE(), 6, deps.data(), deps.size(), options);
  });
  EXPECT_EQ(cycle.unscheduled_waves(), 3u);
}

TEST(PlannerModes, PersistentWalkLeagueIsOneTeamPerMultiprocessorAtMost) {
  DeviceLimits gpu;
  gpu.multiprocessor_count = 132;
  EXPECT_EQ(plan::detail::persistent_walk_league(396, gpu), 132u);
  EXPECT_EQ(plan::detail::persistent_walk_league(132, gpu), 132u);
  EXPECT_EQ(plan::detail::persistent_walk_league(100, gpu), 100u);  // fewer resident: all of them
  DeviceLimits host;  // no multiprocessors: a team per thread, as resident
  EXPECT_EQ(plan::detail::persistent_walk_league(16, host), 16u);
}

TEST(PlannerModes, AutomaticFusesADeepChainAndGoesBottomUpOnlyOnADenseStart) {
  PlanStatistics stats;
  PlanOptions options;
  options.statistics = &stats;
  auto chain = generate::chain(5000);
  const auto cd = generate::narrowed<std::uint32_t>(chain);
  const auto plan = plan_barriers(TEST_EXECSPACE(), chain.wave_count, cd.data(), cd.size(), options);
  EXPECT_EQ(plan.group_count(), 5000u);
  EXPECT_TRUE(stats.fused);
  EXPECT_LE(stats.fused_from_layer, 2u);
  EXPECT_FALSE(stats.first_decision.empty());
  // Device backends contract the chain first (host backends walk it).
  constexpr bool device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                      TEST_EXECSPACE::memory_space>::accessible;
  EXPECT_EQ(stats.chained_waves, device ? 4999u : 0u) << stats.first_decision;

  // 90 % of the waves are sources (ids not in topological order): the first
  // step is bottom-up.
  std::vector<WaveDependency<std::uint32_t>> dense;
  for (std::uint32_t i = 0; i < 10000; ++i) {
    dense.push_back({10000 + i, i});
    dense.push_back({50000 + i, i});
  }
  plan_barriers(TEST_EXECSPACE(), 100000, dense.data(), dense.size(), options);
  EXPECT_GE(stats.dense_layers, 1u) << stats.first_decision;

  // Half of them sources: a mixed-density start (rule 6) stays top-down, as
  // the reverse CSR is a second copy of the graph (PlanPolicy::choose_step).
  auto wide = generate::layered(50000, 2, 1, 0, true, 9);
  const auto wd = generate::narrowed<std::uint32_t>(wide);
  const auto mixed = plan_barriers(TEST_EXECSPACE(), wide.wave_count, wd.data(), wd.size(), options);
  EXPECT_EQ(mixed.group_count(), 2u);
  EXPECT_EQ(stats.dense_layers, 0u) << stats.first_decision;
}

// Planner policy rule T: where the ids are a topological order (detected on
// the device, in the CSR's count pass or over a given CSR), host backends
// level the graph in one pass; elsewhere the layers are walked. The plan is
// the reference's either way.
TEST(PlannerModes, TopologicalIdsAreLevelledInOnePass) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                   TEST_EXECSPACE::memory_space>::accessible;
  auto sweep = generate::sweep3d(12, 10, 8);
  auto shuffled = sweep;
  generate::shuffle_ids(shuffled, 11);
  // The same topological ids, the list in no order: levelled over the CSR.
  auto scrambled = sweep;
  // (every other dependency of the first half swapped with its mirror: over
  // the whole list this loop would reverse it, which is in order backwards)
  scrambled.description += ", list reversed in pairs";
  for (std::size_t i = 0; 2 * i + 1 < scrambled.dependencies.size(); i += 2)
    std::swap(scrambled.dependencies[i], scrambled.dependencies[scrambled.dependencies.size() - 1 - i]);
  const std::vector<WaveDependency<std::uint32_t>> one_back{{0, 2}, {2, 3}, {1, 3}, {4, 1}, {3, 5}};
  generate::GeneratedGraph backward;
  backward.wave_count = 6;
  backward.description = "one backward dependency";
  for (const auto& d : one_back) backward.dependencies.push_back({d.before, d.after});
  // The same list read backwards (sorted by `before` nonincreasing): levelled
  // along the list in reverse, without a CSR.
  auto reversed = sweep;
  reversed.description += ", list reversed";
  std::reverse(reversed.dependencies.begin(), reversed.dependencies.end());
  for (const auto* g : {&sweep, &reversed, &scrambled, &shuffled, &backward}) {
    const bool topological = g == &sweep || g == &reversed || g == &scrambled;
    const auto deps = generate::narrowed<std::uint32_t>(*g);
    const auto ref = reference_kahn(g->wave_count, deps);
    PlanStatistics stats;
    PlanOptions options;
    options.statistics = &stats;
    PlannerScratch<TEST_EXECSPACE> scratch;
    EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), g->wave_count, deps.data(), deps.size(),
                                        scratch, options),
                          ref)) << g->description;
    EXPECT_EQ(stats.topological, host && topological) << g->description;
    if (stats.topological) {
      EXPECT_EQ(stats.sources, ref.group_offsets[1]);
      EXPECT_EQ(stats.sparse_layers + stats.dense_layers, 0u);
      // A list sorted by one endpoint is levelled as it is, without a CSR.
      EXPECT_EQ(stats.first_decision.find("no CSR") != std::string::npos,
                g == &sweep || g == &reversed)
          << stats.first_decision;
    }
    // From a given CSR the order is checked over the rows.
    Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", deps.size());
    Kokkos::deep_copy(device, Kokkos::View<const Dep*, Kokkos::HostSpace,
                                           Kokkos::MemoryTraits<Kokkos::Unmanaged>>(deps.data(), deps.size()));
    const auto graph = make_dependency_graph(TEST_EXECSPACE(), g->wave_count,
                                             Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device));
    EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), graph, scratch, options), ref)) << g->description;
    EXPECT_EQ(stats.topological, host && topological) << g->description;
    // A forced mode walks the layers.
    options.mode = PlanMode::Sparse;
    EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), graph, scratch, options), ref)) << g->description;
    EXPECT_FALSE(stats.topological);
  }
}

// What planning `deps` in `mode` gives, as one text: the reference's plan,
// another plan, or the PlanError's message (`plan(options)` plans it).
template <class Plan>
std::string plan_outcome(PlanMode mode, PlanStatistics* stats, std::uint64_t n,
                         const std::vector<Dep>& deps, const Plan& plan) {
  PlanOptions options;
  options.mode = mode;
  options.statistics = stats;
  try {
    return same_plan(plan(options), reference_kahn(n, deps)) ? "the reference's plan"
                                                             : "a plan that is not the reference's";
  } catch (const PlanError& e) {
    return e.what();
  }
}

// Rule T over a list on few host threads (PlanPolicy::
// check_while_levelling): the level pass checks the list as it reads it
// instead of a validation pass first. A list that breaks the bet at its last
// dependency (out of order, outside the graph, a self dependency, a backward
// edge) is planned, or refused, exactly as a forced mode that validates first
// plans or refuses it.
TEST(PlannerModes, OrderedListsAreCheckedWhileLevelled) {
  using Space = TEST_EXECSPACE;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible;
  const bool checked =
      host && PlanPolicy::standard().check_while_levelling(
                  std::uint64_t(Space().concurrency()));
  const auto sweep = generate::sweep3d(10, 9, 7);
  const auto base = generate::narrowed<std::uint32_t>(sweep);
  const std::uint32_t n = std::uint32_t(sweep.wave_count);
  struct Variant {
    const char* what;
    std::vector<Dep> deps;
  };
  std::vector<Variant> variants{{"in order", base}};
  for (const auto& [what, last] :
       std::vector<std::pair<const char*, Dep>>{{"last out of order", Dep{0, n - 1}},
                                                {"last outside the graph", Dep{n - 2, n}},
                                                {"last a self dependency", Dep{n - 1, n - 1}},
                                                {"last backward", Dep{n - 1, n - 2}}}) {
    variants.push_back({what, base});
    variants.back().deps.push_back(last);
  }
  for (const auto& v : variants) {
    const auto run = [&](PlanMode mode, PlanStatistics* stats) {
      return plan_outcome(mode, stats, n, v.deps, [&](const PlanOptions& options) {
        PlannerScratch<Space> scratch;
        return plan_barriers(Space(), n, v.deps.data(), v.deps.size(), scratch, options);
      });
    };
    PlanStatistics stats;
    const std::string automatic = run(PlanMode::Automatic, &stats);
    EXPECT_EQ(automatic, run(PlanMode::Sparse, nullptr)) << v.what;
    if (v.deps.size() == base.size()) {
      EXPECT_EQ(automatic, "the reference's plan");
      EXPECT_EQ(stats.first_decision.find("checked as it was levelled") != std::string::npos,
                checked)
          << stats.first_decision;
    }
  }
}

// Rule T over a caller's CSR on few host threads (PlanPolicy::
// check_while_levelling): the level pass checks each target above its row as
// it reads it, instead of a reduction over the CSR first. A CSR that breaks
// the bet late (one backward edge in row 620 of 630), or whose backward edge
// closes a cycle, is planned, or refused, exactly as a forced mode plans or
// refuses it; shuffled ids break it at once.
TEST(PlannerModes, CallerCsrIsCheckedWhileLevelled) {
  using Space = TEST_EXECSPACE;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible;
  const bool checked =
      host && PlanPolicy::standard().check_while_levelling(
                  std::uint64_t(Space().concurrency()));
  const auto sweep = generate::sweep3d(10, 9, 7);  // id = x + 10 y + 90 z
  const auto base = generate::narrowed<std::uint32_t>(sweep);
  const std::uint32_t n = std::uint32_t(sweep.wave_count);
  auto shuffled = generate::random_dag(n, 3 * n, 7);
  generate::shuffle_ids(shuffled, 3);
  struct Variant {
    const char* what;
    std::vector<Dep> deps;
    bool topological;
  };
  std::vector<Variant> variants{{"in order", base, true},
                                {"shuffled ids", generate::narrowed<std::uint32_t>(shuffled), false}};
  // (0,8,6) -> (9,7,6): neither reaches the other in the sweep
  variants.push_back({"one backward edge late", base, false});
  variants.back().deps.push_back(Dep{620, 619});
  // the corner waits for (8,8,6), which now waits for it
  variants.push_back({"a backward edge closing a cycle", base, false});
  variants.back().deps.push_back(Dep{n - 1, n - 2});
  for (const auto& v : variants) {
    Kokkos::View<Dep*, Space::memory_space> device("deps", v.deps.size());
    Kokkos::deep_copy(device, Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  v.deps.data(), v.deps.size()));
    const auto graph =
        make_dependency_graph(Space(), n, Kokkos::View<const Dep*, Space::memory_space>(device));
    const auto run = [&](PlanMode mode, PlanStatistics* stats) {
      return plan_outcome(mode, stats, n, v.deps, [&](const PlanOptions& options) {
        PlannerScratch<Space> scratch;
        return plan_barriers(Space(), graph, scratch, options);
      });
    };
    PlanStatistics stats;
    const std::string automatic = run(PlanMode::Automatic, &stats);
    EXPECT_EQ(automatic, run(PlanMode::Sparse, nullptr)) << v.what;
    EXPECT_EQ(stats.topological, host && v.topological) << v.what;
    if (v.topological) EXPECT_EQ(automatic, "the reference's plan") << v.what;
    EXPECT_EQ(stats.first_decision.find("checking the ids") != std::string::npos,
              checked && v.topological)
        << v.what << ": " << stats.first_decision;
  }
}

// Levels of each wave from the reference plan.
std::vector<std::uint64_t> reference_levels(const ReferencePlan& ref, std::uint64_t waves) {
  std::vector<std::uint64_t> level(waves, 0);
  for (std::size_t g = 0; g < ref.group_count(); ++g)
    for (std::size_t i = ref.group_offsets[g]; i < ref.group_offsets[g + 1]; ++i)
      level[ref.waves[i]] = g;
  return level;
}

// Rule T's pass over a CSR (plan::detail::csr_push_levels), one byte wide first
// where it is lent a byte per wave: the levels and the waves per level equal
// the reference's and the full-width pass's, checked or not, on every
// backend — a shallow sweep (stays narrow), a fan-out, a chain (level 255 at
// wave 255: levels again at full width from the start), a 200 x 200 sweep
// (level 255 at wave 11,399, 22,000 edges in: the bytes copied over) and a
// layered DAG (30 x 100) with a 300-wave chain after it (the copy again); a backward
// edge before and after that point makes the checked pass invalid.
TEST(PlannerModes, CsrPushLevelsOneByteWideFirstEqualTheReference) {
  using Space = TEST_EXECSPACE;
  using Mem = Space::memory_space;
  auto late_chain = generate::layered(100, 30, 4, 10, /*shuffle_ids=*/false, 5);
  late_chain.description += ", then a chain of 300";
  for (std::uint64_t w = 3000; w < 3300; ++w) late_chain.dependencies.push_back({w - 1, w});
  late_chain.wave_count = 3300;
  const std::vector<generate::GeneratedGraph> graphs{
      generate::sweep3d(12, 10, 8), generate::fanout(5000), generate::chain(3000),
      generate::sweep2d(200, 200), late_chain};
  for (const auto& g : graphs) {
    for (const int backward : {-1, 100, int(g.wave_count) - 2}) {
      auto deps = generate::narrowed<std::uint32_t>(g);
      if (backward >= 0) deps.push_back(Dep{std::uint32_t(backward + 1), std::uint32_t(backward)});
      const std::string what =
          g.description + (backward < 0 ? "" : ", a backward edge at wave " + std::to_string(backward));
      Kokkos::View<Dep*, Mem> device("deps", deps.size());
      Kokkos::deep_copy(device, Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                    deps.data(), deps.size()));
      const auto graph = make_dependency_graph(Space(), g.wave_count,
                                               Kokkos::View<const Dep*, Mem>(device));
      std::vector<std::uint64_t> expected_level, expected_count;
      if (backward < 0) {
        const auto ref = reference_kahn(g.wave_count, deps);
        expected_level = reference_levels(ref, g.wave_count);
        for (std::size_t l = 0; l < ref.group_count(); ++l)
          expected_count.push_back(ref.group_offsets[l + 1] - ref.group_offsets[l]);
      }
      for (const bool checked : {true, false}) {
        if (backward >= 0 && !checked) continue;  // unchecked takes topological ids only
        for (const bool narrow_first : {true, false}) {
          Kokkos::View<std::uint32_t*, Mem> level("level", g.wave_count), count("count", g.wave_count);
          Kokkos::View<std::uint8_t*, Mem> narrow("narrow", narrow_first ? g.wave_count : 0);
          const plan::detail::CheckedLevels pass =
              checked ? plan::detail::csr_push_levels<true>(Space(), graph, level, count, narrow)
                      : plan::detail::csr_push_levels<false>(Space(), graph, level, count, narrow);
          const std::string how = what + (checked ? ", checked" : "") +
                                  (narrow_first ? ", one byte first" : ", full width");
          if (backward >= 0) {
            EXPECT_FALSE(pass.valid) << how;
            continue;
          }
          ASSERT_TRUE(pass.valid) << how;
          ASSERT_EQ(pass.levels.groups, expected_count.size()) << how;
          EXPECT_EQ(pass.levels.sources, expected_count[0]) << how;
          const auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level);
          const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), count);
          EXPECT_EQ(std::vector<std::uint64_t>(l.data(), l.data() + l.extent(0)), expected_level) << how;
          EXPECT_EQ(std::vector<std::uint64_t>(c.data(), c.data() + expected_count.size()), expected_count)
              << how;
        }
      }
    }
  }
}

// The same through plan_barriers, where the levels outgrow
// plan::detail::narrow_levels_min_bytes (294,000 waves) and the step lends the
// pass the fill cursor's bytes: topological ids give the reference's plan in
// one pass; shuffled ids lose the bet after those bytes were written, and
// the walk that follows gives the reference's plan too.
TEST(PlannerModes, LevelsStepOneByteWideFirstGivesTheReferencePlan) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                   TEST_EXECSPACE::memory_space>::accessible;
  auto ilu = generate::ilu3d(70, 70, 60, 1);
  ASSERT_GT(plan::detail::narrow_levels_bytes(ilu.wave_count, sizeof(std::uint32_t)), 0u);
  auto shuffled = ilu;
  generate::shuffle_ids(shuffled, 9);
  for (const auto* g : {&ilu, &shuffled}) {
    const auto deps = generate::narrowed<std::uint32_t>(*g);
    const auto ref = reference_kahn(g->wave_count, deps);
    Kokkos::View<Dep*, TEST_EXECSPACE::memory_space> device("deps", deps.size());
    Kokkos::deep_copy(device, Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  deps.data(), deps.size()));
    const auto graph = make_dependency_graph(
        TEST_EXECSPACE(), g->wave_count, Kokkos::View<const Dep*, TEST_EXECSPACE::memory_space>(device));
    PlanStatistics stats;
    PlanOptions options;
    options.statistics = &stats;
    PlannerScratch<TEST_EXECSPACE> scratch;
    EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), graph, scratch, options), ref))
        << g->description;
    EXPECT_EQ(stats.topological, host && g == &ilu) << g->description;
    EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), g->wave_count, deps.data(), deps.size(),
                                        scratch, options),
                          ref))
        << g->description << ", from the list";
  }
}

// The ticket-ordered levelling pass over in-edges (plan/detail/ticket_levels.hpp,
// which plan_in_edges runs on devices) on every backend: rows of a lower
// triangular matrix and, mirrored, of an upper one, each equal to the
// reference's levels; past the depth budget it gives up. plan_in_edges gives
// plan_barriers' plan.
TEST(PlannerModes, TicketOrderedPassLevelsTriangularRows) {
  using Space = TEST_EXECSPACE;
  using Mem = Space::memory_space;
  int tested = 0;
  for (const auto& g : {generate::sweep3d(9, 7, 6), generate::ilu3d(6, 5, 4, 0),
                        generate::layered(40, 30, 3, 10, true, 3)}) {
    const auto deps = generate::narrowed<std::uint32_t>(g);
    bool topological = true;
    for (const auto& d : deps) topological = topological && d.before < d.after;
    if (!topological) continue;  // the generator numbered it otherwise
    ++tested;
    const auto ref = reference_kahn(g.wave_count, deps);
    const auto expected = reference_levels(ref, g.wave_count);
    const std::uint64_t depth = ref.group_count() - 1;
    Kokkos::View<std::uint32_t*, Mem> level("level", g.wave_count);
    // The in-edges as rows, diagonal included.
    std::vector<std::vector<std::uint64_t>> rows(g.wave_count);
    for (std::uint64_t w = 0; w < g.wave_count; ++w) rows[w].push_back(w);
    for (const auto& d : deps) rows[d.after].push_back(d.before);
    for (const bool mirrored : {false, true}) {
      // Mirrored: row r of an upper triangular matrix is wave n-1-r.
      const std::uint64_t n = g.wave_count;
      std::vector<int> row_map{0}, entries;
      for (std::uint64_t r0 = 0; r0 < n; ++r0) {
        const std::uint64_t w = mirrored ? n - 1 - r0 : r0;
        for (const auto c : rows[w]) entries.push_back(int(mirrored ? n - 1 - c : c));
        row_map.push_back(int(entries.size()));
      }
      const auto rm = to_device(row_map, "row_map");
      const auto en = to_device(entries, "entries");
      const char* what = mirrored ? "upper" : "lower";
      const auto r = plan::detail::pull_ticket_levels(Space(), rm, en, mirrored, level, depth);
      ASSERT_TRUE(r.finished) << g.description << " " << what;
      EXPECT_EQ(r.groups, ref.group_count()) << g.description;
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level);
      for (std::size_t w = 0; w < n; ++w)
        if (host(w) != expected[w]) {
          ADD_FAILURE() << g.description << " " << what << ": level(" << w << ") = " << host(w)
                        << ", reference " << expected[w];
          break;
        }
      EXPECT_FALSE(plan::detail::pull_ticket_levels(Space(), rm, en, mirrored, level, depth - 1).finished)
          << g.description << " " << what;
      // The public seam gives plan_barriers' plan (on every backend; these
      // graphs are within its depth budget).
      ASSERT_LE(depth, PlanPolicy::standard().ticket_depth_budget());
      PlannerScratch<Space> scratch;
      const auto seam = plan_in_edges(Space(), rm, en, mirrored, scratch);
      ASSERT_TRUE(seam.has_value()) << g.description;
      EXPECT_TRUE(same_plan(*seam, ref)) << g.description << " " << what;
    }
  }
  EXPECT_GE(tested, 2);
}

// plan_in_edges on a matrix deeper than the ticket pass's budget (a
// bidiagonal lower triangle: a chain of 200 rows): a device gives up and
// returns nothing (the caller plans the rows as a list); a host levels it in
// one pass.
TEST(PlannerModes, InEdgePlanGivesUpPastTheDepthBudgetOnDevices) {
  using Mem = TEST_EXECSPACE::memory_space;
  const int n = 200;
  ASSERT_GT(std::uint64_t(n), PlanPolicy::standard().ticket_depth_budget() + 1);
  std::vector<int> row_map{0}, entries;
  for (int r = 0; r < n; ++r) {
    if (r > 0) entries.push_back(r - 1);
    entries.push_back(r);
    row_map.push_back(int(entries.size()));
  }
  const auto rm = to_device(row_map, "row_map");
  const auto en = to_device(entries, "entries");
  PlannerScratch<TEST_EXECSPACE> scratch;
  const auto plan = plan_in_edges(TEST_EXECSPACE(), rm, en, false, scratch);
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  ASSERT_EQ(plan.has_value(), host);
  if (host) EXPECT_EQ(plan->group_count(), std::size_t(n));
}

// Bytes allocated in one memory space while a callback listens, the
// returned plan's Views apart (a Kokkos Tools allocation callback).
struct WorkingAllocations {
  static inline std::string space;
  static inline std::uint64_t bytes = 0, largest = 0;
  static void on_allocate(const Kokkos_Profiling_SpaceHandle handle, const char* label,
                          const void*, const std::uint64_t size) {
    if (space != handle.name) return;
    if (strata::is_plan_view_label(label)) return;
    bytes += size;
    largest = std::max(largest, size);
  }
  template <class F>
  static void count(F&& f) {
    space = TEST_EXECSPACE::memory_space::name();
    bytes = largest = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocate);
    f();
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  }
};

// plan_in_edges with a reused scratch: planning the same shape again, or a
// smaller one, allocates nothing wave-sized beside the returned plan — on a
// host the one-byte levels of its pass included (a matrix whose levels
// outgrow plan::detail::narrow_levels_min_bytes: 2^18 + 5 rows, row i waiting on
// row i/2, 20 levels) — and keeps the scratch's buffers where they are.
TEST(PlannerModes, InEdgePlanReusesItsScratchWithoutAllocating) {
  const std::uint64_t n = (std::uint64_t(1) << 18) + 5;
  ASSERT_GT(plan::detail::narrow_levels_bytes(n, sizeof(std::uint32_t)), 0u);
  std::vector<std::uint32_t> row_map{0}, entries;
  for (std::uint64_t r = 0; r < n; ++r) {
    if (r > 0) entries.push_back(std::uint32_t(r / 2));
    entries.push_back(std::uint32_t(r));
    row_map.push_back(std::uint32_t(entries.size()));
  }
  const auto rm = to_device(row_map, "row_map");
  const auto en = to_device(entries, "entries");
  const auto small_rm = Kokkos::subview(rm, std::make_pair(std::size_t(0), std::size_t(n / 2 + 1)));
  using Scratch = PlannerScratch<TEST_EXECSPACE, std::uint32_t, std::uint32_t>;
  Scratch scratch;
  const auto first = plan_in_edges(TEST_EXECSPACE(), rm, en, false, scratch);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->group_count(), 20u);
  const auto pointers = buffer_pointers(scratch);
  for (const bool smaller : {false, true}) {
    std::optional<BarrierPlan<TEST_EXECSPACE, std::uint32_t>> again;
    WorkingAllocations::count([&] {
      again = smaller ? plan_in_edges(TEST_EXECSPACE(), small_rm, en, false, scratch)
                      : plan_in_edges(TEST_EXECSPACE(), rm, en, false, scratch);
    });
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->group_count(), smaller ? 19u : 20u);
    EXPECT_LT(WorkingAllocations::largest, 4096u)
        << (smaller ? "a smaller" : "the same") << " shape allocated " << WorkingAllocations::bytes
        << " bytes beside its plan";
    EXPECT_EQ(buffer_pointers(scratch), pointers);
  }
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, TEST_EXECSPACE::memory_space>::accessible)
    EXPECT_GE(scratch.remaining.span() * sizeof(std::uint32_t), n) << "the one-byte levels' words";
}

// levels_from_in_edges, plan_in_edges' host pass on its own: the levels by
// wave (a mirrored row r is wave rows-1-r) or by row, the same counts, the
// level count of plan_in_edges' plan, and no levels for a bad row. Host
// backends only (a generic lambda, so that a device build never
// instantiates it).
TEST(PlannerModes, LevelsFromInEdgesByWaveAndByRow) {
  const auto check = [](auto space) {
    using Space = decltype(space);
    if constexpr (plan_in_edges_checks_rows<Space>()) {
      using Mem = typename Space::memory_space;
      struct Case {
        bool mirrored;
        std::vector<int> row_map, entries;
      };
      const std::vector<Case> cases = {
          {false, {0, 1, 3, 6, 8}, {0, 0, 1, 2, 1, 0, 3, 0}},  // unsorted, lower
          {true, {0, 3, 5, 6}, {2, 0, 1, 2, 1, 2}},           // unsorted, upper
          {true, {0, 3, 5, 7, 8}, {0, 1, 3, 1, 2, 2, 3, 3}},  // sorted, upper
      };
      for (const auto& c : cases) {
        const std::size_t rows = c.row_map.size() - 1;
        const auto rm = to_device(c.row_map, "row_map");
        const auto en = to_device(c.entries, "entries");
        Kokkos::View<std::uint32_t*, Mem> by_wave("by wave", rows), by_row("by row", rows);
        Kokkos::View<std::uint32_t*, Mem> wave_count("counts", rows), row_count("counts", rows);
        const auto groups = levels_from_in_edges(space, rm, en, c.mirrored, true, by_wave, wave_count);
        const auto same = levels_from_in_edges(space, rm, en, c.mirrored, true, by_row, row_count, true);
        ASSERT_TRUE(groups.has_value() && same.has_value());
        EXPECT_EQ(*groups, *same);
        PlannerScratch<Space> scratch;
        EXPECT_EQ(plan_in_edges(space, rm, en, c.mirrored, scratch)->group_count(), *groups);
        const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_wave);
        const auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_row);
        const auto wc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wave_count);
        const auto rc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_count);
        for (std::size_t row = 0; row < rows; ++row)
          EXPECT_EQ(r(row), w(c.mirrored ? rows - 1 - row : row)) << "row " << row;
        for (std::size_t l = 0; l < *groups; ++l) EXPECT_EQ(rc(l), wc(l)) << "level " << l;
      }
      // A column on the wrong side of the diagonal: no levels either way.
      const auto rm = to_device(std::vector<int>{0, 2, 3}, "row_map");
      const auto en = to_device(std::vector<int>{0, 1, 1}, "entries");
      Kokkos::View<std::uint32_t*, Mem> level("level", 2), count("count", 2);
      for (const bool by_row : {false, true})
        EXPECT_FALSE(levels_from_in_edges(space, rm, en, false, true, level, count, by_row));
    }
  };
  check(TEST_EXECSPACE());
}

// The in-edge level pass with its levels one byte wide first (what
// in_edge_levels does above narrow_levels_min_bytes; forced here) against the
// plain host reference and against the pass at full width: matrices whose
// levels all fit a byte (a permuted ILU factor, a 90x90 sweep of 179 levels,
// a random factor) and matrices that move to full width mid-pass (a 200x200
// sweep of 399 levels, a chain), each lower and transposed (upper), rows
// sorted and reversed, levels by wave and by row, the same level counts; a
// bad row before or after the move ends the pass invalid. Host backends
// only.
TEST(PlannerModes, InEdgeLevelsOneByteWideFirstEqualTheHostReference) {
  const auto check = [](auto space) {
    using Space = decltype(space);
    if constexpr (plan_in_edges_checks_rows<Space>()) {
      using Mem = typename Space::memory_space;
      using strata_sptrsv_test::HostCsr;
      const std::vector<std::pair<std::string, HostCsr>> factors = {
          {"ilu3d 20^3", strata_sptrsv_test::lower_from_pattern(generate::ilu3d(20, 20, 20, 3))},
          {"sweep2d 90x90", strata_sptrsv_test::lower_from_pattern(generate::sweep2d(90, 90))},
          {"random 6000", strata_sptrsv_test::random_lower(6000, 4, 9)},
          {"sweep2d 200x200", strata_sptrsv_test::lower_from_pattern(generate::sweep2d(200, 200))},
          {"chain 3000", strata_sptrsv_test::lower_from_pattern(generate::chain(3000))},
      };
      const auto reversed_rows = [](HostCsr a) {
        for (int i = 0; i < a.rows; ++i)
          std::reverse(a.entries.begin() + a.row_map[i], a.entries.begin() + a.row_map[i + 1]);
        return a;
      };
      struct Levels {
        plan::detail::CheckedLevels pass;
        std::vector<std::uint32_t> level, count;
      };
      const auto levels_of = [](const HostCsr& a, bool mirrored, bool by_row,
                                std::size_t narrow_min_bytes) {
        const auto rm = to_device(a.row_map, "row_map");
        const auto en = to_device(a.entries, "entries");
        Kokkos::View<std::uint32_t*, Mem> level("level", std::size_t(a.rows));
        Kokkos::View<std::uint32_t*, Mem> count("count", std::size_t(a.rows));
        Levels out;
        plan::detail::InEdgeLevelOptions options;
        options.mirrored = mirrored;
        options.require_diagonal = true;
        options.by_row = by_row;
        options.narrow_min_bytes = narrow_min_bytes;
        out.pass = plan::detail::in_edge_levels(Space(), rm, en, level, count, options);
        const auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level);
        const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), count);
        out.level.assign(l.data(), l.data() + l.extent(0));
        if (out.pass.valid) out.count.assign(c.data(), c.data() + out.pass.levels.groups);
        return out;
      };
      for (const auto& [name, lower] : factors) {
        for (const bool upper : {false, true}) {
          const HostCsr sorted = upper ? strata_sptrsv_test::transpose(lower) : lower;
          std::vector<int> per_level;
          const std::vector<int> reference =
              strata_sptrsv_test::host_levels(sorted, !upper, &per_level);
          for (const bool reversed : {false, true}) {
            const HostCsr a = reversed ? reversed_rows(sorted) : sorted;
            for (const bool by_row : {false, true}) {
              const std::string what = name + (upper ? " upper" : " lower") +
                                       (reversed ? ", rows reversed" : "") +
                                       (by_row ? ", by row" : ", by wave");
              const Levels narrow = levels_of(a, upper, by_row, 0);
              const Levels wide = levels_of(a, upper, by_row, ~std::size_t(0));
              ASSERT_TRUE(narrow.pass.valid && wide.pass.valid) << what;
              EXPECT_EQ(narrow.pass.levels.groups, per_level.size()) << what;
              EXPECT_EQ(narrow.pass.levels.sources, std::uint64_t(per_level[0])) << what;
              EXPECT_EQ(narrow.level, wide.level) << what;
              EXPECT_EQ(narrow.count, wide.count) << what;
              EXPECT_EQ(narrow.count, std::vector<std::uint32_t>(per_level.begin(), per_level.end()))
                  << what;
              std::size_t wrong = 0;
              for (int r = 0; r < a.rows; ++r) {
                const int at = by_row || !upper ? r : a.rows - 1 - r;
                wrong += narrow.level[std::size_t(at)] != std::uint32_t(reference[std::size_t(r)]);
              }
              EXPECT_EQ(wrong, 0u) << what;
            }
          }
        }
      }
      // A bad row before and after the chain's move to full width (at row
      // 256): a column above the diagonal, a missing diagonal.
      const HostCsr chain = factors[4].second;
      for (const int at : {100, 2000}) {
        HostCsr above = chain;
        above.entries[std::size_t(above.row_map[at])] = chain.rows - 1;
        HostCsr no_diagonal = chain;
        no_diagonal.entries[std::size_t(no_diagonal.row_map[at + 1] - 1)] = 0;
        EXPECT_FALSE(levels_of(above, false, false, 0).pass.valid) << "above, row " << at;
        EXPECT_FALSE(levels_of(no_diagonal, false, false, 0).pass.valid)
            << "no diagonal, row " << at;
      }
    }
  };
  check(TEST_EXECSPACE());
}

// plan_in_edges checks the rows in its host pass (plan_in_edges_checks_rows):
// a bad row ends it with InEdgeCheck::valid false and no plan, or with an
// InvalidArgument where no InEdgeCheck was given. A device pass trusts its
// caller and says so (checked false); it is given only valid rows here.
TEST(PlannerModes, InEdgePlanChecksRowsOnHosts) {
  using Space = TEST_EXECSPACE;
  struct Case {
    const char* what;
    bool mirrored, require_diagonal, valid;
    std::vector<int> row_map, entries;
  };
  // 3 rows; lower: row r may hold 0..r, upper (mirrored): r..2.
  const std::vector<Case> cases = {
      {"lower, valid", false, true, true, {0, 1, 3, 5}, {0, 0, 1, 1, 2}},
      {"upper, valid", true, true, true, {0, 2, 4, 5}, {0, 2, 1, 2, 2}},
      {"lower, no diagonal, not required", false, false, true, {0, 1, 2, 4}, {0, 0, 1, 2}},
      {"lower, no diagonal in row 1", false, true, false, {0, 1, 2, 4}, {0, 0, 1, 2}},
      {"lower, entry above the diagonal", false, true, false, {0, 2, 4, 5}, {0, 1, 0, 1, 2}},
      {"upper, entry below the diagonal", true, true, false, {0, 1, 3, 4}, {0, 0, 1, 2}},
      {"lower, column out of range", false, true, false, {0, 1, 2, 4}, {0, 1, 7, 2}},
      {"upper, column out of range", true, true, false, {0, 1, 3, 4}, {0, 1, 3, 2}},
      {"negative column", false, true, false, {0, 1, 3, 5}, {0, -1, 1, 1, 2}},
      {"descending offsets", false, true, false, {0, 2, 1, 3}, {0, 1, 2}},
      // Rows whose diagonal is not where sorting would put it (last below,
      // first above) take the host pass's general path; so do rows whose
      // diagonal is there but an entry before it is on the wrong side.
      {"lower, unsorted rows", false, true, true, {0, 1, 3, 6}, {0, 1, 0, 2, 0, 1}},
      {"upper, unsorted rows", true, true, true, {0, 3, 5, 6}, {2, 0, 1, 2, 1, 2}},
      {"lower, entry above a last diagonal", false, true, false, {0, 1, 3, 5}, {0, 2, 1, 1, 2}},
      {"upper, entry below a first diagonal", true, true, false, {0, 2, 4, 5}, {0, 2, 1, 0, 2}},
      {"offsets past entries", false, true, false, {0, 1, 2, 9}, {0, 1, 2}},
  };
  for (const auto& c : cases) {
    if (!plan_in_edges_checks_rows<Space>() && !c.valid) continue;
    const auto rm = to_device(c.row_map, "row_map");
    const auto en = to_device(c.entries, "entries");
    PlannerScratch<Space> scratch;
    InEdgeCheck check;
    check.require_diagonal = c.require_diagonal;
    const auto plan = plan_in_edges(Space(), rm, en, c.mirrored, scratch, &check);
    EXPECT_EQ(check.checked, plan_in_edges_checks_rows<Space>()) << c.what;
    EXPECT_EQ(check.valid, c.valid) << c.what;
    EXPECT_EQ(plan.has_value(), c.valid) << c.what;
    if (!c.valid) {
      // Without an InEdgeCheck (so no diagonal required): an exception,
      // where the rows are bad for another reason than a missing diagonal.
      PlannerScratch<Space> again;
      InEdgeCheck loose;
      (void)plan_in_edges(Space(), rm, en, c.mirrored, again, &loose);
      if (!loose.valid)
        expect_plan_error(ErrorKind::InvalidArgument,
                          [&] { (void)plan_in_edges(Space(), rm, en, c.mirrored, again); });
    } else {
      const bool unsorted = std::string(c.what).find("unsorted") != std::string::npos;
      EXPECT_EQ(plan->group_count(), std::size_t(c.mirrored && !unsorted ? 2 : 3)) << c.what;
    }
  }
  // Rows whose levels outgrow prefetch_min_bytes take the pass with the
  // prefetch (lower; the upper pass has none): row i waits for row i/2
  // (lower; upper mirrored), so the deepest level is floor(log2(rows - 1))
  // + 1; a wrong-side entry in the last row is still found.
  if constexpr (plan_in_edges_checks_rows<Space>()) {
    const int n = int(prefetch_min_bytes / sizeof(std::uint32_t)) + 1000;
    for (const bool mirrored : {false, true}) {
      std::vector<int> row_map{0}, entries;
      for (int r = 0; r < n; ++r) {
        const int w = mirrored ? n - 1 - r : r;  // the wave of row r
        if (w > 0) entries.push_back(mirrored ? n - 1 - w / 2 : w / 2);
        entries.push_back(r);
        row_map.push_back(int(entries.size()));
      }
      PlannerScratch<Space> scratch;
      InEdgeCheck check;
      check.require_diagonal = true;
      auto plan = plan_in_edges(Space(), to_device(row_map, "row_map"),
                                to_device(entries, "entries"), mirrored, scratch, &check);
      ASSERT_TRUE(plan.has_value());
      std::size_t depth = 0;
      for (int v = n - 1; v > 0; v /= 2) ++depth;
      EXPECT_EQ(plan->group_count(), depth + 1) << (mirrored ? "upper" : "lower");
      // The last row in pass order (row n-1 lower, row 0 upper) gets a
      // column outside the matrix in place of its predecessor.
      entries[mirrored ? 0 : std::size_t(row_map[n - 1])] = mirrored ? -1 : n;
      InEdgeCheck bad;
      PlannerScratch<Space> again;
      EXPECT_FALSE(plan_in_edges(Space(), to_device(row_map, "row_map"),
                                 to_device(entries, "entries"), mirrored, again, &bad)
                       .has_value());
      EXPECT_FALSE(bad.valid) << (mirrored ? "upper" : "lower");
    }
  }
}

TEST(PlannerModes, DevicePacedBatchesRunManyLayersPerSynchronisation) {
  const auto g = generate::layered(300, 20, 2, 20, true, 5);
  const auto deps = generate::narrowed<std::uint32_t>(g);
  const auto ref = reference_kahn(g.wave_count, deps);
  for (std::uint32_t per_sync : {1u, 3u, 8u, 64u}) {
    PlanStatistics stats;
    PlanOptions options;
    options.mode = PlanMode::Sparse;
    options.layers_per_sync = per_sync;
    options.statistics = &stats;
    PlannerScratch<TEST_EXECSPACE> scratch;
    const auto plan = plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(),
                                    scratch, options);
    EXPECT_TRUE(same_plan(plan, ref)) << per_sync;
    EXPECT_EQ(stats.sparse_layers, 20u) << per_sync;
    // 20 layers (the last one releases nothing): ceil(20 / per_sync) batches.
    EXPECT_EQ(stats.paced_batches, per_sync == 1 ? 0u : (20u + per_sync - 1) / per_sync) << per_sync;
  }
  PlanOptions too_many;
  too_many.layers_per_sync = 65;
  const auto e = expect_plan_error(ErrorKind::InvalidArgument, [&] {
    plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(), too_many);
  });
  EXPECT_NE(std::string(e.what()).find("Fix:"), std::string::npos);
}

TEST(PlannerModes, ChainContractionGivesTheSamePlanAndCountsRings) {
  PlanOptions options;
  options.chains = ChainContraction::Always;
  PlanStatistics stats;
  options.statistics = &stats;
  auto chain = generate::chain(1000);
  generate::shuffle_ids(chain, 7);
  const auto cd = generate::narrowed<std::uint32_t>(chain);
  EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), chain.wave_count, cd.data(), cd.size(), options),
                        reference_kahn(chain.wave_count, cd)));
  EXPECT_EQ(stats.chained_waves, 999u);

  // A Y: 0 -> 1 -> 2 branches to 3 -> 5 -> 6 and 4 -> 6; chains 1, 2 and 5.
  const std::vector<WaveDependency<std::uint32_t>> y{{0, 1}, {1, 2}, {2, 3}, {2, 4},
                                                     {3, 5}, {5, 6}, {4, 6}};
  EXPECT_EQ(plan_barriers(TEST_EXECSPACE(), 7, y.data(), y.size(), options).host_groups(),
            (std::vector<std::vector<std::uint64_t>>{{0}, {1}, {2}, {3, 4}, {5}, {6}}));
  EXPECT_EQ(stats.chained_waves, 3u);

  // A ring of three (no head) beside a chain and an isolated wave: exactly the
  // ring is unscheduled, as in plain Kahn.
  const std::vector<WaveDependency<std::uint32_t>> ring{{0, 1}, {1, 2}, {2, 3}, {4, 5},
                                                        {5, 6}, {6, 4}, {7, 8}};
  const auto e = expect_plan_error(ErrorKind::Cycle, [&] {
    plan_barriers(TEST_EXECSPACE(), 10, ring.data(), ring.size(), options);
  });
  EXPECT_EQ(e.unscheduled_waves(), 3u);
  // Never: the plain walk.
  options.chains = ChainContraction::Never;
  plan_barriers(TEST_EXECSPACE(), chain.wave_count, cd.data(), cd.size(), options);
  EXPECT_EQ(stats.chained_waves, 0u);
}

TEST(PlannerModes, OverBudgetIsMemoryConstrained) {
  const auto g = generate::random_dag(10000, 40000, 3);
  const auto deps = generate::narrowed<std::uint32_t>(g);
  PlanOptions options;
  options.device_memory_budget_bytes = 100000;
  const auto e = expect_plan_error(ErrorKind::MemoryConstrained, [&] {
    plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(), options);
  });
  EXPECT_EQ(e.budget_bytes(), 100000u);
  // The list is in no order: a CSR is built, and on a host backend its
  // build's spare (one index per dependency) counts instead of the plan.
  const auto need =
      planner_storage_bytes(10000, 40000, 4, 4, false, csr_by_row_buckets_v<TEST_EXECSPACE>);
  EXPECT_EQ(need.build, csr_by_row_buckets_v<TEST_EXECSPACE> ? 160000u : 0u);
  EXPECT_EQ(e.needed_bytes(), need.total());
  // The same budget with room to spare plans.
  options.device_memory_budget_bytes = need.total();
  EXPECT_NO_THROW(plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(), options));
}

TEST(PlannerModes, StorageEstimateMatchesWhatThePlannerHolds) {
  const auto g = generate::random_dag(5000, 20000, 4);
  const auto deps = generate::narrowed<std::uint32_t>(g);
  PlanOptions options;
  options.mode = PlanMode::Sparse;
  auto scratch = PlannerScratch<TEST_EXECSPACE>::try_with_capacity(g.wave_count, deps.size());
  const auto plan = plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(), scratch, options);
  const auto need = planner_storage_bytes(g.wave_count, deps.size(), 4, 4, false);
  const std::size_t result = (plan.level.span() + plan.waves.span() + plan.group_offsets.span()) * 4;
  // Not in the estimate: the radix and fused counters (KiB), and the staging
  // copy of a host dependency array on a device backend (the caller's input).
  const std::size_t extra = scratch.sort_counts.span() * 4 + scratch.step_counters.span() * 8 +
                            scratch.staging.span() * sizeof(WaveDependency<std::uint32_t>);
  // try_with_capacity holds the spare ordinals too (whatever path plans)
  EXPECT_EQ(scratch.bytes() - extra, need.csr + need.scratch + need.spare);
  EXPECT_LE(result, need.result);
}

}  // namespace
}  // namespace strata::test
