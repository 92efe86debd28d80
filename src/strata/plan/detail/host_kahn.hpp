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
// step at layer 0 (PlanPolicy::choose_step, rule K).
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/even_parts.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/prefetch.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

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

/// The Views the walk works in: `remaining` holds the in-degrees (consumed);
/// `stash` and `layer_size` hold at least wave_count entries; `outbox` holds
/// buffers.parts^2 * buffers.box_size targets.
template <class RemainingView, class StashView, class LevelView, class SizeView, class OutboxView>
struct HostKahnViews {
  RemainingView remaining;
  StashView stash;  ///< every part's frontiers, in its own id range
  LevelView level;
  SizeView layer_size;
  OutboxView outbox;
};

template <class RemainingView, class StashView, class LevelView, class SizeView, class OutboxView>
HostKahnViews<RemainingView, StashView, LevelView, SizeView, OutboxView> host_kahn_views(
    const RemainingView& remaining, const StashView& stash, const LevelView& level,
    const SizeView& layer_size, const OutboxView& outbox) {
  return {remaining, stash, level, layer_size, outbox};
}

/// Where the walk's shared words live in its `state` View: the bounds
/// (parity, part, lo/hi) at 4 * part + 2 * parity + k; the parts' stash
/// cursors; the layer counter and the results (groups, scheduled); each
/// part's "stopped at a full box" flag; the box fill counts, a row of
/// `stride` per sender (rows apart: each sender writes its own).
struct HostKahnWords {
  std::uint64_t stride, cursor_at, layer_at, flag_at, fill_at;
  explicit HostKahnWords(std::uint64_t parts)
      : stride((parts + 7) / 8 * 8),
        cursor_at(4 * parts),
        layer_at(5 * parts),
        flag_at(5 * parts + 3),
        fill_at((5 * parts + 3 + parts + 7) / 8 * 8) {}
  std::uint64_t count(std::uint64_t parts) const { return fill_at + parts * stride; }
};

/// The walk, one team of `parts` threads: thread p owns the waves of part p
/// (their stash segment, their in-degrees). Each layer is walked by thread
/// 0 alone while it is narrow (walk_narrow), else by every thread over its
/// slice of the frontier, each target sent to its owner's box
/// (send_slice) and decremented by its owner (receive), in rounds until
/// no box overflowed (wide_layer).
template <class ExecSpace, class Ordinal, class Offset, class Views>
struct HostKahnWalk {
  using Word = std::uint64_t;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using LevelType = typename decltype(Views::level)::non_const_value_type;
  using SizeType = typename decltype(Views::layer_size)::non_const_value_type;
  using StateView = Kokkos::View<Word*, typename ExecSpace::memory_space>;

  typename DependencyGraph<ExecSpace, Ordinal, Offset>::row_map_type row_map;
  typename DependencyGraph<ExecSpace, Ordinal, Offset>::entries_type entries;
  Views v;
  StateView state;
  WaveOwners owners;
  HostKahnWords at;
  Word parts = 1, box_size = 0, narrow = 0;

  /// Where thread p stopped in its slice of a wide layer's frontier.
  struct Slice {
    Word q = 0;     ///< the part whose segment holds stash(k)
    Word k = 0;     ///< the next frontier slot
    Word left = 0;  ///< slots of the slice not yet sent
    bool mid_row = false;     ///< stopped inside stash(k)'s row, at edge `resume`
    std::size_t resume = 0;
  };

  KOKKOS_INLINE_FUNCTION Word& lo(Word parity, Word q) const { return state(4 * q + 2 * parity); }
  KOKKOS_INLINE_FUNCTION Word& hi(Word parity, Word q) const {
    return state(4 * q + 2 * parity + 1);
  }
  KOKKOS_INLINE_FUNCTION Word& cursor(Word q) const { return state(at.cursor_at + q); }
  KOKKOS_INLINE_FUNCTION Word& fill(Word sender, Word owner) const {
    return state(at.fill_at + sender * at.stride + owner);
  }
  KOKKOS_INLINE_FUNCTION Word box(Word sender, Word owner) const {
    return (sender * parts + owner) * box_size;
  }

  /// Prefetch (the walk is bound by scattered misses): the row bounds of
  /// the wave 2d frontier slots ahead, its out-edges at d ahead, and (when
  /// `decrements`) at d/2 ahead the remaining in-degrees of those targets.
  KOKKOS_INLINE_FUNCTION void look_ahead(Word k, Word k_end, bool decrements) const {
    constexpr Word d = prefetch_distance;
    const auto* const targets = entries.data();
    if (k + 2 * d < k_end) prefetch_read(&row_map(v.stash(k + 2 * d)));
    if (k + d < k_end) prefetch_read(targets + row_map(v.stash(k + d)));
    if (decrements && k + d / 2 < k_end) {
      const std::size_t w = v.stash(k + d / 2);
      const std::size_t row_end = row_map(w + 1);
      for (std::size_t e = row_map(w); e < row_end; ++e) prefetch_write(&v.remaining(targets[e]));
    }
  }

