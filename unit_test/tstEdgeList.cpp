// The edge-list reader and the plan writers (host only).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <strata/io/edge_list.hpp>
#include <strata/io/plan_writer.hpp>
#include <strata/plan/plan_barriers.hpp>

namespace strata::io {
namespace {

PlanError parse_failure(const std::string& text) {
  try {
    parse_edge_list(text, "in.txt");
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ParseError) << e.what();
    EXPECT_NE(std::string(e.what()).find("in.txt:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Fix:"), std::string::npos) << e.what();
    return e;
  }
  ADD_FAILURE() << "no ParseError for:\n" << text;
  return PlanError::invalid_argument("none", "none");
}

TEST(EdgeList, ParsesCommentsBlankLinesAndCrlf) {
  const auto list = parse_edge_list("# a diamond\n\n4 4\r\n0 1\n0 2\n  # inside\n1 3\n2\t3\n", "x");
  EXPECT_EQ(list.wave_count, 4u);
  ASSERT_EQ(list.dependencies.size(), 4u);
  EXPECT_EQ(list.dependencies[3].before, 2u);
  EXPECT_EQ(list.dependencies[3].after, 3u);
  EXPECT_EQ(list.max_wave_id, 3u);
}

TEST(EdgeList, EmptyGraphAndNoTrailingNewline) {
  EXPECT_EQ(parse_edge_list("0 0", "x").wave_count, 0u);
  EXPECT_EQ(parse_edge_list("3 1\n0 2", "x").dependencies.size(), 1u);
}

TEST(EdgeList, MalformedInputNamesTheLine) {
  EXPECT_EQ(parse_failure("").line(), 0u);
  EXPECT_EQ(parse_failure("# only comments\n").line(), 1u);
  EXPECT_EQ(parse_failure("3 x\n").line(), 1u);
  EXPECT_EQ(parse_failure("3 1\n0 -1\n").line(), 2u);
  EXPECT_EQ(parse_failure("3 1\n0 1 2\n").line(), 2u);           // trailing garbage
  EXPECT_EQ(parse_failure("3 1\n0 1x\n").line(), 2u);
  EXPECT_EQ(parse_failure("3 2\n0 1\n").line(), 2u);             // too few lines
  EXPECT_EQ(parse_failure("3 1\n0 1\n1 2\n").line(), 3u);        // too many lines
  EXPECT_EQ(parse_failure("3 1\n0 99999999999999999999\n").line(), 2u);  // beyond 64 bits
  EXPECT_EQ(parse_failure("3\n").line(), 1u);                   // header without E
}

TEST(EdgeList, HugeHeaderIsRejectedBeforeAllocating) {
  const auto e = parse_failure("4 1099511627776\n0 1\n");  // 2^40 dependencies claimed
  EXPECT_EQ(e.line(), 1u);
}

TEST(EdgeList, MissingFileIsIoError) {
  try {
    read_edge_list("/nonexistent/strata.txt");
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::IoError);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/strata.txt"), std::string::npos);
  }
}

// Regression (fuzz_edge_list): a NUL or control byte inside a token was
// quoted raw, so what() ended at the NUL, before the Fix: hint.
TEST(EdgeList, UnprintableBytesAreEscapedInMessages) {
  const auto e = parse_failure(std::string("3 1\n0\x01\x00\n-\n", 10));
  const std::string what = e.what();
  EXPECT_EQ(e.line(), 2u);
  EXPECT_NE(what.find("'0\\x01\\x00'"), std::string::npos) << what;
  EXPECT_NE(what.find(". Fix: "), std::string::npos) << what;
  for (const char c : e.message()) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
  const auto esc = parse_failure("3 1\n0 1\x1b[31m\n");
  EXPECT_NE(std::string(esc.what()).find("'1\\x1b[31m'"), std::string::npos) << esc.what();
}

// Regression (docs/errors.md matrix): a directory opened as a file reported a
// bogus size, and the tool died with "internal error: basic_string...".
TEST(EdgeList, DirectoryIsIoError) {
  const std::string dir = ::testing::TempDir();
  try {
    read_edge_list(dir);
    ADD_FAILURE() << "no IoError for a directory";
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::IoError);
    EXPECT_EQ(e.field(), dir);
    EXPECT_EQ(e.message(), "is a directory, not a file");
    EXPECT_NE(std::string(e.what()).find("Fix:"), std::string::npos);
  }
}

TEST(EdgeList, PrintableEscapesControlBytesAndKeepsUtf8) {
  EXPECT_EQ(printable("plain/path-1.txt"), "plain/path-1.txt");
  EXPECT_EQ(printable("a\nb\x1b[31m\x7f"), "a\\x0ab\\x1b[31m\\x7f");
  EXPECT_EQ(printable("donn\xc3\xa9" "es \xe2\x82\xac"), "donn\xc3\xa9" "es \xe2\x82\xac");
  EXPECT_EQ(printable("\xc2\x9b"), "\\xc2\\x9b");  // C1 control (CSI)
  EXPECT_EQ(printable("\xff\xc3"), "\\xff\\xc3");  // not UTF-8, truncated sequence
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
}

