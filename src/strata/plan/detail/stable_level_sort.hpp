#pragma once
// The final layout: waves ordered by (level, wave id). It is a stable sort of
// 0..wave_count-1 by level, done as an LSD radix sort with 8-bit digits; each
// pass is histogram -> exclusive scan -> stable placement:
//
//   count    each chunk (a contiguous block of the input, one thread) counts
//            its digits into its own column: counts(digit * chunks + chunk)
//   scan     exclusive scan of the counters, digit-major, so a digit's chunks
//            follow one another in input order
//   place    each chunk walks its block in order and writes every wave to the
//            next slot of its (digit, chunk) counter: stable by construction
//
// A chunk keeps its counters in a thread-private array while it walks (on a
// GPU local memory, served by the L1 cache; on a host the stack) and writes
// the shared counters once per digit, so they need no zeroing pass.
//
// Passes run only over the digits the deepest level needs (one pass up to 256
// layers, two up to 65536), and each pass only over the digits it can meet:
// the last pass's top digit of a plan of 20 groups has 20, not 256. Fewer
// digits mean fewer counters per chunk, so that pass takes more, shorter
// chunks in the same counters (level_sort_pass_chunks): on a GPU a chunk is
// one thread walking its block in order, and a 1M-wave plan of 20 groups
// runs on about 12,500 threads of 80 waves each instead of about 1,000 of
// 1024 (that pass was a large share of a sptrsv symbolic phase).
//
// Where there are as many groups as waves (a chain's plan), every level
// usually holds one wave and the sort is the inverse of the levels: one
// scatter and one check that no two waves met in a slot, in place of three
// passes (the layout was about half of a chain's plan on a GPU). Where
// the check fails (a level empty, another shared) the radix sort runs.
//
// Kokkos 3.4 has no stable device sort-by-key, which is why this is written
// here; it allocates nothing (the buffers are scratch, or storage the caller
// lends).

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/storage.hpp>
#include <strata/plan/detail/tiled_level_sort_pass.hpp>
#include <strata/plan/planner_scratch.hpp>

namespace strata::plan::detail {

/// Passes of the sort for `group_count` groups (0 or 1: the identity, no spare).
inline unsigned level_sort_passes(std::uint64_t group_count) {
  unsigned passes = 0;
  if (group_count <= 1) return 0;
  for (std::uint64_t top = group_count - 1; top != 0; top >>= level_sort_radix_bits) ++passes;
  return passes;
}

/// The exclusive scan of a pass's counters, digit-major (a digit's chunks
/// or tiles follow one another in position order).
template <class ExecSpace, class Ordinal>
void exclusive_scan_counts(const ExecSpace& space,
                           const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& counts) {
  Kokkos::parallel_scan(
      "strata::plan::layout_scan", Kokkos::RangePolicy<ExecSpace>(space, 0, counts.extent(0)),
      KOKKOS_LAMBDA(const std::size_t k, scan_value_t<Ordinal>& running, const bool final) {
        const Ordinal count = counts(k);
        if (final) counts(k) = Ordinal(running);
        running += count;
      });
}

/// `spare` (wave_count entries) is only read and written when the sort takes
/// more than one pass; `counters` (level_sort_counter_count entries) when it
/// takes at least one.
template <class ExecSpace, class Ordinal>
void stable_level_sort(const ExecSpace& space, std::uint64_t group_count,
                       const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& level,
                       const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& waves_out,
                       const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& spare,
                       const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& counters) {
  const std::size_t n = waves_out.extent(0);
  if (group_count <= 1) {  // one layer: the identity is already sorted
    Kokkos::parallel_for(
        "strata::plan::layout_identity", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(const std::size_t i) { waves_out(i) = Ordinal(i); });
    return;
  }
  if (group_count == n) {
    Kokkos::parallel_for(
        "strata::plan::layout_one_per_level", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(const std::size_t i) { waves_out(level(i)) = Ordinal(i); });
    // A wave that shares its level with another lost the slot to it (or
    // won it, and the other lost): none lost means one wave per level.
    std::size_t displaced = 0;
    Kokkos::parallel_reduce(
        "strata::plan::layout_one_per_level_check", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(const std::size_t i, std::size_t& lost) {
          if (waves_out(level(i)) != Ordinal(i)) ++lost;
        },
        displaced);
    if (displaced == 0) return;
  }
  const unsigned passes = level_sort_passes(group_count);

  for (unsigned pass = 0; pass < passes; ++pass) {
    // The last pass must land in waves_out; earlier ones alternate with spare.
    const bool to_out = ((passes - 1 - pass) % 2) == 0;
    const auto dst = to_out ? waves_out : spare;
    const auto src = to_out ? spare : waves_out;
    const bool identity_input = pass == 0;
    const unsigned shift = pass * level_sort_radix_bits;
    constexpr Ordinal mask = Ordinal(level_sort_buckets - 1);
    // every level is below group_count, so this pass meets digits 0..digits-1
    const std::size_t digits =
        pass + 1 < passes ? level_sort_buckets
                          : static_cast<std::size_t>(((group_count - 1) >> shift) + 1);
    if constexpr (!is_host_backend_v<ExecSpace>) {  // a team per tile (tiled_level_sort_pass.hpp)
      TiledSortPass<ExecSpace, Ordinal> p;
      p.level = level;
      p.src = src;
      p.identity_input = identity_input;
      p.n = n;
      p.tile = tiled_sort_tile_size(n, digits, counters.extent(0));
      p.counts = prefix(counters, digits * tiled_sort_tiles(n, p.tile));
      p.shift = shift;
      p.mask = mask;
      p.digits = digits;
      p.count(space);
      exclusive_scan_counts(space, p.counts);
      p.place(space, dst);
      continue;
    }
    const std::size_t chunks = level_sort_pass_chunks(space, n, digits);
    const std::size_t chunk_size = (n + chunks - 1) / chunks;
    const auto counts = prefix(counters, digits * chunks);

    Kokkos::parallel_for(
        "strata::plan::layout_count", Kokkos::RangePolicy<ExecSpace>(space, 0, chunks),
        KOKKOS_LAMBDA(const std::size_t c) {
          const std::size_t lo = c * chunk_size;
          const std::size_t hi = lo + chunk_size < n ? lo + chunk_size : n;
          Ordinal mine[level_sort_buckets];
          for (std::size_t d = 0; d < digits; ++d) mine[d] = Ordinal(0);
          for (std::size_t i = lo; i < hi; ++i) {
            const Ordinal w = identity_input ? Ordinal(i) : src(i);
            ++mine[(level(w) >> shift) & mask];
          }
          for (std::size_t d = 0; d < digits; ++d) counts(d * chunks + c) = mine[d];
        });
    exclusive_scan_counts(space, counts);
    Kokkos::parallel_for(
        "strata::plan::layout_place", Kokkos::RangePolicy<ExecSpace>(space, 0, chunks),
        KOKKOS_LAMBDA(const std::size_t c) {
          const std::size_t lo = c * chunk_size;
          const std::size_t hi = lo + chunk_size < n ? lo + chunk_size : n;
          Ordinal next[level_sort_buckets];
          for (std::size_t d = 0; d < digits; ++d) next[d] = counts(d * chunks + c);
          for (std::size_t i = lo; i < hi; ++i) {
            const Ordinal w = identity_input ? Ordinal(i) : src(i);
            dst(next[(level(w) >> shift) & mask]++) = w;
          }
        });
  }
}

}  // namespace strata::plan::detail
