// libFuzzer harness: the edge-list reader, strata::io::parse_edge_list.
//
// Invariants, on every input:
//   * the reader either returns a list or throws PlanError{ParseError}; any
//     other exception, a crash or a sanitizer report is a finding;
//   * it accepts exactly the inputs an independent, deliberately naive reader
//     written here accepts (same format rules, see oracle_parse), and then
//     yields the same wave count, the same dependencies in order, and the
//     right max_wave_id;
//   * an accepted list survives write_edge_list -> parse_edge_list unchanged;
//   * an error names the source and a line that exists (1..lines), starts
//     with "ParseError: ", holds a ". Fix: " hint, stays short (tokens are
//     quoted truncated) and holds printable ASCII only (a NUL or control byte
//     quoted raw from the input used to cut the message before its Fix:).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/io/edge_list.hpp>

#include "fuzz_check.hpp"
#include "reader_checks.hpp"

namespace {

using strata_fuzz::same;

using strata::io::EdgeList;
using Dep = strata::WaveDependency<std::uint64_t>;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// A decimal token that fits in 64 bits, read digit by digit.
std::optional<std::uint64_t> oracle_number(const std::string& token) {
  if (token.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

/// The format, read the simplest way: lines split at '\n'; a line whose first
/// non-space character is '#' (or that has none) is skipped; every other line
/// is exactly two numbers separated by spaces, tabs or CRs; the first is the
/// header `V E`, then exactly E dependency lines.
std::optional<EdgeList> oracle_parse(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string> tokens;
    std::string current;
    bool comment = false;
    for (std::size_t i = pos; i < end; ++i) {
      const char c = text[i];
      if (tokens.empty() && current.empty() && c == '#') {
        comment = true;
        break;
      }
      if (is_space(c)) {
        if (!current.empty()) tokens.push_back(current), current.clear();
      } else {
        current += c;
      }
    }
    if (!current.empty()) tokens.push_back(current);
    if (!comment && !tokens.empty()) rows.push_back(tokens);
    pos = end + 1;
  }
  if (rows.empty()) return std::nullopt;
  EdgeList list;
  std::vector<std::uint64_t> values;
  for (const auto& row : rows) {
    if (row.size() != 2) return std::nullopt;
    for (const auto& t : row) {
      const auto v = oracle_number(t);
      if (!v) return std::nullopt;
      values.push_back(*v);
    }
  }
  list.wave_count = values[0];
  if (values[1] != rows.size() - 1) return std::nullopt;
  for (std::size_t i = 2; i < values.size(); i += 2) {
    list.dependencies.push_back({values[i], values[i + 1]});
    if (values[i] > list.max_wave_id) list.max_wave_id = values[i];
    if (values[i + 1] > list.max_wave_id) list.max_wave_id = values[i + 1];
  }
  return list;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.txt";
  const std::optional<EdgeList> expected = oracle_parse(text);
  try {
    const EdgeList list = strata::io::parse_edge_list(text, source);
    STRATA_FUZZ_CHECK(expected.has_value(), "the reader accepted an input the oracle rejects");
    STRATA_FUZZ_CHECK(same(list, *expected),
                      "reader and oracle disagree: waves %llu/%llu, deps %zu/%zu, max id "
                      "%llu/%llu",
                      (unsigned long long)list.wave_count,
                      (unsigned long long)expected->wave_count, list.dependencies.size(),
                      expected->dependencies.size(), (unsigned long long)list.max_wave_id,
                      (unsigned long long)expected->max_wave_id);
    std::ostringstream out;
    strata::io::write_edge_list(out, list.wave_count, list.dependencies, "round trip");
    const EdgeList again = strata::io::parse_edge_list(out.str(), "round-trip.txt");
    STRATA_FUZZ_CHECK(same(list, again), "write_edge_list -> parse_edge_list changed the list");
  } catch (const strata::PlanError& e) {
    strata_fuzz::check_parse_error(e, source, text, expected.has_value(), 400);
    STRATA_FUZZ_CHECK(!e.message().empty(), "empty message field");
  } catch (const std::exception& e) {
    STRATA_FUZZ_CHECK(false, "unexpected exception: %s", e.what());
  }
  return 0;
}
