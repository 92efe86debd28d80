#pragma once
// Which text format a graph input is in, from its first bytes (and, as a
// second hint, the file name): the readers and the tool agree on one rule.
//
//   Matrix Market  the input's first byte that is not white space is '%'
//                  (its banner is "%%MatrixMarket ...", and an edge list
//                  cannot start with '%'), or the path ends in ".mtx" (a
//                  .mtx file without its banner is then a ParseError naming
//                  the banner)
//   edge list      anything else
#include <string_view>

namespace strata::io {

enum class GraphFormat { EdgeList, MatrixMarket };

inline const char* graph_format_name(GraphFormat format) {
  return format == GraphFormat::MatrixMarket ? "Matrix Market" : "edge list";
}

/// `text` from its first byte that is not white space on (empty if none):
/// where both rules below look.
inline std::string_view after_leading_blanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string_view() : text.substr(first);
}

/// `text` starts, after white space, with the banner's "%%MatrixMarket".
inline bool starts_with_matrix_market_banner(std::string_view text) {
  constexpr std::string_view banner = "%%MatrixMarket";
  return after_leading_blanks(text).substr(0, banner.size()) == banner;
}

/// The format of `text` (the input's first bytes are enough; `path` may be empty).
inline GraphFormat detect_graph_format(std::string_view text, std::string_view path = {}) {
  // (found by fuzz_matrix_market: "\t%%MatrixMarket ..." was read as an edge list)
  if (after_leading_blanks(text).substr(0, 1) == "%") return GraphFormat::MatrixMarket;
  constexpr std::string_view mtx = ".mtx";
  if (path.size() >= mtx.size() && path.substr(path.size() - mtx.size()) == mtx)
    return GraphFormat::MatrixMarket;
  return GraphFormat::EdgeList;
}

}  // namespace strata::io
