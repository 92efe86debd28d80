#pragma once
// The handle's per-position row layout (made at symbolic time) and the
// zero-diagonal search of a failed solve, as free functions: nvcc accepts an
// extended device lambda only in a function with public access.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/solve/check_triangle.hpp>

namespace strata::solve::detail {

/// layout(p, 0..2) = the first entry, the end entry and the diagonal offset
/// of row order(p): the solve streams them in level order.
template <class ExecSpace, class Order, class RowMap, class Diagonal, class Layout>
void fill_row_layout(const ExecSpace& space, const Order& order, const RowMap& row_map,
                     const Diagonal& diagonal_offset, const Layout& layout) {
  using Offset = typename Layout::non_const_value_type;
  Kokkos::parallel_for(
      "strata::solve::row_layout", Kokkos::RangePolicy<ExecSpace>(space, 0, order.extent(0)),
      KOKKOS_LAMBDA(const std::size_t p) {
        const std::size_t r = static_cast<std::size_t>(order(p));
        layout(p, 0) = static_cast<Offset>(row_map(r));
        layout(p, 1) = static_cast<Offset>(row_map(r + 1));
        layout(p, 2) = diagonal_offset(r);
      });
}

/// The defect key of the lowest row whose stored diagonal is zero (the
/// layout lists positions; the error names the lowest row, the same on every
/// backend and thread count), or no_defect.
template <class ExecSpace, class Values, class Order, class Layout>
std::uint64_t lowest_zero_diagonal(const ExecSpace& space, const Values& values,
                                   const Order& order, const Layout& layout) {
  using Scalar = typename Values::non_const_value_type;
  std::uint64_t lowest = no_defect;
  Kokkos::parallel_reduce(
      "strata::solve::lowest_zero_diagonal",
      Kokkos::RangePolicy<ExecSpace>(space, 0, order.extent(0)),
      KOKKOS_LAMBDA(const std::size_t p, std::uint64_t& low) {
        if (values(layout(p, 2)) != Scalar(0)) return;
        const std::uint64_t row = static_cast<std::uint64_t>(order(p));
        if (row < low) low = row;
      },
      Kokkos::Min<std::uint64_t>(lowest));
  space.fence();
  return lowest == no_defect ? no_defect
                             : (lowest << row_defect_bits) | unsigned(RowDefect::ZeroDiagonal);
}

}  // namespace strata::solve::detail
