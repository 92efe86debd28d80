#pragma once
// What rule P (policy.hpp) reads at symbolic time on a host backend: how far
// the rows reach in their own order, and how many levels the blocks of that
// order span.
//
// Rows are taken in substitution order s (s = row for a lower triangle,
// rows - 1 - row for an upper one). A row's reach is the distance in s to
// the farthest row it reads. Cut s into blocks of B rows (B at least the
// largest reach): a row then reads only its own block and the blocks before
// it. A block's level span (its highest level - its lowest + 1) over the
// levels a block advances on average tells how many consecutive blocks can
// run at once, each a little behind the one before: about 1 for a chain or a
// factor stored level by level (a block waits for the whole block before it),
// the grid's width for a grid in natural order (a grid line waits only for
// the same point of the line before).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/storage.hpp>

namespace strata::solve::detail {

/// The largest reach of a row: max over rows of |row - column| over the
/// columns it reads (0 for a diagonal matrix).
template <class ExecSpace, class RowMap, class Entries>
std::uint64_t largest_row_reach(const ExecSpace& space, const RowMap& row_map,
                                const Entries& entries, std::uint64_t rows) {
  std::uint64_t reach = 0;
  Kokkos::parallel_reduce(
      "strata::solve::row_reach", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t r, std::uint64_t& most) {
        for (auto e = row_map(r); e < row_map(r + 1); ++e) {
          const std::uint64_t c = static_cast<std::uint64_t>(entries(e));
          const std::uint64_t d = c < r ? r - c : c - r;
          if (d > most) most = d;
        }
      },
      Kokkos::Max<std::uint64_t>(reach));
  space.fence();
  return reach;
}

/// The sum over blocks of `block` rows in substitution order of each
/// block's level span. `order` lists the rows level by level as
/// `level_offsets` cuts it.
template <class ExecSpace, class Order>
std::uint64_t block_level_spans(const ExecSpace& space, const Order& order,
                                const std::vector<std::uint64_t>& level_offsets,
                                std::uint64_t rows, bool lower, std::uint64_t block) {
  using Mem = typename ExecSpace::memory_space;
  const std::uint64_t levels = level_offsets.size() - 1;
  if (rows == 0 || block == 0 || levels > std::uint64_t(~std::uint32_t(0))) return 0;
  const auto level_of =
      allocate_view<Kokkos::View<std::uint32_t*, Mem>>(rows, "solve::level_of_row");
  const Kokkos::View<const std::uint64_t*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> offsets(
      level_offsets.data(), level_offsets.size());  // host backends only: host memory
  Kokkos::parallel_for(
      "strata::solve::level_of_row", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t p) {
        std::uint64_t lo = 0, hi = levels;  // offsets(lo) <= p < offsets(lo + 1)
        while (hi - lo > 1) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          if (offsets(mid) <= p) lo = mid; else hi = mid;
        }
        level_of(static_cast<std::size_t>(order(p))) = static_cast<std::uint32_t>(lo);
      });
  const std::uint64_t blocks = (rows + block - 1) / block;
  std::uint64_t spans = 0;
  Kokkos::parallel_reduce(
      "strata::solve::block_level_spans", Kokkos::RangePolicy<ExecSpace>(space, 0, blocks),
      KOKKOS_LAMBDA(const std::size_t k, std::uint64_t& sum) {
        const std::uint64_t first = k * block;
        const std::uint64_t end = first + block < rows ? first + block : rows;
        std::uint32_t low = ~std::uint32_t(0), high = 0;
        for (std::uint64_t s = first; s < end; ++s) {
          const std::uint32_t l = level_of(lower ? s : rows - 1 - s);
          low = l < low ? l : low;
          high = l > high ? l : high;
        }
        sum += high - low + 1;
      },
      spans);
  space.fence();
  return spans;
}

}  // namespace strata::solve::detail
