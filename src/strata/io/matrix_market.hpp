#pragma once
// Matrix Market input: the sparsity pattern of a square matrix as a wave
// dependency DAG, the way a sparse triangular solve orders its rows.
//
//   %%MatrixMarket matrix coordinate FIELD SYMMETRY     the banner (line 1)
//   % comment lines start with '%'; blank lines are ignored
//   M N NNZ                                             the size line (M = N)
//   i j [value...]                                      then exactly NNZ entries
//
// FIELD: real | integer | complex | pattern (0, 1, 2 or 0 value tokens, each
// checked to be a number of that field and otherwise ignored); SYMMETRY:
// general | symmetric | skew-symmetric | hermitian (for the last three, an
// entry (i, j) stands for both (i, j) and (j, i)). Indices are 1-based. The
// keywords are case-insensitive, the banner token is not.
//
// The DAG has one wave per row (wave r-1 for row r). With Triangle::Lower,
// row i waits for every column j < i it holds (dependency j-1 -> i-1); with
// Triangle::Upper, for every column j > i. The diagonal and the other
// triangle are ignored; duplicate entries give duplicate dependencies, which
// change nothing in a plan.
//
// parse_matrix_market_entries reads the same files as a matrix: every stored
// entry with its value (the solve's input, `strata solve`).
//
// Errors, as in the edge-list reader (edge_list.hpp, read_text.hpp): a
// malformed file (bad banner, the array format, bad size line, an index out
// of range, too few or too many entries, a value that is not a number of the
// field) is PlanError{ParseError} naming the source and the 1-based line,
// with a Fix: hint; the memory budget and a size line claiming more entries
// than the text can hold are checked before anything is reserved.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <strata/graph/wave_dependency.hpp>
#include <strata/io/edge_list.hpp>

namespace strata::io {

/// Which triangle of the matrix defines the DAG.
enum class Triangle { Lower, Upper };

/// "lower" or "upper".
const char* triangle_name(Triangle triangle);

/// "lower" / "upper"; anything else is PlanError{InvalidArgument}.
Triangle parse_triangle(std::string_view text);

/// Throws the ParseError parse_matrix_market throws for a file whose first
/// line (without its '\n') is `first_line` when that line is not a banner
/// it reads; nothing otherwise. For a caller that refuses Matrix Market
/// (the distributed tool) but must answer a malformed file as the reader does.
void check_matrix_market_banner(std::string_view first_line, const std::string& source);

/// Parses Matrix Market text; `source` names it in error messages.
/// `memory_budget_bytes` (0: unbounded) bounds the text plus the dependency
/// list (16 bytes per declared entry): beyond it is MemoryConstrained before
/// anything is reserved; a failed reservation is StorageReserveFailed.
EdgeList parse_matrix_market(std::string_view text, const std::string& source,
                             Triangle triangle = Triangle::Lower,
                             std::uint64_t memory_budget_bytes = 0);

/// Reads (read_text.hpp) and parses a Matrix Market file.
EdgeList read_matrix_market(const std::string& path, Triangle triangle = Triangle::Lower,
                            std::uint64_t memory_budget_bytes = 0);

/// One stored entry of a matrix: 0-based row and column, and its value (1
/// in a pattern file).
struct MatrixEntry {
  std::uint64_t row = 0;
  std::uint64_t column = 0;
  double value = 0;
};

/// What a stored entry (i, j), i != j, also stands for: nothing (general),
/// (j, i) with the same value (symmetric, hermitian) or the negated one
/// (skew-symmetric).
enum class Mirror { None, Same, Negated };

/// A square matrix's entries with their values, as the file stores them (in
/// file order, duplicates kept; a symmetric file holds one triangle).
struct MatrixEntries {
  std::uint64_t rows = 0;
  bool pattern = false;  ///< FIELD pattern: the file holds no values
  Mirror mirror = Mirror::None;
  std::vector<MatrixEntry> entries;
};

/// Parses Matrix Market text with its values (the matrix, not its DAG):
/// the same format and errors as parse_matrix_market, and also a complex
/// field or a value that is not a finite double (inf, nan, 1e999) is
/// ParseError. `memory_budget_bytes` (0: unbounded) bounds the text plus the
/// entries (24 bytes per declared entry), checked before anything is reserved.
MatrixEntries parse_matrix_market_entries(std::string_view text, const std::string& source,
                                          std::uint64_t memory_budget_bytes = 0);

/// Reads (read_text.hpp) and parses a Matrix Market file with its values.
MatrixEntries read_matrix_market_entries(const std::string& path,
                                         std::uint64_t memory_budget_bytes = 0);

/// Writes the DAG as the pattern of a `wave_count` x `wave_count` matrix
/// ("%%MatrixMarket matrix coordinate pattern general"): dependency b -> a
/// is the entry (a+1, b+1) for Triangle::Lower, which needs b < a (wave ids
/// in topological order), and likewise b > a for Triangle::Upper; a
/// dependency on the wrong side is PlanError{InvalidArgument}, checked before
/// anything is written. With `diagonal`, every row also holds its diagonal
/// entry (as a triangular factor does). Reading it back with the same
/// triangle gives the same dependencies.
void write_matrix_market(std::ostream& out, std::uint64_t wave_count,
                         const std::vector<WaveDependency<std::uint64_t>>& dependencies,
                         Triangle triangle = Triangle::Lower, const std::string& comment = {},
                         bool diagonal = false);

}  // namespace strata::io
