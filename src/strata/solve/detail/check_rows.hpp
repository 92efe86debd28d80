#pragma once
// The checks of TriangularSolve: the structure at symbolic time
// (check_triangle.hpp: offsets inside `entries`, columns in range and on the
// declared side, the diagonal stored exactly once where the diagonal is not
// unit) and the diagonal values at solve time (none zero), with the same
// deterministic first-row defect keys.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/solve/check_triangle.hpp>
#include <strata/solve/triangle.hpp>

namespace strata::solve::detail {

using solve::no_defect;

/// TriangularSolve's structural check: a unit diagonal may be absent or
/// stored more than once (it is not read), any other is stored once.
inline TriangleCheck solve_check(Triangle triangle, bool unit) {
  TriangleCheck check;
  check.triangle = triangle;
  check.diagonal_required = !unit;
  check.duplicate_diagonal_allowed = unit;
  return check;
}

/// The first structural defect, as (row << bits) | defect, or no_defect;
/// fills `diagonal_position` (size rows) with each valid row's diagonal offset.
template <class ExecSpace, class RowMap, class Entries, class Positions>
std::uint64_t first_structure_defect(const ExecSpace& space, const RowMap& row_map,
                                     const Entries& entries, Triangle triangle, bool unit,
                                     const Positions& diagonal_position) {
  return first_row_defect(space, row_map, entries, solve_check(triangle, unit),
                          diagonal_position);
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

/// The typed error for a defect key of either check, in TriangularSolve's words.
template <class RowMap, class Entries>
PlanError defect_error(std::uint64_t key, const RowMap& row_map, const Entries& entries,
                       Triangle triangle) {
  return row_defect_error(key, row_map, entries, solve_check(triangle, false));
}

}  // namespace strata::solve::detail
