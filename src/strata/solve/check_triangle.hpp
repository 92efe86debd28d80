#pragma once
// The structural check of a triangular CSR matrix, in one parallel pass over
// the rows: every row's offsets ascend and stay inside `entries`, every
// column lies in 0..rows-1 and in the declared triangle (column <= row for
// lower, >= row for upper), and — as the caller asks — the row stores its
// diagonal, once. The first offending row (lowest index) is found by a
// min-reduction over (row << bits | defect), so the error is the same on
// every backend and thread count; its column is found on the host from that
// one row.
//
// TriangularSolve checks its matrix with it, and so does the Kokkos Kernels
// interop (strata::kokkos_kernels::sptrsv_symbolic): the check is the same,
// only the words of the errors differ (who is checking, and how its caller
// declares the other triangle or a unit diagonal): TriangleCheckWording.
//
//   strata::solve::TriangleCheck check;            // lower, diagonal required
//   strata::solve::check_triangle(space, row_map, entries, check);  // throws PlanError
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/solve/triangle.hpp>

namespace strata::solve {

/// What is wrong with a row (the low bits of a defect key).
enum class RowDefect : unsigned {
  None = 0,
  BadOffsets = 1,  ///< the row's offsets descend or leave `entries`
  ColumnOutOfRange = 2,
  WrongTriangle = 3,
  MissingDiagonal = 4,
  DuplicateDiagonal = 5,
  ZeroDiagonal = 6,
};
inline constexpr unsigned row_defect_bits = 3;
/// The key of a matrix without a defect (every real key is below it).
inline constexpr std::uint64_t no_defect = std::numeric_limits<std::uint64_t>::max();

/// The caller's words in the errors: its name and its fixes. The defaults
/// are TriangularSolve's.
struct TriangleCheckWording {
  const char* caller = "TriangularSolve";
  /// The fix for offsets that descend or leave `entries`.
  const char* offsets_fix = "give row_map as nondecreasing offsets into entries";
  /// The fix for a column outside 0..rows-1.
  const char* columns_fix = "give column indices below the row count (a square matrix)";
  /// The fix for a row without its diagonal.
  const char* missing_diagonal_fix =
      "store the diagonal of every row, or solve with Diagonal::Unit if it is one";
  /// Whether the missing-diagonal error names the diagonal's column.
  bool name_missing_column = true;
  /// How the caller declares the matrix upper (resp. lower) triangular: the
  /// fix for an entry on the wrong side of the diagonal.
  const char* declare_upper = "declare Triangle::Upper";
  const char* declare_lower = "declare Triangle::Lower";
};

/// What check_triangle checks.
struct TriangleCheck {
  Triangle triangle = Triangle::Lower;
  bool diagonal_required = true;          ///< a row without its diagonal is a defect
  bool duplicate_diagonal_allowed = false;  ///< a diagonal stored twice is not
  TriangleCheckWording wording = {};
};

/// The first structural defect, as (row << bits) | defect, or no_defect.
/// Where `diagonal_position` has one entry per row, fills it with the offset
/// of each valid row's (first) diagonal entry, 0 where it has none
/// (meaningful only when there is no defect); an empty one is left alone.
template <class ExecSpace, class RowMap, class Entries, class Positions>
std::uint64_t first_row_defect(const ExecSpace& space, const RowMap& row_map,
                               const Entries& entries, const TriangleCheck& check,
                               const Positions& diagonal_position) {
  const std::uint64_t rows = row_map.extent(0) - 1;
  const bool lower = check.triangle == Triangle::Lower;
  const bool required = check.diagonal_required;
  const bool duplicate_allowed = check.duplicate_diagonal_allowed;
  const bool record = diagonal_position.extent(0) == rows;
  std::uint64_t first = no_defect;
  using Offset = typename Positions::non_const_value_type;
  Kokkos::parallel_reduce(
      "strata::solve::check_triangle", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& lowest) {
        const long long begin = static_cast<long long>(row_map(i));
        const long long end = static_cast<long long>(row_map(i + 1));
        const long long n = static_cast<long long>(rows);
        const long long row = static_cast<long long>(i);
        const bool inside =
            begin >= 0 && end >= begin && static_cast<std::uint64_t>(end) <= entries.extent(0);
        unsigned defect = inside ? 0u : unsigned(RowDefect::BadOffsets);
        long long diagonal = -1;
        for (long long e = begin; defect == 0 && e < end; ++e) {
          const long long col = static_cast<long long>(entries(e));
          if (col < 0 || col >= n) {
            defect = unsigned(RowDefect::ColumnOutOfRange);
          } else if (lower ? col > row : col < row) {
            defect = unsigned(RowDefect::WrongTriangle);
          } else if (col == row) {
            if (diagonal >= 0 && !duplicate_allowed) defect = unsigned(RowDefect::DuplicateDiagonal);
            if (diagonal < 0) diagonal = e;
          }
        }
        if (defect == 0 && diagonal < 0 && required) defect = unsigned(RowDefect::MissingDiagonal);
        if (record) diagonal_position(i) = static_cast<Offset>(diagonal < 0 ? 0 : diagonal);
        if (defect != 0) {
          const std::uint64_t key = (std::uint64_t(i) << row_defect_bits) | defect;
          if (key < lowest) lowest = key;
        }
      },
      Kokkos::Min<std::uint64_t>(first));
  return first;
}