// docs/errors.md row 65: a path reached the terminal raw (newline, ESC).
TEST(EdgeList, PathsAreEscapedInMessages) {
  const std::string path = ::testing::TempDir() + "/no\nsuch\x1b[31m.txt";
  try {
    read_edge_list(path);
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::IoError);
    const std::string what = e.what();
    EXPECT_NE(what.find("no\\x0asuch\\x1b[31m.txt: cannot open file"), std::string::npos) << what;
    for (const char c : what) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
  }
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// docs/errors.md rows 63, 64: binary input was "no 'V E' header line".
TEST(EdgeList, BinaryInputIsNotText) {
  for (const std::string path :
       {std::string("/dev/zero"), temp_file("strata_binary.txt", std::string("3 1\n0 1\n\0", 9))}) {
    try {
      read_edge_list(path);
      ADD_FAILURE() << path;
    } catch (const PlanError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::ParseError) << e.what();
      const bool device = path == "/dev/zero";
      EXPECT_EQ(e.line(), device ? 1u : 3u) << e.what();
      EXPECT_EQ(e.message(), std::string("not a text edge list: NUL byte at byte ") +
                                 (device ? "0" : "8"));
    }
  }
}

// docs/errors.md rows 66, 67: --max-memory bounds the reader before it allocates.
TEST(EdgeList, MemoryBudgetBoundsTheReader) {
  std::string text = "3 8\n";
  for (int i = 0; i < 8; ++i) text += "0 1\n";  // 36 bytes, 8 x 16 bytes of list
  const std::string path = temp_file("strata_budget.txt", text);
  try {
    read_edge_list(path, 35);  // the file alone exceeds it: nothing read
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MemoryConstrained);
    EXPECT_EQ(e.needed_bytes(), 36u);
    EXPECT_EQ(e.budget_bytes(), 35u);
  }
  try {
    read_edge_list(path, 163);  // text + list = 164
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MemoryConstrained);
    EXPECT_EQ(e.needed_bytes(), 164u);
  }
  EXPECT_EQ(read_edge_list(path, 164).dependencies.size(), 8u);
  EXPECT_EQ(parse_edge_list(text, "x", 164).dependencies.size(), 8u);
  EXPECT_EQ(read_edge_list(path).dependencies.size(), 8u);  // 0: unbounded
}

TEST(EdgeList, WriteThenReadRoundTrips) {
  const std::vector<WaveDependency<std::uint64_t>> deps{{0, 1}, {5, 2}, {1, 2}};
  std::ostringstream out;
  write_edge_list(out, 6, deps, "round trip");
  const auto list = parse_edge_list(out.str(), "x");
  EXPECT_EQ(list.wave_count, 6u);
  ASSERT_EQ(list.dependencies, deps);
}

TEST(PlanWriter, TextAndJson) {
  const std::vector<WaveDependency<std::uint32_t>> deps{{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  const auto plan = plan_barriers(Kokkos::DefaultHostExecutionSpace(), 5, deps.data(), deps.size());
  std::ostringstream text, json;
  write_plan_text(text, plan);
  write_plan_json(json, plan);
  EXPECT_EQ(text.str(), "groups 3 barriers 2\n0 4\n1 2\n3\n");
  EXPECT_EQ(json.str(),
            "{\"wave_count\":5,\"group_count\":3,\"global_barriers\":2,"
            "\"groups\":[[0,4],[1,2],[3]],\"levels\":[0,1,1,2,0]}\n");
  const auto empty = plan_barriers(Kokkos::DefaultHostExecutionSpace(), 0,
                                   static_cast<const WaveDependency<std::uint32_t>*>(nullptr), 0);
  std::ostringstream none;
  write_plan_text(none, empty);
  EXPECT_EQ(none.str(), "groups 0 barriers 0\n");
}

// A stream that fails every write (a full disk): the writer leaves it failed
// for the caller to check (strata: "output error", exit 3) and does not throw.
struct FullDevice : std::streambuf {
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST(PlanWriter, FailedWriteLeavesTheStreamFailed) {
  const std::vector<WaveDependency<std::uint32_t>> deps{{0, 1}};
  const auto plan = plan_barriers(Kokkos::DefaultHostExecutionSpace(), 2, deps.data(), deps.size());
  for (const bool json : {false, true}) {
    FullDevice device;
    std::ostream out(&device);
    EXPECT_NO_THROW(write_plan(out, plan, json));
    EXPECT_TRUE(out.fail());
  }
  FullDevice device;
  std::ostream out(&device);
  EXPECT_NO_THROW(write_edge_list(out, 2, {{0, 1}}));
  EXPECT_TRUE(out.fail());
}

}  // namespace
}  // namespace strata::io
