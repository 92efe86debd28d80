#pragma once
// Where a row of a triangular matrix stands in the sptrsv dependency order.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace strata::kokkos_kernels::detail {

/// A row's position in the dependency list: lower triangular rows in order,
/// upper triangular rows from the bottom (row rows-1 first).
KOKKOS_INLINE_FUNCTION std::uint64_t row_position(std::uint64_t row, std::uint64_t rows,
                                                  bool lower) {
  return lower ? row : rows - 1 - row;
}

}  // namespace strata::kokkos_kernels::detail