/// The first structural defect, without recording the diagonals.
template <class ExecSpace, class RowMap, class Entries>
std::uint64_t first_row_defect(const ExecSpace& space, const RowMap& row_map,
                               const Entries& entries, const TriangleCheck& check) {
  return first_row_defect(space, row_map, entries, check,
                          Kokkos::View<std::size_t*, typename ExecSpace::memory_space>());
}

/// The typed error (PlanError, InvalidArgument) for a defect key: names the
/// row and, where one entry is at fault, its column.
template <class RowMap, class Entries>
PlanError row_defect_error(std::uint64_t key, const RowMap& row_map, const Entries& entries,
                           const TriangleCheck& check) {
  const TriangleCheckWording& words = check.wording;
  const Triangle triangle = check.triangle;
  const std::uint64_t row = key >> row_defect_bits;
  const auto defect = static_cast<RowDefect>(key & ((1u << row_defect_bits) - 1));
  const bool lower = triangle == Triangle::Lower;
  const std::uint64_t rows = row_map.extent(0) - 1;
  const std::string where = std::string(words.caller) + ": row " + std::to_string(row) +
                            " of the " + triangle_name(triangle) + " triangular matrix (" +
                            std::to_string(rows) + " rows)";
  const auto bounds = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(row, row + 2)));
  const long long begin = static_cast<long long>(bounds(0));
  const long long end = static_cast<long long>(bounds(1));
  const std::string diagonal_column = " (column " + std::to_string(row) + ")";
  switch (defect) {
    case RowDefect::BadOffsets:
      return PlanError::invalid_argument(
          where + " spans offsets " + std::to_string(begin) + ".." + std::to_string(end) +
              ", which descend or leave entries (" + std::to_string(entries.extent(0)) +
              " entries)",
          words.offsets_fix);
    case RowDefect::MissingDiagonal:
      return PlanError::invalid_argument(
          where + " has no diagonal entry" + (words.name_missing_column ? diagonal_column : ""),
          words.missing_diagonal_fix);
    case RowDefect::DuplicateDiagonal:
      return PlanError::invalid_argument(
          where + " stores its diagonal" + diagonal_column + " more than once",
          "sum the duplicate entries into one");
    case RowDefect::ZeroDiagonal:
      return PlanError::invalid_argument(
          where + " has a zero diagonal" + diagonal_column + ": the matrix is singular",
          "give a nonzero diagonal in every row (or Diagonal::Unit for a unit diagonal)");
    default: break;
  }
  // Find the entry again: the first one of the row that is out of range or
  // on the wrong side of the diagonal.
  const auto row_entries = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      Kokkos::subview(entries, std::make_pair(std::size_t(begin), std::size_t(end))));
  long long col = 0;
  for (std::size_t e = 0; e < row_entries.extent(0); ++e) {
    col = static_cast<long long>(row_entries(e));
    const bool out = col < 0 || static_cast<std::uint64_t>(col) >= rows;
    const bool wrong =
        lower ? col > static_cast<long long>(row) : col < static_cast<long long>(row);
    if (out || wrong) break;
  }
  if (defect == RowDefect::ColumnOutOfRange)
    return PlanError::invalid_argument(
        where + " holds column " + std::to_string(col) + ", outside 0.." +
            std::to_string(rows == 0 ? 0 : rows - 1),
        words.columns_fix);
  return PlanError::invalid_argument(
      where + " holds column " + std::to_string(col) + (lower ? ", above" : ", below") +
          " the diagonal: the matrix is not " + triangle_name(triangle) + " triangular",
      std::string("give only the ") + triangle_name(triangle) + " triangle and the diagonal, or " +
          (lower ? words.declare_upper : words.declare_lower) + " if the matrix is " +
          (lower ? "upper" : "lower") + " triangular");
}

/// Checks the structure of a triangular CSR (row_map: rows + 1 offsets, not
/// empty) on `space`; throws the PlanError of its first offending row.
template <class ExecSpace, class RowMap, class Entries>
void check_triangle(const ExecSpace& space, const RowMap& row_map, const Entries& entries,
                    const TriangleCheck& check) {
  const std::uint64_t defect = first_row_defect(space, row_map, entries, check);
  if (defect != no_defect) throw row_defect_error(defect, row_map, entries, check);
}

}  // namespace strata::solve
