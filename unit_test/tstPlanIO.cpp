// Matrix Market input and the plan views, on every backend (TEST_EXECSPACE):
// the reader parses from a string or a stream (the format told apart by its
// banner), every malformed file is a ParseError naming its line, and what it
// reads plans on TEST_EXECSPACE exactly as the equivalent edge list does
// (checked against the host reference Kahn); the dot and JSON writers and
// the layer-width profile of a device plan.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/generate/graph_generators.hpp>
#include <strata/io/plan_dot.hpp>
#include <strata/io/plan_writer.hpp>
#include <strata/io/read_graph.hpp>
#include <strata/plan/layer_widths.hpp>

#include "test_helpers.hpp"

namespace strata::test {
namespace {

using io::EdgeList;
using io::Triangle;
using Dep64 = WaveDependency<std::uint64_t>;

EdgeList mtx(const std::string& text, Triangle triangle = Triangle::Lower) {
  return io::parse_matrix_market(text, "in.mtx", triangle);
}

PlanError mtx_failure(const std::string& text) {
  try {
    mtx(text);
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ParseError) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("ParseError: in.mtx:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(". Fix: "), std::string::npos) << e.what();
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return PlanError::invalid_argument("none", "none");
}

/// The plan of `list` on TEST_EXECSPACE agrees with the host reference.
::testing::AssertionResult plans_like_reference(const EdgeList& list) {
  const auto plan = plan_barriers(TEST_EXECSPACE(), list.wave_count, list.dependencies.data(),
                                  list.dependencies.size());
  return same_plan(plan, reference_kahn(list.wave_count, list.dependencies));
}

TEST(MatrixMarket, LowerTriangleOfAGeneralRealMatrix) {
  // row i waits for the columns j < i it holds; the diagonal and the upper
  // triangle (1, 4) are ignored; values in every real notation
  const auto list = mtx("%%MatrixMarket matrix coordinate real general\n% a comment\n\n"
                        "4 4 7\n1 1 1.0\n2 1 -2e3\n3 1 .5\n4 2 5.\n4 3 +1E-2\n1 4 7\n4 4 inf\n");
  EXPECT_EQ(list.wave_count, 4u);
  EXPECT_EQ(list.dependencies, (std::vector<Dep64>{{0, 1}, {0, 2}, {1, 3}, {2, 3}}));
  EXPECT_EQ(list.max_wave_id, 3u);
  EXPECT_TRUE(plans_like_reference(list));
}

TEST(MatrixMarket, UpperTriangle) {
  const auto list =
      mtx("%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n1 3\n2 3\n3 1\n",
          Triangle::Upper);
  // row i waits for the columns j > i: 2 -> 1, 3 -> 1, 3 -> 2 (0-based: 1->0, 2->0, 2->1)
  EXPECT_EQ(list.dependencies, (std::vector<Dep64>{{1, 0}, {2, 0}, {2, 1}}));
  EXPECT_TRUE(plans_like_reference(list));
}

TEST(MatrixMarket, SymmetricEntriesStandForBothTriangles) {
  // stored in the lower triangle (as usual) and once in the upper one
  const std::string text = "%%MatrixMarket matrix coordinate integer symmetric\n"
                           "3 3 4\n1 1 4\n2 1 -1\n3 2 -1\n1 3 7\n";
  EXPECT_EQ(mtx(text).dependencies, (std::vector<Dep64>{{0, 1}, {1, 2}, {0, 2}}));
  EXPECT_EQ(mtx(text, Triangle::Upper).dependencies,
            (std::vector<Dep64>{{1, 0}, {2, 1}, {2, 0}}));
  const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                           "3 3 2\n2 1 -1.5\n3 2 2\n";
  EXPECT_EQ(mtx(skew).dependencies, (std::vector<Dep64>{{0, 1}, {1, 2}}));
  const std::string complex = "%%MatrixMarket matrix coordinate complex hermitian\n"
                              "2 2 2\n1 1 1 0\n2 1 0.5 -0.5\n";
  EXPECT_EQ(mtx(complex).dependencies, (std::vector<Dep64>{{0, 1}}));
}

TEST(MatrixMarket, KeywordsCaseInsensitiveCrlfDuplicatesAndNoFinalNewline) {
  const auto list = mtx("%%MatrixMarket MATRIX Coordinate Pattern GENERAL\r\n3 3 3\r\n2 1\r\n"
                        "2 1\r\n3\t2");
  EXPECT_EQ(list.dependencies, (std::vector<Dep64>{{0, 1}, {0, 1}, {1, 2}}));
  EXPECT_TRUE(plans_like_reference(list));  // duplicates change nothing
  EXPECT_EQ(mtx("%%MatrixMarket matrix coordinate real general\n0 0 0\n").wave_count, 0u);
}

TEST(MatrixMarket, MalformedFilesNameTheLine) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_EQ(mtx_failure("").line(), 0u);
  EXPECT_EQ(mtx_failure("%%MatrixMarkt matrix coordinate real general\n1 1 0\n").line(), 1u);
  EXPECT_EQ(mtx_failure("% no banner\n1 1 0\n").line(), 1u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket vector coordinate real general\n").line(), 1u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate real\n").line(), 1u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate double general\n").line(), 1u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate real hollow\n").line(), 1u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate real general extra\n").line(), 1u);
  const auto dense = mtx_failure("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n");
  EXPECT_EQ(dense.line(), 1u);
  EXPECT_EQ(dense.message(), "the array (dense) format is not supported");
  EXPECT_EQ(mtx_failure(banner + "% only comments\n").line(), 2u);       // no size line
  EXPECT_EQ(mtx_failure(banner + "3 3\n").line(), 2u);                   // size line short
  EXPECT_EQ(mtx_failure(banner + "3 4 0\n").line(), 2u);                 // not square
  EXPECT_EQ(mtx_failure(banner + "3 3 x\n").line(), 2u);
  EXPECT_EQ(mtx_failure(banner + "3 3 1099511627776\n2 1 1\n").line(), 2u);  // 2^40 entries
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n0 1 1\n").line(), 3u);          // 1-based
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n2 4 1\n").line(), 3u);          // beyond N
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n2 -1 1\n").line(), 3u);
  EXPECT_EQ(mtx_failure(banner + "3 3 2\n2 1 1\n").line(), 3u);          // too few
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n2 1 1\n3 1 1\n").line(), 4u);   // too many
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n2 1\n").line(), 3u);            // value missing
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n2 1 1.5.2\n").line(), 3u);      // bad real
  EXPECT_EQ(mtx_failure(banner + "3 3 1\n2 1 1 2\n").line(), 3u);        // trailing
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 1.0\n")
                .line(), 3u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate complex general\n2 2 1\n2 1 1.0\n")
                .line(), 3u);
  EXPECT_EQ(mtx_failure("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1 1.0\n")
                .line(), 3u);
  const auto nul = mtx_failure(banner + "3 3 1\n2 1 1\x01" + std::string(1, '\0') + "\n");
  for (const char c : nul.message()) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
}

