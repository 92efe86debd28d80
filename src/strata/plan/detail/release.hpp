#pragma once
// The release rule every step shares: an edge e -> t of a scheduled wave
// takes one from t's remaining in-degree; the edge that takes the last one
// releases t. The layer-synchronous steps (top-down, paced, persistent) then
// give t the next level and park e in remaining(t) — nobody decrements t
// again, so that word can say which edge released t, and the step's append
// phase writes t exactly once, even with duplicate edges, without a second
// atomic counter (`parked`). The fused queue takes levels as maxima instead
// and only uses `last_in_edge`.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>

namespace strata::plan::detail {

template <class ExecSpace, class RemainingView, class LevelView>
struct ReleaseRule {
  using Offset = typename RemainingView::non_const_value_type;
  using Ordinal = typename LevelView::non_const_value_type;
  RemainingView remaining;
  LevelView level;

  /// Takes edge e's one from t's remaining in-degree; true when it was the last.
  KOKKOS_INLINE_FUNCTION bool last_in_edge(const Ordinal t) const {
    return strata::fetch_sub<ExecSpace>(&remaining(t), Offset(1)) == Offset(1);
  }
  /// Edge e took t's last in-edge: t gets `next_level` and e is parked in
  /// remaining(t) (read back by parked()).
  KOKKOS_INLINE_FUNCTION void park(const Offset e, const Ordinal t,
                                   const Ordinal next_level) const {
    level(t) = next_level;
    remaining(t) = e;
  }
  /// Edge e -> t of a wave of the current layer: true when e released t,
  /// which then has `next_level` and e parked in remaining(t).
  KOKKOS_INLINE_FUNCTION bool release(const Offset e, const Ordinal t,
                                      const Ordinal next_level) const {
    if (!last_in_edge(t)) return false;
    park(e, t, next_level);
    return true;
  }
  /// Edges a wave's release takes together (release_edges).
  static constexpr int batch_edges = 4;

  /// The release rule over edges [first, last) of one wave of the current
  /// layer, `batch_edges` at a time: a batch's targets are loaded together,
  /// then their decrements are issued together, and only then are the old
  /// values looked at. On a GPU a wave of up to batch_edges edges so waits
  /// for two memory round trips instead of two per edge, and on deep graphs
  /// those round trips are most of a layer (docs/performance.md). Calls
  /// released(t) for each target t that an edge releases, in edge order.
  /// Duplicate edges in one batch are fine: the last decrement is one of them.
  template <class Entries, class Released>
  KOKKOS_INLINE_FUNCTION void release_edges(const Entries& entries, const std::uint64_t first,
                                            const std::uint64_t last, const Ordinal next_level,
                                            const Released& released) const {
    // last < 2^63 (an edge count), so e + batch_edges cannot wrap.
    for (std::uint64_t e = first; e < last; e += batch_edges) {
      const std::uint64_t m = last - e < std::uint64_t(batch_edges) ? last - e : batch_edges;
      Ordinal t[batch_edges] = {};
      Offset old[batch_edges] = {};
      for (int j = 0; j < batch_edges; ++j)
        if (std::uint64_t(j) < m) t[j] = entries(e + j);
      for (int j = 0; j < batch_edges; ++j)
        if (std::uint64_t(j) < m) old[j] = strata::fetch_sub<ExecSpace>(&remaining(t[j]), Offset(1));
      for (int j = 0; j < batch_edges; ++j) {
        if (std::uint64_t(j) >= m || old[j] != Offset(1)) continue;
        park(Offset(e + j), t[j], next_level);
        released(t[j]);
      }
    }
  }
  /// After the release phase (a kernel boundary later): whether e is the edge
  /// that released t into `next_level`.
  KOKKOS_INLINE_FUNCTION bool parked(const Offset e, const Ordinal t,
                                     const Ordinal next_level) const {
    return level(t) == next_level && remaining(t) == e;
  }
};

template <class ExecSpace, class RemainingView, class LevelView>
ReleaseRule<ExecSpace, RemainingView, LevelView> release_rule(const RemainingView& remaining,
                                                              const LevelView& level) {
  return {remaining, level};
}

}  // namespace strata::plan::detail