  /// Layer 0: part p's sources, in id order, and its empty boxes.
  KOKKOS_INLINE_FUNCTION void sources(Word p) const {
    const Word begin = owners.begin(p), end = owners.begin(p + 1);
    Word c = begin;
    for (Word w = begin; w < end; ++w)
      if (v.remaining(w) == 0) {
        v.level(w) = LevelType(0);
        v.stash(c++) = Ordinal(w);
      }
    lo(0, p) = begin;
    hi(0, p) = c;
    cursor(p) = c;
    for (Word q = 0; q < parts; ++q) fill(p, q) = 0;
  }

  KOKKOS_INLINE_FUNCTION Word frontier_size(Word parity) const {
    Word size = 0;
    for (Word q = 0; q < parts; ++q) size += hi(parity, q) - lo(parity, q);
    return size;
  }

  /// Thread 0 alone: layers from `layer` (of `size` waves) until the
  /// frontier widens past `narrow` or ends (one part: every layer, the
  /// serial Kahn walk). Leaves the next layer's number in the layer word.
  KOKKOS_INLINE_FUNCTION void walk_narrow(Word layer, Word size) const {
    Word l = layer, n = size;
    while (n != 0 && (parts == 1 || n <= narrow)) {
      const Word par = l & 1;
      v.layer_size(l) = SizeType(n);
      for (Word q = 0; q < parts; ++q) lo(par ^ 1, q) = cursor(q);
      for (Word q = 0; q < parts; ++q)
        for (Word k = lo(par, q), k_end = hi(par, q); k < k_end; ++k) {
          look_ahead(k, k_end, true);
          const std::size_t w = v.stash(k);
          const std::size_t row_end = row_map(w + 1);
          for (std::size_t e = row_map(w); e < row_end; ++e) {
            const Ordinal t = entries(e);
            if (--v.remaining(t) == 0) {
              v.level(t) = LevelType(l + 1);
              Word& c = cursor(owners.owner(t));
              v.stash(c++) = t;
            }
          }
        }
      n = 0;
      for (Word q = 0; q < parts; ++q) {
        hi(par ^ 1, q) = cursor(q);
        n += hi(par ^ 1, q) - lo(par ^ 1, q);
      }
      ++l;
    }
    state(at.layer_at) = l;
  }

  /// Thread p's slice [first, first + left) of a frontier of `size` waves,
  /// counted across the parts' segments in part order.
  KOKKOS_INLINE_FUNCTION Slice slice_of(Word p, Word parity, Word size) const {
    Slice sl;
    Word first = Word(even_part_begin(size, parts, p));
    sl.left = Word(even_part_begin(size, parts, p + 1)) - first;
    while (sl.q + 1 < parts && first >= hi(parity, sl.q) - lo(parity, sl.q)) {
      first -= hi(parity, sl.q) - lo(parity, sl.q);
      ++sl.q;
    }
    sl.k = lo(parity, sl.q) + first;
    return sl;
  }

  /// Sends the slice's targets to their owners' boxes; false once the
  /// slice is done, true when a box is full (`sl` says where it stopped).
  KOKKOS_INLINE_FUNCTION bool send_slice(Word p, Word parity, Slice& sl) const {
    while (sl.left != 0) {
      while (sl.q < parts && sl.k == hi(parity, sl.q)) {
        ++sl.q;
        if (sl.q < parts) sl.k = lo(parity, sl.q);
      }
      const Word seg_end = hi(parity, sl.q);
      const Word k_end = seg_end - sl.k < sl.left ? seg_end : sl.k + sl.left;
      for (; sl.k < k_end; ++sl.k, --sl.left) {
        look_ahead(sl.k, k_end, false);
        const std::size_t w = v.stash(sl.k);
        const std::size_t row_end = row_map(w + 1);
        std::size_t e = sl.mid_row ? sl.resume : std::size_t(row_map(w));
        sl.mid_row = false;
        for (; e < row_end; ++e) {
          const Ordinal t = entries(e);
          const Word o = owners.owner(t);
          Word& n = fill(p, o);
          if (n == box_size) {
            sl.mid_row = true;
            sl.resume = e;
            return true;
          }
          v.outbox(box(p, o) + n) = t;
          ++n;
        }
      }
    }
    return false;
  }

