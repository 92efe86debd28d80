#pragma once
// The edge-list format line by line: the pieces parse_edge_list is made of,
// public for readers that split a file themselves (the distributed reader,
// distributed/read_edge_list_distributed.cpp, reads its share of the lines
// on every rank), so every reader reports identical errors. `number` is the
// 1-based line number and `source` the file name the errors name.
#include <cstdint>
#include <string>
#include <string_view>

#include <strata/core/error.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata::io {

/// The first data line: "V E".
struct EdgeListHeader {
  std::uint64_t wave_count = 0;
  std::uint64_t dependency_count = 0;
};

/// Blank, or a comment ('#' first after any blanks): not a data line.
bool is_blank_or_comment(std::string_view line);

/// The header line; `bytes_left`: bytes of the input after this line's
/// newline (a header declaring more dependencies than could fit is refused).
/// Throws ParseError.
EdgeListHeader parse_header_line(std::string_view line, std::uint64_t number,
                                 const std::string& source, std::uint64_t bytes_left);

/// A dependency line "before after". Throws ParseError.
WaveDependency<std::uint64_t> parse_dependency_line(std::string_view line, std::uint64_t number,
                                                    const std::string& source);

/// The errors of a whole file: a dependency line beyond the declared count,
/// no header at all, fewer dependency lines than declared.
PlanError extra_dependency_line_error(const std::string& source, std::uint64_t number,
                                      std::uint64_t declared);
PlanError missing_header_error(const std::string& source, std::uint64_t lines);
PlanError dependency_count_error(const std::string& source, std::uint64_t lines,
                                 std::uint64_t declared, std::uint64_t found);

}  // namespace strata::io
