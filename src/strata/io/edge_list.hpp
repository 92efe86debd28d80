#pragma once
// The edge-list text format:
//
//   # comment lines start with '#'; blank lines are ignored
//   V E            first data line: wave count, dependency count
//   before after   then exactly E lines, 0-based wave ids
//
// Parse errors are PlanError{ParseError} naming the source and the 1-based
// line; an unreadable file is PlanError{IoError}. Values are read as unsigned
// 64-bit integers: range checks against V are the planner's job (InvalidWave).

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/io/edge_list_lines.hpp>

namespace strata::io {

struct EdgeList {
  std::uint64_t wave_count = 0;
  std::vector<WaveDependency<std::uint64_t>> dependencies;
  std::uint64_t max_wave_id = 0;  ///< largest id named by any dependency (0 if none)
};

/// Parses edge-list text; `source` names it in error messages.
/// `memory_budget_bytes` (0: unbounded) bounds what parsing holds: the text
/// plus the dependency list the header declares (16 bytes each); a header
/// whose list cannot fit is MemoryConstrained before anything is reserved.
/// A failed reservation is StorageReserveFailed.
EdgeList parse_edge_list(std::string_view text, const std::string& source,
                         std::uint64_t memory_budget_bytes = 0);

/// Reads (read_text.hpp: budget, binary input, unreadable paths) and parses a
/// file. For input in either format (Matrix Market too) see read_graph.hpp.
EdgeList read_edge_list(const std::string& path, std::uint64_t memory_budget_bytes = 0);

/// Text as it can be shown on a terminal: control bytes (newline, ESC, ...),
/// DEL, C1 controls and bytes that are not UTF-8 become `\xHH`; printable
/// ASCII and UTF-8 characters stay as they are. Used for file paths and
/// command-line values quoted in messages.
std::string printable(std::string_view text);

/// Writes the edge-list format (header comment, `V E`, one line per dependency).
void write_edge_list(std::ostream& out, std::uint64_t wave_count,
                     const std::vector<WaveDependency<std::uint64_t>>& dependencies,
                     const std::string& comment = {});

/// Text holds no NUL byte: throws ParseError "not a text edge list: NUL byte
/// at byte OFFSET+i" (line: `first_line` plus the newlines before it) for the
/// first NUL in `text`, the input's bytes from `offset` on ("not a text
/// Matrix Market file" when `offset` is 0 and `text` starts with the
/// "%%MatrixMarket" banner). The single-process and the distributed
/// readers both check with it, so a binary input answers alike in both.
void reject_binary(std::string_view text, std::uint64_t offset, std::uint64_t first_line,
                   const std::string& source);

}  // namespace strata::io
