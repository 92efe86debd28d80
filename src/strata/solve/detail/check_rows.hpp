#pragma once
// The checks of TriangularSolve: the structure at symbolic time (one
// parallel pass over the rows: offsets inside `entries`, columns in range
// and on the declared side, the diagonal stored exactly once where the
// diagonal is not unit) and the diagonal values at solve time (none zero).
// The first offending row (lowest index) is found by a min-reduction over
// (row << bits | defect), so the error is the same on every backend and
// thread count; its column is found on the host from that one row.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/solve/triangle.hpp>

namespace strata::solve::detail {

enum class RowDefect : unsigned {
  None = 0,
  BadOffsets = 1,
  ColumnOutOfRange = 2,
  WrongTriangle = 3,
  MissingDiagonal = 4,
  DuplicateDiagonal = 5,
  ZeroDiagonal = 6,
};
inline constexpr unsigned row_defect_bits = 3;
inline constexpr std::uint64_t no_defect = std::numeric_limits<std::uint64_t>::max();

/// The first structural defect, as (row << bits) | defect, or no_defect.
/// Where `diagonal_position` is given (size rows), fills it with the offset
/// of each valid row's diagonal entry (meaningful only when no defect).
template <class ExecSpace, class RowMap, class Entries, class Positions>
std::uint64_t first_structure_defect(const ExecSpace& space, const RowMap& row_map,
                                     const Entries& entries, Triangle triangle, bool unit,
                                     const Positions& diagonal_position) {
  const std::uint64_t rows = row_map.extent(0) - 1;
  const bool lower = triangle == Triangle::Lower;
  std::uint64_t first = no_defect;
  using Offset = typename Positions::non_const_value_type;
  Kokkos::parallel_reduce(
      "strata::solve::check_structure", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
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
            if (diagonal >= 0 && !unit) defect = unsigned(RowDefect::DuplicateDiagonal);
            if (diagonal < 0) diagonal = e;
          }
        }
        if (defect == 0 && diagonal < 0 && !unit) defect = unsigned(RowDefect::MissingDiagonal);
        diagonal_position(i) = static_cast<Offset>(diagonal < 0 ? 0 : diagonal);
        if (defect != 0) {
          const std::uint64_t key = (std::uint64_t(i) << row_defect_bits) | defect;
          if (key < lowest) lowest = key;
        }
      },
      Kokkos::Min<std::uint64_t>(first));
  return first;
}

/// The first row whose stored diagonal is zero, as a defect key, or no_defect.
template <class ExecSpace, class Values, class Positions>
std::uint64_t first_zero_diagonal(const ExecSpace& space, const Values& values,
                                  const Positions& diagonal_position) {
  std::uint64_t first = no_defect;
  using Scalar = typename Values::non_const_value_type;
  Kokkos::parallel_reduce(
      "strata::solve::check_diagonal",
      Kokkos::RangePolicy<ExecSpace>(space, 0, diagonal_position.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& lowest) {
        if (values(diagonal_position(i)) == Scalar(0)) {
          const std::uint64_t key =
              (std::uint64_t(i) << row_defect_bits) | unsigned(RowDefect::ZeroDiagonal);
          if (key < lowest) lowest = key;
        }
      },
      Kokkos::Min<std::uint64_t>(first));
  return first;
}

/// The typed error for a defect key: names the row and, where one entry is
/// at fault, its column.
template <class RowMap, class Entries>
PlanError defect_error(std::uint64_t key, const RowMap& row_map, const Entries& entries,
                       Triangle triangle) {
  const std::uint64_t row = key >> row_defect_bits;
  const auto defect = static_cast<RowDefect>(key & ((1u << row_defect_bits) - 1));
  const bool lower = triangle == Triangle::Lower;
  const std::uint64_t rows = row_map.extent(0) - 1;
  const std::string where = "TriangularSolve: row " + std::to_string(row) + " of the " +
                            triangle_name(triangle) + " triangular matrix (" +
                            std::to_string(rows) + " rows)";
  const auto bounds = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(row, row + 2)));
  const long long begin = static_cast<long long>(bounds(0));
  const long long end = static_cast<long long>(bounds(1));
  switch (defect) {
    case RowDefect::BadOffsets:
      return PlanError::invalid_argument(
          where + " spans offsets " + std::to_string(begin) + ".." + std::to_string(end) +
              ", which descend or leave entries (" + std::to_string(entries.extent(0)) +
              " entries)",
          "give row_map as nondecreasing offsets into entries");
    case RowDefect::MissingDiagonal:
      return PlanError::invalid_argument(
          where + " has no diagonal entry (column " + std::to_string(row) + ")",
          "store the diagonal of every row, or solve with Diagonal::Unit if it is one");
    case RowDefect::DuplicateDiagonal:
      return PlanError::invalid_argument(
          where + " stores its diagonal (column " + std::to_string(row) + ") more than once",
          "sum the duplicate entries into one");
    case RowDefect::ZeroDiagonal:
      return PlanError::invalid_argument(
          where + " has a zero diagonal (column " + std::to_string(row) +
              "): the matrix is singular",
          "give a nonzero diagonal in every row (or Diagonal::Unit for a unit diagonal)");
    default: break;
  }
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
        "give column indices below the row count (a square matrix)");
  return PlanError::invalid_argument(
      where + " holds column " + std::to_string(col) + (lower ? ", above" : ", below") +
          " the diagonal: the matrix is not " + triangle_name(triangle) + " triangular",
      std::string("give only the ") + triangle_name(triangle) +
          " triangle and the diagonal, or declare Triangle::" + (lower ? "Upper" : "Lower") +
          " if the matrix is " + (lower ? "upper" : "lower") + " triangular");
}

}  // namespace strata::solve::detail
