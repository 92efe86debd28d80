// libFuzzer harness: the Matrix Market reader, strata::io::parse_matrix_market,
// with both triangles, and the matrix reader parse_matrix_market_entries.
//
// Invariants, on every input:
//   * the reader either returns a list or throws PlanError{ParseError}; any
//     other exception, a crash or a sanitizer report is a finding;
//   * it accepts exactly the inputs an independent, deliberately naive reader
//     written here accepts (the format rules of matrix_market.hpp, values
//     checked with std::regex, see oracle_parse), and then yields the same
//     wave count, the same dependencies in order, and the right max_wave_id;
//   * an accepted list survives write_matrix_market -> parse_matrix_market
//     unchanged (same triangle);
//   * parse_graph detects the format from the banner and gives the same list;
//   * an error names the source and a line that exists (1..lines, 0 for an
//     empty input), starts with "ParseError: ", holds a ". Fix: " hint, stays
//     short and holds printable ASCII only.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/io/matrix_market.hpp>
#include <strata/io/read_graph.hpp>

#include "fuzz_check.hpp"
#include "reader_checks.hpp"

namespace {

using strata_fuzz::same;

using strata::io::EdgeList;
using strata::io::Triangle;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> tokens;
  std::string current;
  for (const char c : line) {
    if (is_space(c)) {
      if (!current.empty()) tokens.push_back(current), current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) tokens.push_back(current);
  return tokens;
}

std::optional<std::uint64_t> number(const std::string& token) {
  if (token.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool real_token(const std::string& t) {
  static const std::regex real(R"([+-]?(([0-9]+\.?[0-9]*)|(\.[0-9]+))([eE][+-]?[0-9]+)?)");
  static const std::regex special("[+-]?(inf|infinity|nan)", std::regex::icase);
  return std::regex_match(t, real) || std::regex_match(t, special);
}

bool integer_token(const std::string& t) {
  static const std::regex integer("[+-]?[0-9]+");
  return std::regex_match(t, integer);
}

std::optional<EdgeList> oracle_parse(std::string_view text, Triangle triangle) {
  std::vector<std::pair<std::string_view, std::size_t>> lines;  // line, offset after it
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back({text.substr(pos, end - pos), end + 1});
    pos = end + 1;
  }
  if (lines.empty()) return std::nullopt;
  const auto banner = split(lines[0].first);
  if (banner.size() != 5 || banner[0] != "%%MatrixMarket" || lower(banner[1]) != "matrix" ||
      lower(banner[2]) != "coordinate")
    return std::nullopt;
  const std::string field = lower(banner[3]), symmetry = lower(banner[4]);
  int values = 0;
  if (field == "real" || field == "integer") values = 1;
  else if (field == "complex") values = 2;
  else if (field != "pattern") return std::nullopt;
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" &&
      symmetry != "hermitian")
    return std::nullopt;
  const bool symmetric = symmetry != "general";
  EdgeList list;
  bool have_size = false;
  std::uint64_t declared = 0, seen = 0;
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const auto tokens = split(lines[l].first);
    if (tokens.empty() || tokens[0][0] == '%') continue;
    if (!have_size) {
      if (tokens.size() != 3) return std::nullopt;
      const auto m = number(tokens[0]), n = number(tokens[1]), nnz = number(tokens[2]);
      if (!m || !n || !nnz || *m != *n) return std::nullopt;
      const std::uint64_t left = text.size() > lines[l].second ? text.size() - lines[l].second : 0;
      if (*nnz > left / 4 + 1) return std::nullopt;
      list.wave_count = *m;
      declared = *nnz;
      have_size = true;
      continue;
    }
    if (seen == declared || tokens.size() != std::size_t(2 + values)) return std::nullopt;
    ++seen;
    const auto i = number(tokens[0]), j = number(tokens[1]);
    if (!i || !j || *i == 0 || *j == 0 || *i > list.wave_count || *j > list.wave_count)
      return std::nullopt;
    for (int v = 0; v < values; ++v)
      if (!(field == "integer" ? integer_token(tokens[2 + v]) : real_token(tokens[2 + v])))
        return std::nullopt;
    if (*i == *j) continue;
    const std::uint64_t r = *i - 1, c = *j - 1;
    std::optional<strata::WaveDependency<std::uint64_t>> d;
    if (triangle == Triangle::Lower) {
      if (c < r) d = {{c, r}};
      else if (symmetric) d = {{r, c}};
    } else {
      if (c > r) d = {{c, r}};
      else if (symmetric) d = {{r, c}};
    }
    if (!d) continue;
    list.dependencies.push_back(*d);
    list.max_wave_id = std::max({list.max_wave_id, d->before, d->after});
  }
  if (!have_size || seen != declared) return std::nullopt;
  return list;
}

