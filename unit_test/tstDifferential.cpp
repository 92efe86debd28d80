// Differential test: the planner against the plain host reference Kahn on
// thousands of generated graphs (ids not in topological order, skip edges,
// wide, deep, multi-edges, cycles, invalid ids), on TEST_EXECSPACE, reusing
// one scratch across all shapes.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/strata.hpp>

#include "differential_corpus.hpp"
#include "test_helpers.hpp"

namespace strata::test {
namespace {

using generate::GeneratedGraph;

const PlanMode kModes[] = {PlanMode::Automatic, PlanMode::Sparse, PlanMode::Dense,
                           PlanMode::Hybrid, PlanMode::Fused};

class DifferentialModes : public ::testing::TestWithParam<PlanMode> {};

TEST_P(DifferentialModes, PlannerMatchesHostKahnOnGeneratedGraphs) {
  constexpr std::uint64_t graphs = 2400;
  PlannerScratch<TEST_EXECSPACE> scratch;
  PlanOptions options;
  options.mode = GetParam();
  std::uint64_t planned = 0, errors = 0;
  for (std::uint64_t index = 0; index < graphs; ++index) {
    const GeneratedGraph g = corpus_graph(index);
    const auto deps = generate::narrowed<std::uint32_t>(g);
    bool ref_failed = false;
    ReferencePlan ref;
    ErrorKind ref_kind{};
    std::uint64_t ref_field = 0;
    try {
      ref = reference_kahn(g.wave_count, deps);
    } catch (const PlanError& e) {
      ref_failed = true;
      ref_kind = e.kind();
      ref_field = error_fields(e);
    }
    try {
      const auto plan =
          plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(), scratch, options);
      ASSERT_FALSE(ref_failed) << "graph " << index << " (" << g.description << ") should fail";
      ASSERT_TRUE(same_plan(plan, ref)) << "graph " << index << " (" << g.description << ")";
      ++planned;
    } catch (const PlanError& e) {
      ASSERT_TRUE(ref_failed) << "graph " << index << ": " << e.what();
      ASSERT_EQ(e.kind(), ref_kind) << "graph " << index << ": " << e.what();
      const std::uint64_t field = error_fields(e);
      ASSERT_EQ(field, ref_field) << "graph " << index << ": " << e.what();
      ++errors;
    }
  }
  EXPECT_GE(planned, 2000u);
  EXPECT_GE(errors, 200u);
  std::cout << "[ corpus   ] mode " << plan_mode_name(GetParam()) << ": " << planned
            << " graphs planned, " << errors << " rejected, all equal to the host reference\n";
}

INSTANTIATE_TEST_SUITE_P(EveryMode, DifferentialModes, ::testing::ValuesIn(kModes),
                         [](const ::testing::TestParamInfo<PlanMode>& info) {
                           return std::string(plan_mode_name(info.param));
                         });

TEST_P(DifferentialModes, LargerGraphsWithFreshScratch) {
  PlanOptions options;
  options.mode = GetParam();
  auto check = [&](const GeneratedGraph& g) {
    const auto deps = generate::narrowed<std::uint32_t>(g);
    PlannerScratch<TEST_EXECSPACE> scratch;
    EXPECT_TRUE(same_plan(plan_barriers(TEST_EXECSPACE(), g.wave_count, deps.data(), deps.size(),
                                        scratch, options),
                          reference_kahn(g.wave_count, deps)))
        << g.description;
  };
  for (std::uint64_t seed = 1; seed <= 4; ++seed) check(generate::random_dag(20000, 100000, seed));
  check(generate::sweep3d(30, 20, 10));
  check(generate::layered(2000, 6, 3, 30, true, 3));
  // deeper than 256 and 65536 layers: the level sort needs 2 and 3 radix passes
  // (dense steps scan every wave per layer: keep their chain short)
  const std::uint64_t deep = GetParam() == PlanMode::Dense || GetParam() == PlanMode::Hybrid ||
                                     GetParam() == PlanMode::Sparse
                                 ? 300
                                 : 70000;
  for (std::uint64_t n : {std::uint64_t(300), deep}) {
    auto chain = generate::chain(n);
    generate::shuffle_ids(chain, n);
    check(chain);
  }
}

}  // namespace
}  // namespace strata::test
