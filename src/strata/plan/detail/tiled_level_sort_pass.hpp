#pragma once
// One pass of the stable level sort (stable_level_sort.hpp) shaped for a
// GPU: a team of threads per tile of consecutive positions, where the
// host's pass is one thread walking a chunk in order.
//
//   count    the team counts its tile's digits into a histogram in team
//            scratch (atomics in shared memory; the loads coalesced) and
//            writes it once: counts(digit * tiles + tile)
//   scan     as before: exclusive, digit-major
//   place    the team walks its tile in rounds of one position per thread.
//            In a round every thread sets its bit in its digit's bitmask;
//            a thread's rank among its digit's threads of the round is the
//            number of bits below its own (a population count), so a
//            round's waves land in position order: stable. The thread
//            holding the digit's highest bit moves the digit's running
//            offset and clears the digit's mask.
//
// Per round two team barriers; the masks alternate between two buffers so
// that a mask is cleared while the other is filled. A pass with one thread
// per 1024-wave chunk kept a few thousand threads busy with a dependent walk
// through local-memory counters; here whole teams work on a tile with
// coalesced loads.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/resident_teams.hpp>  // is_host_backend_v

namespace strata::plan::detail {

/// Population count of a 32-bit word, on every backend.
KOKKOS_FORCEINLINE_FUNCTION int popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

/// Threads of a tile team on a device; the positions of a tile are a multiple of it.
inline constexpr int tiled_sort_team_size = 256;
/// Positions of a tile at least (16 rounds of 256).
inline constexpr std::size_t tiled_sort_min_tile = 4096;

/// Positions per tile for `n` waves whose `digits` x tiles counters must fit
/// `counters` entries: at least tiled_sort_min_tile, a multiple of the team.
inline std::size_t tiled_sort_tile_size(std::size_t n, std::size_t digits, std::size_t counters) {
  const std::size_t most_tiles = counters / (digits == 0 ? 1 : digits);
  std::size_t tile = most_tiles == 0 ? n : (n + most_tiles - 1) / most_tiles;
  if (tile < tiled_sort_min_tile) tile = tiled_sort_min_tile;
  const std::size_t team = tiled_sort_team_size;
  return (tile + team - 1) / team * team;
}

/// Tiles of `tile` positions over n waves.
inline std::size_t tiled_sort_tiles(std::size_t n, std::size_t tile) { return (n + tile - 1) / tile; }

/// The team of a tile: tiled_sort_team_size on a device, one thread on a
/// host backend (whose pass is the chunked one; this form serves its tests).
template <class ExecSpace>
constexpr int tiled_sort_team() {
  return is_host_backend_v<ExecSpace> ? 1 : tiled_sort_team_size;
}

/// One pass: the waves of `src` (or the identity 0..n-1 when
/// `identity_input`) by the digit (level(w) >> shift) & mask, every digit
/// below `digits`, in tiles of `tile` positions; `counts` holds digits x
/// tiles counters. count(), then exclusive_scan_counts(counts), then place().
template <class ExecSpace, class Ordinal>
struct TiledSortPass {
  using View = Kokkos::View<Ordinal*, typename ExecSpace::memory_space>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Shared = typename ExecSpace::scratch_memory_space;
  using Counts = Kokkos::View<Ordinal*, Shared, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Masks = Kokkos::View<std::uint32_t*, Shared, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  View level;
  View src;
  bool identity_input = false;
  std::size_t n = 0;
  std::size_t tile = tiled_sort_min_tile;
  View counts;
  unsigned shift = 0;
  Ordinal mask = 0;
  std::size_t digits = 1;

  std::size_t tiles() const { return tiled_sort_tiles(n, tile); }

