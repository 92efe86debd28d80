#pragma once
// Kahn's layers on a host backend without a locked instruction: the waves are
// split into one part per thread (near-equal id ranges, WaveOwners), and only
// a part's thread ever touches its waves' remaining in-degree, level and
// slot. The walk is one launch of a single team (team barriers, no
// fork-join):
//
//   sources   each thread stashes the waves of its part with in-degree 0
//             into its own region of `stash` (the region of part p is the
//             part's id range: a part releases each of its waves once, so
//             its region never overflows and the stash is never copied).
//   layer     the frontier (each part's newest stash segment, in part
//             order) is cut into equal slices, one per thread. A thread
//             reads the out-edges of its slice once and appends each target
//             to the outbox of the target's owner (a box per sender and
//             owner); at a team barrier the owners take their boxes,
//             decrement with plain stores, and a target that reaches zero
//             gets level + 1 and is appended to the owner's region
//             (per-thread frontier buffers, no scan). Each frontier edge is
//             read once whatever the thread count. A box holds `box_size`
//             targets: a thread that fills one stops, and the team meets,
//             empties every box and goes on (rounds), so the outboxes stay
//             bounded (HostKahnBuffers).
//   narrow    a frontier of at most `narrow_frontier` waves is walked by
//             thread 0 alone, layer after layer, decrementing directly,
//             without barriers (it appends into the owners' regions while
//             the others wait), until the frontier widens or ends: a deep,
//             narrow graph costs a serial Kahn walk, not a barrier per layer.
//
// On Kokkos::Serial (or one thread) every layer is the narrow walk: exactly
// the reference's Kahn walk, no outbox, no barrier.
//
// Outputs: level(w) for every scheduled wave and layer_size(l) for every
// layer, from which the plan is laid out in one counting pass
// (layout_from_level_counts). HostLayersStep below runs it as the walk's
// step at layer 0 (LaunchPolicy::choose_step, rule K).
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/even_parts.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/prefetch.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::detail {

struct HostKahnResult {
  std::uint64_t scheduled = 0;  ///< waves given a level (< waves: a cycle)
  std::uint64_t groups = 0;     ///< layers
  std::uint64_t sources = 0;    ///< waves of layer 0
};

/// The walk's parts: [0, n) cut into `parts` near-equal id ranges by a
/// fixed-point reciprocal, so that a wave's owner is one multiply and shift
/// (the walk asks it for every frontier edge; a division there cost as much
/// as the decrement). owner(t) = (t * scale) >> 32 with scale =
/// floor(2^32 parts / n) < 2^32 parts / n, so owner(n - 1) < parts; part p is
/// [begin(p), begin(p + 1)), possibly empty above 2^32 waves.
struct WaveOwners {
  std::uint64_t n = 0;
  std::uint64_t parts = 1;
  std::uint64_t scale = 0;

  WaveOwners() = default;
  WaveOwners(std::uint64_t waves, std::uint64_t part_count)
      : n(waves), parts(part_count), scale(((part_count << 32) / waves)) {
    if (scale == 0) scale = 1;  // more than 2^32 waves per part: part 0 owns them all
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t owner(std::uint64_t t) const {
    const std::uint64_t o = (t * scale) >> 32;
    return o < parts ? o : parts - 1;
  }
  /// The least t with owner(t) >= p (n for p >= parts).
  KOKKOS_INLINE_FUNCTION std::uint64_t begin(std::uint64_t p) const {
    if (p == 0) return 0;
    if (p >= parts) return n;
    const std::uint64_t b = ((p << 32) + scale - 1) / scale;
    return b < n ? b : n;
  }
};

/// Parts and outbox size of the walk: a box per (sender, owner) pair, each
/// of at least `min_box` targets, inside the `capacity` ordinals the caller
/// lends; fewer threads where the loan cannot hold that (small graphs).
struct HostKahnBuffers {
  static constexpr std::uint64_t min_box = 256;
  std::uint64_t parts = 1;
  std::uint64_t box_size = 0;

  HostKahnBuffers(std::uint64_t threads, std::uint64_t capacity) {
    parts = threads == 0 ? 1 : threads;
    while (parts > 1 && parts * parts * min_box > capacity) --parts;
    box_size = parts > 1 ? capacity / (parts * parts) : 0;
  }
};

/// The walk. `remaining` holds the in-degrees (consumed); `stash` and
/// `layer_size` hold at least wave_count entries; `outbox` holds
/// buffers.parts^2 * buffers.box_size targets. Host backends only (the
/// caller's launch policy decides); it compiles everywhere.
template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class StashView,
          class LevelView, class SizeView, class OutboxView>
HostKahnResult host_kahn(const ExecSpace& space,
                         const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                         const RemainingView& remaining, const StashView& stash,
                         const LevelView& level, const SizeView& layer_size,
                         const OutboxView& outbox, const HostKahnBuffers& buffers,
                         std::uint64_t narrow_frontier) {
  HostKahnResult out;
  const std::size_t waves = graph.wave_count();
  if (waves == 0) return out;
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Team::member_type;
  using Word = std::uint64_t;
  using LevelType = typename LevelView::non_const_value_type;
  using SizeType = typename SizeView::non_const_value_type;
  const Word parts = buffers.parts < waves ? buffers.parts : Word(waves);
  const Word box_size = buffers.box_size;
  const WaveOwners owners(waves, parts);
  // state, in words: bounds(parity, part, lo/hi) at 4 * part + 2 * parity + k;
  // the parts' stash cursors; the layer counter and the results (groups,
  // scheduled); each part's "stopped at a full box" flag; the box fill
  // counts, a row of `stride` per sender (rows apart: each sender writes its own).
  const Word stride = (parts + 7) / 8 * 8;
  const Word cursor_at = 4 * parts, layer_at = 5 * parts, flag_at = layer_at + 3;
  const Word fill_at = (flag_at + parts + 7) / 8 * 8;
  Kokkos::View<Word*, typename ExecSpace::memory_space> state(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::host kahn state"),
      fill_at + parts * stride);
  const Word narrow = narrow_frontier;

  auto walk = KOKKOS_LAMBDA(const Member& team) {
    const Word p = Word(team.team_rank());
    const Word begin = owners.begin(p), end = owners.begin(p + 1);
    auto lo = [&](Word parity, Word q) -> Word& { return state(4 * q + 2 * parity); };
    auto hi = [&](Word parity, Word q) -> Word& { return state(4 * q + 2 * parity + 1); };
    auto fill = [&](Word sender, Word owner) -> Word& { return state(fill_at + sender * stride + owner); };
    auto box = [&](Word sender, Word owner) { return (sender * parts + owner) * box_size; };
    // Prefetch (the walk is bound by scattered misses): the row bounds of
    // the wave 2d frontier slots ahead, its out-edges at d ahead, and (when
    // `decrements`) at d/2 ahead the remaining in-degrees of those targets.
    constexpr Word d = prefetch_distance;
    const auto* const targets = entries.data();
    auto look_ahead = [&](Word k, Word k_end, bool decrements) {
      if (k + 2 * d < k_end) prefetch_read(&row_map(stash(k + 2 * d)));
      if (k + d < k_end) prefetch_read(targets + row_map(stash(k + d)));
      if (decrements && k + d / 2 < k_end) {
        const std::size_t w = stash(k + d / 2);
        const std::size_t row_end = row_map(w + 1);
        for (std::size_t e = row_map(w); e < row_end; ++e) prefetch_write(&remaining(targets[e]));
      }
    };
    // Layer 0: this part's sources, in id order.
    Word cursor = begin;
    for (Word w = begin; w < end; ++w)
      if (remaining(w) == 0) {
        level(w) = LevelType(0);
        stash(cursor++) = Ordinal(w);
      }
    lo(0, p) = begin;
    hi(0, p) = cursor;
    state(cursor_at + p) = cursor;
    for (Word q = 0; q < parts; ++q) fill(p, q) = 0;
    team.team_barrier();

    Word layer = 0;  // the same on every thread
    while (true) {
      const Word parity = layer & 1;
      Word size = 0;
      for (Word q = 0; q < parts; ++q) size += hi(parity, q) - lo(parity, q);
      if (size == 0) break;
      if (parts == 1 || size <= narrow) {
        // Narrow: thread 0 walks alone until the frontier widens or ends
        // (one part: every layer, the serial Kahn walk).
        team.team_barrier();  // everyone has read this layer's bounds
        if (p == 0) {
          Word l = layer, n = size;
          while (n != 0 && (parts == 1 || n <= narrow)) {
            const Word par = l & 1;
            layer_size(l) = SizeType(n);
            for (Word q = 0; q < parts; ++q) lo(par ^ 1, q) = state(cursor_at + q);
            for (Word q = 0; q < parts; ++q)
              for (Word k = lo(par, q), k_end = hi(par, q); k < k_end; ++k) {
                look_ahead(k, k_end, true);
                const std::size_t w = stash(k);
                const std::size_t row_end = row_map(w + 1);
                for (std::size_t e = row_map(w); e < row_end; ++e) {
                  const Ordinal t = entries(e);
                  if (--remaining(t) == 0) {
                    level(t) = LevelType(l + 1);
                    Word& c = state(cursor_at + owners.owner(t));
                    stash(c++) = t;
                  }
                }
              }
            n = 0;
            for (Word q = 0; q < parts; ++q) {
              hi(par ^ 1, q) = state(cursor_at + q);
              n += hi(par ^ 1, q) - lo(par ^ 1, q);
            }
            ++l;
          }
          state(layer_at) = l;
        }
        team.team_barrier();
        layer = state(layer_at);
        continue;
      }
      // Wide: this thread's slice [first, first + left) of the frontier,
      // counted across the parts' segments in part order.
      Word mine = state(cursor_at + p);
      lo(parity ^ 1, p) = mine;
      Word first = Word(even_part_begin(size, parts, p));
      Word left = Word(even_part_begin(size, parts, p + 1)) - first;
      Word q = 0;
      while (q + 1 < parts && first >= hi(parity, q) - lo(parity, q)) {
        first -= hi(parity, q) - lo(parity, q);
        ++q;
      }
      Word k = lo(parity, q) + first;
      bool mid_row = false;  // stopped inside stash(k)'s row, at edge `resume`
      std::size_t resume = 0;
      // Sends the slice's targets to their owners' boxes; false once the
      // slice is done, true when a box is full (k, mid_row, resume say where).
      auto send = [&]() -> bool {
        while (left != 0) {
          while (q < parts && k == hi(parity, q)) {
            ++q;
            if (q < parts) k = lo(parity, q);
          }
          const Word seg_end = hi(parity, q);
          const Word k_end = seg_end - k < left ? seg_end : k + left;
          for (; k < k_end; ++k, --left) {
            look_ahead(k, k_end, false);
            const std::size_t w = stash(k);
            const std::size_t row_end = row_map(w + 1);
            std::size_t e = mid_row ? resume : std::size_t(row_map(w));
            mid_row = false;
            for (; e < row_end; ++e) {
              const Ordinal t = entries(e);
              const Word o = owners.owner(t);
              Word& n = fill(p, o);
              if (n == box_size) {
                mid_row = true;
                resume = e;
                return true;
              }
              outbox(box(p, o) + n) = t;
              ++n;
            }
          }
        }
        return false;
      };
      while (true) {  // rounds: ends when no thread stopped at a full box
        state(flag_at + p) = send() ? 1 : 0;
        team.team_barrier();  // every box of this round is written
        Word stopped = 0;
        for (Word r = 0; r < parts; ++r) stopped += state(flag_at + r);
        for (Word sender = 0; sender < parts; ++sender) {
          Word& n = fill(sender, p);
          const Word at = box(sender, p);
          for (Word j = 0; j < n; ++j) {
            if (j + d < n) prefetch_write(&remaining(outbox(at + j + d)));
            const Ordinal t = outbox(at + j);
            if (--remaining(t) == 0) {
              level(t) = LevelType(layer + 1);
              stash(mine++) = t;
            }
          }
          n = 0;
        }
        if (stopped == 0) {
          hi(parity ^ 1, p) = mine;
          state(cursor_at + p) = mine;
          if (p == 0) layer_size(layer) = SizeType(size);
        }
        team.team_barrier();  // boxes empty again; at the end, the next layer's bounds
        if (stopped == 0) break;
      }
      ++layer;
    }
    if (p == 0) {
      Word scheduled = 0;
      for (Word r = 0; r < parts; ++r) scheduled += state(cursor_at + r) - owners.begin(r);
      state(layer_at + 1) = layer;
      state(layer_at + 2) = scheduled;
    }
  };
  Kokkos::parallel_for("strata::plan::host_kahn", Team(space, 1, int(parts)), walk);
  const auto host = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(state, Kokkos::make_pair(layer_at + 1, layer_at + 3)));
  out.groups = host(0);
  out.scheduled = host(1);
  if (out.groups != 0) {
    SizeType first = 0;
    Kokkos::deep_copy(space, Kokkos::View<SizeType, Kokkos::HostSpace>(&first),
                      Kokkos::subview(layer_size, 0));
    space.fence();
    out.sources = first;
  }
  return out;
}

/// Threads of the walk's team on `space`: one per hardware thread, at most
/// one per wave and at most the team size the backend allows.
template <class ExecSpace>
std::uint64_t host_kahn_threads(const ExecSpace& space, std::uint64_t waves) {
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  const int most = Team(space, 1, 1).team_size_max(
      KOKKOS_LAMBDA(const typename Team::member_type&){}, Kokkos::ParallelForTag());
  const std::uint64_t parts = thread_parts(space, waves);
  return most > 0 && std::uint64_t(most) < parts ? std::uint64_t(most) : parts;
}

/// Rule K's step, at layer 0 (after the Start step): every layer in one
/// team of host threads; ends the walk. `narrow_frontier`:
/// LaunchPolicy::fused_max_frontier.
struct HostLayersStep {
  std::uint64_t narrow_frontier = 0;

  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    // `order` (the plan's waves, laid out afterwards from the levels) is the
    // walk's stash; the spare ordinals take the layer sizes; the outboxes
    // (several threads only) a quarter of the waves in ordinals, lent by the
    // fill cursor this step never reads.
    const auto sizes = s.reserve_level_counts();
    const std::uint64_t threads = host_kahn_threads(space, s.wave_count());
    const auto outbox = s.lend_cursor_as_ordinals(threads > 1 ? s.wave_count() / 4 : 0);
    const HostKahnBuffers buffers(threads, outbox.extent(0));
    const HostKahnResult walk = host_kahn(space, s.graph, s.remaining, s.order, s.level, sizes,
                                          outbox, buffers, narrow_frontier);
    s.stats.sparse_layers = walk.groups;
    s.finish_counted(walk.scheduled, sizes, walk.groups);
  }
};

}  // namespace strata::detail