TEST(MatrixMarket, MemoryBudgetBoundsTheReader) {
  const std::string text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n2 1\n3 2\n";
  const std::uint64_t need = text.size() + 2 * 16;
  try {
    io::parse_matrix_market(text, "in.mtx", Triangle::Lower, need - 1);
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MemoryConstrained);
    EXPECT_EQ(e.needed_bytes(), need);
  }
  EXPECT_EQ(io::parse_matrix_market(text, "in.mtx", Triangle::Lower, need).dependencies.size(), 2u);
}

TEST(MatrixMarket, EntriesWithTheirValues) {
  // The matrix reader: every stored entry in file order, 0-based, with its
  // value; the same walk (and errors) as the DAG reader.
  using io::MatrixEntry;
  const auto same = [](const std::vector<MatrixEntry>& got, const std::vector<MatrixEntry>& want) {
    bool equal = got.size() == want.size();
    for (std::size_t k = 0; equal && k < got.size(); ++k)
      equal = got[k].row == want[k].row && got[k].column == want[k].column &&
              got[k].value == want[k].value;
    return equal;
  };
  const auto real = io::parse_matrix_market_entries(
      "%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n1 1 2.5\n3 1 -2e3\n"
      "1 3 .5\n3 1 1\n",
      "in.mtx");
  EXPECT_EQ(real.rows, 3u);
  EXPECT_FALSE(real.pattern);
  EXPECT_EQ(real.mirror, io::Mirror::None);
  EXPECT_TRUE(same(real.entries, {{0, 0, 2.5}, {2, 0, -2e3}, {0, 2, 0.5}, {2, 0, 1.0}}));
  const auto pattern = io::parse_matrix_market_entries(
      "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n", "in.mtx");
  EXPECT_TRUE(pattern.pattern);
  EXPECT_EQ(pattern.mirror, io::Mirror::Same);
  EXPECT_TRUE(same(pattern.entries, {{1, 0, 1.0}}));
  EXPECT_EQ(io::parse_matrix_market_entries(
                "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -3\n",
                "in.mtx")
                .mirror,
            io::Mirror::Negated);
  // A complex field and values that are not finite doubles: ParseError,
  // naming the line.
  for (const auto& [text, line] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1},
           {"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 nan\n", 3},
           {"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e999\n", 3},
           {"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", 3}}) {
    try {
      io::parse_matrix_market_entries(text, "in.mtx");
      ADD_FAILURE() << text;
    } catch (const PlanError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::ParseError) << e.what();
      EXPECT_EQ(e.line(), line) << e.what();
    }
  }
  // The budget: the text and 24 bytes per declared entry, before reserving.
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n";
  const std::uint64_t need = text.size() + 2 * sizeof(MatrixEntry);
  try {
    io::parse_matrix_market_entries(text, "in.mtx", need - 1);
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MemoryConstrained);
    EXPECT_EQ(e.needed_bytes(), need);
  }
  EXPECT_EQ(io::parse_matrix_market_entries(text, "in.mtx", need).entries.size(), 2u);
}