  /// Owner p decrements every target in its boxes, places the released
  /// ones at `mine` on (level layer + 1) and empties the boxes; returns the
  /// new end of its segment.
  KOKKOS_INLINE_FUNCTION Word receive(Word p, Word layer, Word mine) const {
    constexpr Word d = prefetch_distance;
    for (Word sender = 0; sender < parts; ++sender) {
      Word& n = fill(sender, p);
      const Word first = box(sender, p);
      for (Word j = 0; j < n; ++j) {
        if (j + d < n) prefetch_write(&v.remaining(v.outbox(first + j + d)));
        const Ordinal t = v.outbox(first + j);
        if (--v.remaining(t) == 0) {
          v.level(t) = LevelType(layer + 1);
          v.stash(mine++) = t;
        }
      }
      n = 0;
    }
    return mine;
  }

  /// One wide layer over every thread: rounds of send and receive until no
  /// thread stopped at a full box.
  KOKKOS_INLINE_FUNCTION void wide_layer(const Member& team, Word p, Word layer, Word size) const {
    const Word parity = layer & 1;
    Word mine = cursor(p);
    lo(parity ^ 1, p) = mine;
    Slice sl = slice_of(p, parity, size);
    while (true) {
      state(at.flag_at + p) = send_slice(p, parity, sl) ? 1 : 0;
      team.team_barrier();  // every box of this round is written
      Word stopped = 0;
      for (Word r = 0; r < parts; ++r) stopped += state(at.flag_at + r);
      mine = receive(p, layer, mine);
      if (stopped == 0) {
        hi(parity ^ 1, p) = mine;
        cursor(p) = mine;
        if (p == 0) v.layer_size(layer) = SizeType(size);
      }
      team.team_barrier();  // boxes empty again; at the end, the next layer's bounds
      if (stopped == 0) return;
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Word p = Word(team.team_rank());
    sources(p);
    team.team_barrier();
    Word layer = 0;  // the same on every thread
    while (true) {
      const Word size = frontier_size(layer & 1);
      if (size == 0) break;
      if (parts == 1 || size <= narrow) {
        team.team_barrier();  // everyone has read this layer's bounds
        if (p == 0) walk_narrow(layer, size);
        team.team_barrier();
        layer = state(at.layer_at);
        continue;
      }
      wide_layer(team, p, layer, size);
      ++layer;
    }
    if (p == 0) {  // the results: groups and scheduled waves
      Word scheduled = 0;
      for (Word r = 0; r < parts; ++r) scheduled += cursor(r) - owners.begin(r);
      state(at.layer_at + 1) = layer;
      state(at.layer_at + 2) = scheduled;
    }
  }
};

/// The walk (HostKahnWalk) in one launch of one team, and its results.
/// Host backends only (the planner's policy decides, rule K); it compiles
/// everywhere.
template <class ExecSpace, class Ordinal, class Offset, class Views>
HostKahnResult host_kahn(const ExecSpace& space,
                         const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                         const Views& views, const HostKahnBuffers& buffers,
                         std::uint64_t narrow_frontier) {
  HostKahnResult out;
  const std::size_t waves = graph.wave_count();
  if (waves == 0) return out;
  using Walk = HostKahnWalk<ExecSpace, Ordinal, Offset, Views>;
  using Word = std::uint64_t;
  const Word parts = buffers.parts < waves ? buffers.parts : Word(waves);
  const HostKahnWords at(parts);
  const typename Walk::StateView state(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::host kahn state"),
      at.count(parts));
  const Walk walk{graph.row_map, graph.entries, views, state, WaveOwners(waves, parts), at,
                  parts, buffers.box_size, narrow_frontier};
  Kokkos::parallel_for("strata::plan::host_kahn",
                       Kokkos::TeamPolicy<ExecSpace>(space, 1, int(parts)), walk);
  const auto host = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      Kokkos::subview(state, Kokkos::make_pair(at.layer_at + 1, at.layer_at + 3)));
  out.groups = host(0);
  out.scheduled = host(1);
  if (out.groups != 0) {
    using SizeType = typename Walk::SizeType;
    SizeType first = 0;
    Kokkos::deep_copy(space, Kokkos::View<SizeType, Kokkos::HostSpace>(&first),
                      Kokkos::subview(views.layer_size, 0));
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
/// PlanPolicy::fused_max_frontier.
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
    const HostKahnResult walk =
        host_kahn(space, s.graph, host_kahn_views(s.remaining, s.order, s.level, sizes, outbox),
                  buffers, narrow_frontier);
    s.stats.sparse_layers = walk.groups;
    s.finish_counted(walk.scheduled, sizes, walk.groups);
  }
};

}  // namespace strata::plan::detail
