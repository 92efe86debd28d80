#pragma once
// What the reader harnesses (fuzz_edge_list, fuzz_matrix_market) check of
// every result: an accepted graph equals the oracle's (same), a rejected
// input is a ParseError naming the source and a line of the input, with the
// "ParseError: SOURCE:LINE: " prefix, a Fix: hint, a bounded length and a
// printable message (check_parse_error).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <strata/core/error.hpp>
#include <strata/io/edge_list.hpp>

#include "fuzz_check.hpp"

namespace strata_fuzz {

inline std::uint64_t line_count(std::string_view text) {
  std::uint64_t lines = 0;
  for (std::size_t pos = 0; pos < text.size(); ++lines) {
    const std::size_t end = text.find('\n', pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
  }
  return lines;
}

inline bool same(const strata::io::EdgeList& a, const strata::io::EdgeList& b) {
  return a.wave_count == b.wave_count && a.max_wave_id == b.max_wave_id &&
         a.dependencies == b.dependencies;
}

/// The reader rejected `text` (read as `source`) with `e`; `accepted`: the
/// oracle accepted it. Messages stay under `max_bytes`.
inline void check_parse_error(const strata::PlanError& e, const std::string& source,
                              std::string_view text, bool accepted, std::size_t max_bytes) {
  const std::string what = e.what();
  STRATA_FUZZ_CHECK(!accepted, "the reader rejected a valid input: %s", what.c_str());
  STRATA_FUZZ_CHECK(e.kind() == strata::ErrorKind::ParseError, "kind is not ParseError: %s",
                    what.c_str());
  STRATA_FUZZ_CHECK(e.field() == source, "error names source '%s'", e.field().c_str());
  const std::uint64_t lines = line_count(text);
  STRATA_FUZZ_CHECK(e.line() <= lines && (e.line() >= 1 || lines == 0),
                    "line %llu outside 1..%llu", (unsigned long long)e.line(),
                    (unsigned long long)lines);
  const std::string prefix = "ParseError: " + source + ":" + std::to_string(e.line()) + ": ";
  STRATA_FUZZ_CHECK(what.compare(0, prefix.size(), prefix) == 0, "message prefix: %s",
                    what.c_str());
  STRATA_FUZZ_CHECK(what.find(". Fix: ") != std::string::npos, "no Fix: hint: %s",
                    what.c_str());
  STRATA_FUZZ_CHECK(what.size() < max_bytes, "message of %zu bytes", what.size());
  for (const char c : e.message())
    STRATA_FUZZ_CHECK(c >= 0x20 && c < 0x7f, "unprintable byte 0x%02x in the message",
                      static_cast<unsigned>(static_cast<unsigned char>(c)));
}

}  // namespace strata_fuzz
