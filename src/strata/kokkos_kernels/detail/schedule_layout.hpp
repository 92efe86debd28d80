#pragma once
// What Kokkos Kernels' own level-set symbolic phase (lower_tri_symbolic /
// upper_tri_symbolic in KokkosSparse_sptrsv_symbolic_impl.hpp) leaves in the
// sptrsv handle differs between versions; Strata fills exactly the same:
//
//                           Kokkos Kernels 3.4 (Trilinos 13.2)   Kokkos Kernels 4.6
//   algorithm               a sweep per level, O(levels x rows)  one pass, O(rows + nonzeros)
//   level_list(row)         the row's level (0-based)            the level + 1 (1-based)
//   upper: rows of a level  descending (rows visited bottom-up)  ascending (counting sort)
//   lower: rows of a level  ascending                            ascending
//   stored diagonal         diagonal_offsets (+ host) filled     not filled
//
// The one-pass symbolic phase (and with it the 4.6 column) came with Kokkos
// Kernels PR #1380, released in 3.6.00; 3.4 has no KOKKOSKERNELS_VERSION
// macro. Only 3.4 and 4.6 are checked (unit_test/tstKokkosKernels.cpp
// compares every field the symbolic phase writes with Kokkos Kernels' own).
#include <KokkosKernels_config.h>

namespace strata::kokkos_kernels::detail {

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 30600
inline constexpr bool one_pass_layout = true;
#else
inline constexpr bool one_pass_layout = false;
#endif

/// What level_list holds for a row of 0-based level l: l + level_list_base.
inline constexpr long long level_list_base = one_pass_layout ? 1 : 0;

/// Whether the rows of one level of an upper triangular matrix are listed in
/// ascending order (else descending).
inline constexpr bool upper_levels_ascending = one_pass_layout;

/// Whether the symbolic phase records every row's diagonal offset when the
/// handle asks for it (set_stored_diagonal(true)).
inline constexpr bool fills_stored_diagonal = !one_pass_layout;

}  // namespace strata::kokkos_kernels::detail
