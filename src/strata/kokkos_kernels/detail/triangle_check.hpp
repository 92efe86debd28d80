#pragma once
// Validation of a triangular CSR for the sptrsv symbolic phase, in one
// parallel pass over the rows: every row's offsets ascend and stay inside
// `entries`, every column lies
// in 0..rows-1 and in the declared triangle (column <= row for lower,
// >= row for upper), and the row stores its diagonal. The first offending row
// (lowest index; inside it the first offending entry) is found with a
// min-reduction, so the error is the same on every backend and thread count.
// A diagonal stored more than once is allowed (the levels skip every
// diagonal entry).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>

namespace strata::kokkos_kernels::detail {

/// What is wrong with a row (the low bits of the reduction key).
enum class RowDefect : unsigned {
  None = 0,
  BadOffsets = 1,  ///< the row's offsets descend or leave `entries`
  ColumnOutOfRange = 2,
  WrongTriangle = 3,
  MissingDiagonal = 4
};
inline constexpr unsigned row_defect_bits = 3;

/// A row's position in the dependency list: lower triangular rows in order,
/// upper triangular rows from the bottom (row rows-1 first).
KOKKOS_INLINE_FUNCTION std::uint64_t row_position(std::uint64_t row, std::uint64_t rows,
                                                  bool lower) {
  return lower ? row : rows - 1 - row;
}

/// Checks every row. Returns the reduction key of the first offending row,
/// (row << bits) | defect, or UINT64_MAX when the matrix is valid.
template <class ExecSpace, class RowMap, class Entries>
std::uint64_t first_row_defect(const ExecSpace& space, const RowMap& row_map,
                               const Entries& entries, bool lower) {
  const std::uint64_t rows = row_map.extent(0) - 1;
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
  Kokkos::parallel_reduce(
      "strata::kokkos_kernels::check_triangle", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& lowest) {
        const long long begin = static_cast<long long>(row_map(i));
        const long long end = static_cast<long long>(row_map(i + 1));
        const long long n = static_cast<long long>(rows);
        const long long row = static_cast<long long>(i);
        const bool inside = begin >= 0 && end >= begin &&
                            static_cast<std::uint64_t>(end) <= entries.extent(0);
        unsigned defect = inside ? 0u : unsigned(RowDefect::BadOffsets);
        bool diagonal = false;
        for (long long e = begin; defect == 0 && e < end; ++e) {
          const long long col = static_cast<long long>(entries(e));
          if (col < 0 || col >= n) {
            defect = unsigned(RowDefect::ColumnOutOfRange);
          } else if (lower ? col > row : col < row) {
            defect = unsigned(RowDefect::WrongTriangle);
          } else if (col == row) {
            diagonal = true;
          }
        }
        if (defect == 0 && !diagonal) defect = unsigned(RowDefect::MissingDiagonal);
        if (defect != 0) {
          const std::uint64_t key = (std::uint64_t(i) << row_defect_bits) | defect;
          if (key < lowest) lowest = key;
        }
      },
      Kokkos::Min<std::uint64_t>(first));
  return first;
}

/// The error for a defect key of first_row_defect (reads the row's entries
/// to name the offending column).
template <class RowMap, class Entries>
PlanError row_defect_error(std::uint64_t key, const RowMap& row_map, const Entries& entries,
                           bool lower) {
  const std::uint64_t row = key >> row_defect_bits;
  const auto defect = static_cast<RowDefect>(key & ((1u << row_defect_bits) - 1));
  const std::uint64_t rows = row_map.extent(0) - 1;
  const std::string where = "sptrsv_symbolic: row " + std::to_string(row) + " of the " +
                            (lower ? "lower" : "upper") + " triangular matrix (" +
                            std::to_string(rows) + " rows)";
  const auto bounds = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(row, row + 2)));
  const long long begin = static_cast<long long>(bounds(0));
  const long long end = static_cast<long long>(bounds(1));
  if (defect == RowDefect::BadOffsets)
    return PlanError::invalid_argument(
        where + " spans offsets " + std::to_string(begin) + ".." + std::to_string(end) +
            ", which descend or leave entries (" + std::to_string(entries.extent(0)) +
            " entries)",
        "give row_map as nondecreasing offsets into entries (row_map(i) .. row_map(i+1) - 1 "
        "are row i's entries)");
  if (defect == RowDefect::MissingDiagonal)
    return PlanError::invalid_argument(
        where + " has no diagonal entry",
        "store the diagonal of every row (the solve divides by it), also where it is 1");
  // Find the entry again: the first one of the row that is out of range or on
  // the wrong side of the diagonal.
  const auto row_entries = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(entries, std::make_pair(std::size_t(begin), std::size_t(end))));
  long long col = 0;
  for (std::size_t e = 0; e < row_entries.extent(0); ++e) {
    col = static_cast<long long>(row_entries(e));
    const bool out = col < 0 || static_cast<std::uint64_t>(col) >= rows;
    const bool wrong = lower ? col > static_cast<long long>(row) : col < static_cast<long long>(row);
    if (out || wrong) break;
  }
  if (defect == RowDefect::ColumnOutOfRange)
    return PlanError::invalid_argument(
        where + " holds column " + std::to_string(col) + ", outside 0.." +
            std::to_string(rows == 0 ? 0 : rows - 1),
        "give column indices below the row count (a square matrix; row_map has rows + 1 "
        "entries)");
  return PlanError::invalid_argument(
      where + " holds column " + std::to_string(col) + (lower ? ", above" : ", below") +
          " the diagonal: the matrix is not " + (lower ? "lower" : "upper") + " triangular",
      std::string("give only the ") + (lower ? "lower" : "upper") +
          " triangle and the diagonal, or create the sptrsv handle with lower_tri = " +
          (lower ? "false" : "true") + " if the matrix is " + (lower ? "upper" : "lower") +
          " triangular");
}

}  // namespace strata::kokkos_kernels::detail
