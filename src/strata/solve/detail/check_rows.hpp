#pragma once
// The checks of TriangularSolve: the structure at symbolic time
// (check_triangle.hpp: offsets inside `entries`, columns in range and on the
// declared side, the diagonal stored exactly once where the diagonal is not
// unit), and the typed error of a defect key (the zero-diagonal search at
// solve time is row_layout.hpp's lowest_zero_diagonal).
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

/// The typed error for a defect key of either check, in TriangularSolve's words.
template <class RowMap, class Entries>
PlanError defect_error(std::uint64_t key, const RowMap& row_map, const Entries& entries,
                       Triangle triangle) {
  return row_defect_error(key, row_map, entries, solve_check(triangle, false));
}

}  // namespace strata::solve::detail