  /// counts(digit * tiles + tile) = the tile's waves with that digit.
  void count(const ExecSpace& space) const {
    const TiledSortPass p = *this;
    const std::size_t tiles = p.tiles();
    Kokkos::parallel_for(
        "strata::plan::layout_count_tiles",
        Policy(space, static_cast<int>(tiles), tiled_sort_team<ExecSpace>())
            .set_scratch_size(0, Kokkos::PerTeam(Counts::shmem_size(p.digits))),
        KOKKOS_LAMBDA(const Member& m) {
          const Counts hist(m.team_scratch(0), p.digits);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, p.digits),
                               [&](const std::size_t d) { hist(d) = Ordinal(0); });
          m.team_barrier();
          const std::size_t lo = std::size_t(m.league_rank()) * p.tile;
          const std::size_t hi = lo + p.tile < p.n ? lo + p.tile : p.n;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, lo, hi), [&](const std::size_t i) {
            strata::fetch_add<ExecSpace>(&hist(p.digit_at(i)), Ordinal(1));  // native on 16-bit
          });
          m.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, p.digits), [&](const std::size_t d) {
            p.counts(d * tiles + std::size_t(m.league_rank())) = hist(d);
          });
        });
  }

  /// After the exclusive digit-major scan of `counts`: dst = the waves
  /// stably ordered by digit.
  void place(const ExecSpace& space, const View& dst) const {
    const TiledSortPass p = *this;
    const std::size_t tiles = p.tiles();
    const int team = tiled_sort_team<ExecSpace>();
    const std::size_t words = (std::size_t(team) + 31) / 32;  // mask words per digit
    const std::size_t shared =
        Counts::shmem_size(p.digits) + Masks::shmem_size(2 * p.digits * words);
    Kokkos::parallel_for(
        "strata::plan::layout_place_tiles",
        Policy(space, static_cast<int>(tiles), team).set_scratch_size(0, Kokkos::PerTeam(shared)),
        KOKKOS_LAMBDA(const Member& m) {
          const std::size_t size = std::size_t(m.team_size());
          const Counts next(m.team_scratch(0), p.digits);
          const Masks masks(m.team_scratch(0), 2 * p.digits * words);
          const std::size_t t = std::size_t(m.team_rank());
          const std::size_t lo = std::size_t(m.league_rank()) * p.tile;
          const std::size_t hi = lo + p.tile < p.n ? lo + p.tile : p.n;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, p.digits), [&](const std::size_t d) {
            next(d) = p.counts(d * tiles + std::size_t(m.league_rank()));
          });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 2 * p.digits * words),
                               [&](const std::size_t k) { masks(k) = 0u; });
          m.team_barrier();
          const std::size_t word = t / 32;
          const std::uint32_t bit = std::uint32_t(1) << (t % 32);
          // hi - lo <= tile, a multiple of the team: the same round count for every thread.
          const std::size_t rounds = (hi - lo + size - 1) / size;
          for (std::size_t r = 0; r < rounds; ++r) {
            const std::size_t i = lo + r * size + t;
            const std::size_t buffer = (r % 2) * p.digits * words;  // this round's masks
            Ordinal w = 0;
            std::size_t d = 0;
            if (i < hi) {
              w = p.wave_at(i);
              d = p.digit_of(w);
              Kokkos::atomic_fetch_or(&masks(buffer + d * words + word), bit);
            }
            m.team_barrier();
            bool last = false;
            Ordinal base = 0;
            int below = 0;
            if (i < hi) {
              const std::size_t row = buffer + d * words;
              for (std::size_t q = 0; q < word; ++q) below += popcount32(masks(row + q));
              const std::uint32_t mine = masks(row + word);
              below += popcount32(mine & (bit - 1u));
              last = (mine & ~((bit - 1u) | bit)) == 0u;
              for (std::size_t q = word + 1; last && q < words; ++q) last = masks(row + q) == 0u;
              base = next(d);
              dst(base + Ordinal(below)) = w;
            }
            m.team_barrier();
            if (last) {  // the digit's highest thread of the round
              next(d) = base + Ordinal(below + 1);
              for (std::size_t q = 0; q < words; ++q) masks(buffer + d * words + q) = 0u;
            }
          }
        });
  }

  KOKKOS_INLINE_FUNCTION Ordinal wave_at(std::size_t i) const {
    return identity_input ? Ordinal(i) : src(i);
  }
  KOKKOS_INLINE_FUNCTION std::size_t digit_of(Ordinal w) const {
    return std::size_t((level(w) >> shift) & mask);
  }
  KOKKOS_INLINE_FUNCTION std::size_t digit_at(std::size_t i) const { return digit_of(wave_at(i)); }
};

}  // namespace strata::plan::detail
