#pragma once
// The handle's per-position row layout (made at symbolic time) and the
// zero-diagonal search of a failed solve, as free functions: nvcc accepts an
// extended device lambda only in a function with public access.
//
// A position p (level order) keeps 4 + sizeof(offset) + 4 bytes: its row,
// the row's first entry, and the row's length and diagonal (relative to the
// first entry) packed in 16 bits each. The solve streams the three arrays in
// position order (contiguous, coalesced on a device) instead of reaching
// row_map and the diagonal through the row index. A row of 65,535 entries
// or more (rare in a triangular factor) is "wide": its packed word is the
// marker and its end and diagonal sit in `wide`, which has one slot per
// position only where some row is wide and is empty otherwise. The kernels
// are compiled for either case (Wide): a layout without wide rows decodes
// every row without testing for the marker (the test costs about 10% of a
// host solve of short rows).
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/solve/check_triangle.hpp>

namespace strata::solve::detail {

/// A row's entries [begin, end) and its diagonal's offset.
template <class PlanOffset>
struct RowSpan {
  PlanOffset begin, end, diagonal;
};

/// The level-ordered rows and their entry ranges (see the header comment);
/// Wide: some row may be wide (`wide` has a slot per position).
template <class Mem, class PlanOrdinal, class PlanOffset, bool Wide = true>
struct RowLayout {
  /// The packed word of a wide row; a narrow row's length and relative
  /// diagonal are both below it.
  static constexpr std::uint32_t wide_marker = 0xFFFFu;
  static constexpr bool wide_rows = Wide;
  Kokkos::View<const PlanOrdinal*, Mem> order;    ///< position -> row
  Kokkos::View<const PlanOffset*, Mem> first;     ///< position -> its row's first entry
  Kokkos::View<const std::uint32_t*, Mem> shape;  ///< position -> length | diagonal << 16
  Kokkos::View<const PlanOffset* [2], Mem> wide;  ///< position -> end, diagonal (wide rows)

  /// The same Views for kernels that know whether a row is wide.
  template <bool W>
  RowLayout<Mem, PlanOrdinal, PlanOffset, W> as() const {
    return {order, first, shape, wide};
  }
  KOKKOS_FORCEINLINE_FUNCTION std::size_t row(std::size_t p) const {
    return static_cast<std::size_t>(order(p));
  }
  KOKKOS_FORCEINLINE_FUNCTION RowSpan<PlanOffset> span(std::size_t p) const {
    const PlanOffset begin = first(p);
    const std::uint32_t packed = shape(p);
    if constexpr (Wide) {
      if (packed == wide_marker) return {begin, wide(p, 0), wide(p, 1)};
    }
    return {begin, PlanOffset(begin + (packed & 0xFFFFu)), PlanOffset(begin + (packed >> 16))};
  }
};

/// Whether some row of `row_map` has at least RowLayout::wide_marker entries.
template <class ExecSpace, class RowMap>
bool has_wide_row(const ExecSpace& space, const RowMap& row_map) {
  const std::size_t rows = row_map.extent(0) - 1;
  int wide = 0;
  Kokkos::parallel_reduce(
      "strata::solve::wide_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t r, int& any) {
        if (std::uint64_t(row_map(r + 1) - row_map(r)) >= 0xFFFFu) any = 1;
      },
      Kokkos::Max<int>(wide));
  space.fence();
  return wide > 0;  // the reduction starts from the lowest int
}

/// Fills first, shape (and wide, where it has a slot per position) of the
/// rows in `order`; `diagonal_offset` is ignored for a unit diagonal.
template <class ExecSpace, class Order, class RowMap, class Diagonal, class First, class Shape,
          class Wide>
void fill_row_layout(const ExecSpace& space, const Order& order, const RowMap& row_map,
                     const Diagonal& diagonal_offset, bool unit, const First& first,
                     const Shape& shape, const Wide& wide) {
  using Offset = typename First::non_const_value_type;
  const bool has_wide = wide.extent(0) != 0;
  Kokkos::parallel_for(
      "strata::solve::row_layout", Kokkos::RangePolicy<ExecSpace>(space, 0, order.extent(0)),
      KOKKOS_LAMBDA(const std::size_t p) {
        const std::size_t r = static_cast<std::size_t>(order(p));
        const Offset begin = static_cast<Offset>(row_map(r));
        const Offset end = static_cast<Offset>(row_map(r + 1));
        const Offset diagonal = unit ? begin : static_cast<Offset>(diagonal_offset(r));
        first(p) = begin;
        if (std::uint64_t(end - begin) < 0xFFFFu) {
          shape(p) = std::uint32_t(end - begin) | (std::uint32_t(diagonal - begin) << 16);
        } else {
          shape(p) = 0xFFFFu;
          if (has_wide) {
            wide(p, 0) = end;
            wide(p, 1) = diagonal;
          }
        }
      });
}

/// The defect key of the lowest row whose stored diagonal is zero (the
/// layout lists positions; the error names the lowest row, the same on every
/// backend and thread count), or no_defect.
template <class ExecSpace, class Values, class Layout>
std::uint64_t lowest_zero_diagonal(const ExecSpace& space, const Values& values,
                                   const Layout& layout) {
  using Scalar = typename Values::non_const_value_type;
  std::uint64_t lowest = no_defect;
  Kokkos::parallel_reduce(
      "strata::solve::lowest_zero_diagonal",
      Kokkos::RangePolicy<ExecSpace>(space, 0, layout.order.extent(0)),
      KOKKOS_LAMBDA(const std::size_t p, std::uint64_t& low) {
        if (values(layout.span(p).diagonal) != Scalar(0)) return;
        const std::uint64_t row = static_cast<std::uint64_t>(layout.row(p));
        if (row < low) low = row;
      },
      Kokkos::Min<std::uint64_t>(lowest));
  space.fence();
  return lowest == no_defect ? no_defect
                             : (lowest << row_defect_bits) | unsigned(RowDefect::ZeroDiagonal);
}

}  // namespace strata::solve::detail