TEST(MatrixMarket, FormatFromTheBannerAndStreams) {
  const std::string text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n2 1\n3 2\n";
  EXPECT_EQ(io::detect_graph_format(text), io::GraphFormat::MatrixMarket);
  EXPECT_EQ(io::detect_graph_format("3 2\n0 1\n1 2\n"), io::GraphFormat::EdgeList);
  EXPECT_EQ(io::detect_graph_format("3 2\n", "L.mtx"), io::GraphFormat::MatrixMarket);
  // regression (fuzz_matrix_market): blanks before the banner
  const std::string indented = "\t " + text;
  EXPECT_EQ(io::detect_graph_format(indented), io::GraphFormat::MatrixMarket);
  EXPECT_EQ(io::parse_graph(indented, "x").list.dependencies, mtx(text).dependencies);
  EXPECT_EQ(mtx_failure("\n" + text).message(), "line 1 is blank, not the '%%MatrixMarket' banner");
  std::istringstream in(text);
  const auto input = io::read_graph(in, "<stdin>");
  EXPECT_EQ(input.format, io::GraphFormat::MatrixMarket);
  std::istringstream edges("3 2\n0 1\n1 2\n");
  const auto edge_input = io::read_graph(edges, "<stdin>");
  EXPECT_EQ(edge_input.format, io::GraphFormat::EdgeList);
  EXPECT_EQ(input.list.dependencies, edge_input.list.dependencies);
  // a .mtx name without its banner is a Matrix Market error, not an edge-list one
  try {
    io::parse_graph("3 2\n0 1\n1 2\n", "L.mtx", {}, "L.mtx");
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("banner"), std::string::npos) << e.what();
  }
  // binary input read from a stream: the message of the error it gives
  const auto stream_failure = [](const std::string& bytes) {
    std::istringstream stream(bytes);
    try {
      io::read_graph(stream, "<stdin>");
    } catch (const PlanError& e) {
      return e.message();
    }
    ADD_FAILURE() << "no error for binary input of " << bytes.size() << " bytes";
    return std::string();
  };
  EXPECT_EQ(stream_failure(std::string("%%MatrixMarket\0", 15)),
            "not a text Matrix Market file: NUL byte at byte 14");
  // Binary data whose first byte is '%' but that has no banner (as about 1
  // in 256 reads of /dev/urandom do) is named by the edge-list text, every
  // time.
  EXPECT_EQ(stream_failure(std::string("%\x93\x01\0", 4)),
            "not a text edge list: NUL byte at byte 3");
}

// Differential: an ILU pattern written as Matrix Market (with its diagonal,
// as a factor holds it) plans exactly as its edge list, and the written
// file reads back to the same dependencies.
TEST(MatrixMarket, IluPatternPlansAsItsEdgeList) {
  for (const auto& g : {generate::ilu2d(23, 17, 5), generate::ilu3d(9, 7, 6, 11),
                        generate::sweep3d(6, 5, 4)}) {
    std::ostringstream out;
    io::write_matrix_market(out, g.wave_count, g.dependencies, Triangle::Lower, g.description,
                            true);
    const auto list = mtx(out.str());
    EXPECT_EQ(list.wave_count, g.wave_count) << g.description;
    EXPECT_EQ(list.dependencies, g.dependencies) << g.description;
    const auto from_mtx = plan_barriers(TEST_EXECSPACE(), list.wave_count,
                                        list.dependencies.data(), list.dependencies.size());
    const auto from_edges = plan_barriers(TEST_EXECSPACE(), g.wave_count, g.dependencies.data(),
                                          g.dependencies.size());
    EXPECT_EQ(from_mtx.host_groups(), from_edges.host_groups()) << g.description;
    EXPECT_TRUE(same_plan(from_mtx, reference_kahn(g.wave_count, g.dependencies)));
    // the transpose (entry (b+1, a+1) for b -> a) read as the upper triangle
    std::vector<Dep64> reversed;
    for (const auto& d : g.dependencies) reversed.push_back({d.after, d.before});
    std::ostringstream upper;
    io::write_matrix_market(upper, g.wave_count, reversed, Triangle::Upper);
    EXPECT_EQ(mtx(upper.str(), Triangle::Upper).dependencies, reversed) << g.description;
  }
  std::ostringstream out;
  EXPECT_THROW(io::write_matrix_market(out, 3, {{2, 1}}, Triangle::Lower), PlanError);
  EXPECT_TRUE(out.str().empty());
}

