#pragma once
// Kahn's layers on a host backend without a locked instruction: the waves are
// split into one part per thread (equal id ranges), and only a part's thread
// ever touches its waves' remaining in-degree, level and slot. The walk is
// one launch of a single team (team_barrier between layers, no fork-join):
//
//   sources   each thread stashes the waves of its part with in-degree 0
//             into its own region of `stash` (the region of part p is
//             [begin_p, end_p): a part releases each of its waves once, so
//             its region never overflows and the stash is never copied).
//   layer     every thread reads the whole frontier (each part's newest
//             stash segment) and, for the targets in its own part only,
//             decrements the remaining in-degree with a plain store; a
//             target that reaches zero gets level + 1 and is appended to
//             the thread's region: per-thread frontier buffers, no scan.
//             One team barrier per layer.
//   narrow    a frontier of at most `narrow_frontier` waves is walked by
//             thread 0 alone, layer after layer, without barriers (it
//             appends into the owners' regions while the others wait),
//             until the frontier widens or ends: a deep, narrow graph
//             costs a serial Kahn walk, not a barrier per layer.
//
// On Kokkos::Serial (or one thread) this is exactly the reference's Kahn
// walk: one part, plain decrements, no barrier. Each thread reads every
// frontier edge but writes only its own targets, so a layer costs each of
// P threads (frontier rows) + (edges / P) scattered decrements.
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

/// Part of wave t when [0, n) is cut into `parts` equal ranges (even_part_begin).
KOKKOS_INLINE_FUNCTION std::uint64_t even_part_of(std::uint64_t n, std::uint64_t parts,
                                                  std::uint64_t t) {
  const std::uint64_t q = n / parts, r = n % parts;  // parts <= n: q >= 1
  const std::uint64_t big = r * (q + 1);             // the first r parts hold q + 1
  return t < big ? t / (q + 1) : r + (t - big) / q;
}

/// The walk. `remaining` holds the in-degrees (consumed); `stash` and
/// `layer_size` hold at least wave_count entries. Host backends only (the
/// caller's launch policy decides); it compiles everywhere.
template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class StashView,
          class LevelView, class SizeView>