void check_one(std::string_view text, Triangle triangle) {
  const std::string source = "fuzz.mtx";
  const std::optional<EdgeList> expected = oracle_parse(text, triangle);
  try {
    const EdgeList list = strata::io::parse_matrix_market(text, source, triangle);
    STRATA_FUZZ_CHECK(expected.has_value(), "the reader accepted an input the oracle rejects");
    STRATA_FUZZ_CHECK(same(list, *expected),
                      "reader and oracle disagree: waves %llu/%llu, deps %zu/%zu",
                      (unsigned long long)list.wave_count,
                      (unsigned long long)expected->wave_count, list.dependencies.size(),
                      expected->dependencies.size());
    std::ostringstream out;
    strata::io::write_matrix_market(out, list.wave_count, list.dependencies, triangle, "trip");
    const EdgeList again = strata::io::parse_matrix_market(out.str(), "round-trip.mtx", triangle);
    STRATA_FUZZ_CHECK(same(list, again), "write_matrix_market -> parse changed the list");
    strata::io::GraphReadOptions options;
    options.triangle = triangle;
    const auto detected = strata::io::parse_graph(text, source, options);
    STRATA_FUZZ_CHECK(detected.format == strata::io::GraphFormat::MatrixMarket &&
                          same(detected.list, list),
                      "parse_graph did not read the banner's format");
  } catch (const strata::PlanError& e) {
    strata_fuzz::check_parse_error(e, source, text, expected.has_value(), 500);
  } catch (const std::exception& e) {
    STRATA_FUZZ_CHECK(false, "unexpected exception: %s", e.what());
  }
}

/// The matrix reader (parse_matrix_market_entries) walks the same text: it
/// accepts only what the DAG reader accepts (less a complex field or a value
/// that is no finite double), every entry inside the matrix with a finite
/// value, and its entries give the DAG reader's dependencies; its errors are
/// as well formed.
void check_entries(std::string_view text) {
  const std::string source = "fuzz.mtx";
  const bool accepted = oracle_parse(text, Triangle::Lower).has_value();
  try {
    const strata::io::MatrixEntries m = strata::io::parse_matrix_market_entries(text, source);
    STRATA_FUZZ_CHECK(accepted, "the matrix reader accepted an input the DAG reader rejects");
    const EdgeList list = strata::io::parse_matrix_market(text, source, Triangle::Lower);
    STRATA_FUZZ_CHECK(m.rows == list.wave_count, "rows %llu, waves %llu",
                      (unsigned long long)m.rows, (unsigned long long)list.wave_count);
    std::size_t below = 0;  // the lower triangle's entries, mirrored ones included
    for (const auto& e : m.entries) {
      STRATA_FUZZ_CHECK(e.row < m.rows && e.column < m.rows && std::isfinite(e.value),
                        "entry (%llu, %llu) of %llu rows", (unsigned long long)e.row,
                        (unsigned long long)e.column, (unsigned long long)m.rows);
      if (e.row != e.column && (e.column < e.row || m.mirror != strata::io::Mirror::None)) ++below;
    }
    STRATA_FUZZ_CHECK(below == list.dependencies.size(), "%zu entries below the diagonal, %zu deps",
                      below, list.dependencies.size());
  } catch (const strata::PlanError& e) {
    strata_fuzz::check_parse_error(e, source, text, false, 500);
  } catch (const std::exception& e) {
    STRATA_FUZZ_CHECK(false, "unexpected exception: %s", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_one(text, Triangle::Lower);
  check_one(text, Triangle::Upper);
  check_entries(text);
  return 0;
}