TEST(PlanViews, JsonHasLevelsDotHasRanks) {
  const std::vector<Dep> deps{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {1, 3}};
  const auto plan = strata::test::plan(5, deps);
  std::ostringstream json, dot;
  io::write_plan_json(json, plan);
  EXPECT_EQ(json.str(),
            "{\"wave_count\":5,\"group_count\":3,\"global_barriers\":2,"
            "\"groups\":[[0,4],[1,2],[3]],\"levels\":[0,1,1,2,0]}\n");
  io::write_plan_dot(dot, plan, deps.data(), deps.size());
  const std::string d = dot.str();
  EXPECT_EQ(d.rfind("strict digraph strata_plan {\n", 0), 0u) << d;
  EXPECT_NE(d.find("{ rank=same; g0 [shape=plaintext, style=\"\", label=\"group 0\"]; 0 "),
            std::string::npos) << d;
  EXPECT_NE(d.find("4 [fillcolor=\"#cfe0f3\"]; }\n"), std::string::npos) << d;
  EXPECT_NE(d.find("  g0 -> g1 -> g2 [style=invis];\n"), std::string::npos) << d;
  EXPECT_NE(d.find("  1 -> 3;\n"), std::string::npos) << d;
  EXPECT_EQ(d.substr(d.size() - 2), "}\n");
  // beyond the limits: InvalidArgument before a byte is written
  std::ostringstream none;
  io::DotLimits small;
  small.max_waves = 4;
  expect_plan_error(ErrorKind::InvalidArgument,
                    [&] { io::write_plan_dot(none, plan, deps.data(), deps.size(), small); });
  EXPECT_TRUE(none.str().empty());
  // layout nodes: 5 waves + 0 skipped groups; an edge 0 -> 3 skips group 1
  io::DotLimits tight;
  tight.max_layout_nodes = 5;
  std::ostringstream fits;
  io::write_plan_dot(fits, plan, deps.data(), deps.size(), tight);
  EXPECT_FALSE(fits.str().empty());
  const std::vector<Dep> skipping{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 3}};
  const auto e = expect_plan_error(ErrorKind::InvalidArgument, [&] {
    io::write_plan_dot(none, plan, skipping.data(), skipping.size(), tight);
  });
  EXPECT_NE(e.message().find("needs 6 layout nodes"), std::string::npos) << e.what();
  EXPECT_TRUE(none.str().empty());
}

TEST(PlanViews, LayerWidthProfile) {
  // sweep2d 6 x 4: widths 1 2 3 4 4 4 3 2 1 (9 groups)
  const auto g = generate::sweep2d(6, 4);
  const auto plan = plan_barriers(TEST_EXECSPACE(), g.wave_count, g.dependencies.data(),
                                  g.dependencies.size());
  const LayerWidthProfile p = layer_width_profile(plan);
  EXPECT_EQ(p.groups, 9u);
  EXPECT_EQ(p.min, 1u);
  EXPECT_EQ(p.median, 3u);
  EXPECT_EQ(p.max, 4u);
  ASSERT_EQ(p.histogram.size(), 3u);
  EXPECT_EQ(p.histogram[0].groups, 2u);  // width 1
  EXPECT_EQ(p.histogram[1].groups, 4u);  // 2-3
  EXPECT_EQ(p.histogram[2].groups, 3u);  // 4-7
  EXPECT_EQ(p.histogram[2].min_width, 4u);
  EXPECT_EQ(p.histogram[2].max_width, 7u);
  const auto empty = layer_width_profile(strata::test::plan(0, std::vector<Dep>{}));
  EXPECT_EQ(empty.groups, 0u);
  EXPECT_TRUE(empty.histogram.empty());
}

}  // namespace
}  // namespace strata::test