HostKahnResult host_kahn(const ExecSpace& space,
                         const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                         const RemainingView& remaining, const StashView& stash,
                         const LevelView& level, const SizeView& layer_size,
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
  const std::size_t most_parts = thread_parts(space, waves);
  // state: bounds(parity, part, lo/hi) at 4 * part + 2 * parity + k, the
  // parts' stash cursors at 4 * most_parts + part, then the layer counter and
  // the results (groups, scheduled).
  const std::size_t cursor_at = 4 * most_parts, layer_at = 5 * most_parts;
  Kokkos::View<Word*, typename ExecSpace::memory_space> state(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::host kahn state"),
      5 * most_parts + 3);
  const Word narrow = narrow_frontier;

  auto walk = KOKKOS_LAMBDA(const Member& team) {
    const std::uint64_t parts = std::uint64_t(team.team_size());
    const std::uint64_t p = std::uint64_t(team.team_rank());
    const std::uint64_t begin = even_part_begin(waves, parts, p);
    const std::uint64_t end = even_part_begin(waves, parts, p + 1);
    auto lo = [&](std::uint64_t parity, std::uint64_t q) -> Word& {
      return state(4 * q + 2 * parity);
    };
    auto hi = [&](std::uint64_t parity, std::uint64_t q) -> Word& {
      return state(4 * q + 2 * parity + 1);
    };
    // Prefetch (the walk is bound by scattered misses): the row bounds of
    // the wave 2d frontier slots ahead, its out-edges at d ahead, and at d/2
    // ahead the remaining in-degrees of those targets in [first, first + span).
    constexpr Word d = prefetch_distance;
    const auto* const targets = entries.data();
    auto look_ahead = [&](Word k, Word k_end, std::uint64_t first, std::uint64_t span) {
      if (k + 2 * d < k_end) prefetch_read(&row_map(stash(k + 2 * d)));
      if (k + d < k_end) prefetch_read(targets + row_map(stash(k + d)));
      if (k + d / 2 < k_end) {
        const std::size_t w = stash(k + d / 2);
        const std::size_t row_end = row_map(w + 1);
        for (std::size_t e = row_map(w); e < row_end; ++e) {
          const std::uint64_t t = targets[e];
          if (t - first < span) prefetch_write(&remaining(t));
        }
      }
    };
    // Layer 0: this part's sources, in id order.
    Word cursor = begin;
    for (std::uint64_t w = begin; w < end; ++w)
      if (remaining(w) == 0) {
        level(w) = LevelType(0);
        stash(cursor++) = Ordinal(w);
      }
    lo(0, p) = begin;
    hi(0, p) = cursor;
    state(cursor_at + p) = cursor;
    team.team_barrier();

    Word layer = 0;  // the same on every thread
    while (true) {
      const Word parity = layer & 1;
      Word size = 0;
      for (std::uint64_t q = 0; q < parts; ++q) size += hi(parity, q) - lo(parity, q);
      if (size == 0) break;
      if (size <= narrow && parts > 1) {
        // Narrow: thread 0 walks alone until the frontier widens or ends.
        team.team_barrier();  // everyone has read this layer's bounds
        if (p == 0) {
          Word l = layer, n = size;
          while (n != 0 && n <= narrow) {
            const Word par = l & 1;
            layer_size(l) = SizeType(n);
            for (std::uint64_t q = 0; q < parts; ++q) lo(par ^ 1, q) = state(cursor_at + q);
            for (std::uint64_t q = 0; q < parts; ++q)
              for (Word k = lo(par, q), k_end = hi(par, q); k < k_end; ++k) {
                look_ahead(k, k_end, 0, waves);
                const std::size_t w = stash(k);
                const std::size_t row_end = row_map(w + 1);
                for (std::size_t e = row_map(w); e < row_end; ++e) {
                  const Ordinal t = entries(e);
                  if (--remaining(t) == 0) {
                    level(t) = LevelType(l + 1);
                    Word& c = state(cursor_at + even_part_of(waves, parts, t));
                    stash(c++) = t;
                  }
                }
              }
            n = 0;
            for (std::uint64_t q = 0; q < parts; ++q) {
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
      // Wide: every thread releases the targets of its own part. Branch-free
      // ownership (on scattered ids it is a coin flip): another part's
      // target decrements `sink`, which never reaches zero.
      if (p == 0) layer_size(layer) = SizeType(size);
      Word mine = state(cursor_at + p);
      lo(parity ^ 1, p) = mine;
      const std::uint64_t span = end - begin;
      using Count = typename RemainingView::non_const_value_type;
      Count sink = 0;
      for (std::uint64_t q = 0; q < parts; ++q)
        for (Word k = lo(parity, q), k_end = hi(parity, q); k < k_end; ++k) {
          look_ahead(k, k_end, begin, span);
          const std::size_t w = stash(k);
          const std::size_t row_end = row_map(w + 1);
          for (std::size_t e = row_map(w); e < row_end; ++e) {
            const Ordinal t = entries(e);
            const bool own = std::uint64_t(t) - begin < span;
            Count* const r = own ? &remaining(t) : &sink;
            const Count left = Count(*r - 1);
            *r = own ? left : Count(2);
            if (own && left == 0) {
              level(t) = LevelType(layer + 1);
              stash(mine++) = t;
            }
          }
        }
      hi(parity ^ 1, p) = mine;
      state(cursor_at + p) = mine;
      team.team_barrier();  // the next layer's bounds are complete
      ++layer;
    }
    if (p == 0) {
      Word scheduled = 0;
      for (std::uint64_t q = 0; q < parts; ++q)
        scheduled += state(cursor_at + q) - even_part_begin(waves, parts, q);
      state(layer_at + 1) = layer;
      state(layer_at + 2) = scheduled;
    }
  };
  const int team_size_max = Team(space, 1, 1).team_size_max(walk, Kokkos::ParallelForTag());
  const std::size_t parts =
      most_parts < std::size_t(team_size_max) ? most_parts : std::size_t(team_size_max);
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

/// Rule K's step, at layer 0 (after the Start step): every layer in one
/// team of host threads; ends the walk. `narrow_frontier`:
/// LaunchPolicy::fused_max_frontier.
struct HostLayersStep {
  std::uint64_t narrow_frontier = 0;

  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    // `order` (the plan's waves, laid out afterwards from the levels) is the
    // walk's stash; the spare ordinals take the layer sizes.
    const auto sizes = s.reserve_level_counts();
    const HostKahnResult walk =
        host_kahn(space, s.graph, s.remaining, s.order, s.level, sizes, narrow_frontier);
    s.stats.sparse_layers = walk.groups;
    s.finish_counted(walk.scheduled, sizes, walk.groups);
  }
};

}  // namespace strata::detail
