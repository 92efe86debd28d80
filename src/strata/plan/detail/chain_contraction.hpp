#pragma once
// ChainStep (chain contraction): the levels of a deep, chain-like graph
// without one step per layer. A wave t is *chained* when its in-degree is 1 and its only
// predecessor p has out-degree 1: then level(t) = level(p) + 1 exactly. Every
// other wave is a *head*; the chained waves hang below heads in paths
// ("chains"). So:
//
//   link      for each chained wave, its predecessor (count of chained waves)
//   rank      pointer jumping (Wyllie's list ranking, double-buffered rounds):
//             every chained wave learns its head and its distance to it, in
//             ceil(log2(longest chain)) + 1 rounds
//   finalise  link(head) = the last wave of its chain (its *tail*),
//             level(chained) = chained_level; heads keep their in-degree;
//             layer 0 = heads nobody waits for
//   walk      (the fused tail, with the link) a head h releases the targets of
//             its tail with weight distance(tail) + 1: levels are maxima of
//             weighted predecessors, which the fused tail computes anyway
//   expand    level(chained) = level(head) + distance
//
// A chain whose waves all have in- and out-degree 1 and close on themselves
// (a ring) has no head: its waves are never scheduled, as in plain Kahn.
// A chainless head can only point at heads (a single target of in-degree 1
// would be chained), and a tail's targets are heads by definition, so the walk
// never visits a chained wave. The plan is the same, bit for bit.
//
// Buffers (plan_state.hpp): chain_link in the fill cursor's bytes and
// chain_distance in `remaining`'s words, with `order` and `level` as the
// second buffer of the ranking rounds. The distances can share the in-degrees
// because each word is read in one meaning only: a chained wave's in-degree
// is 1 — its initial distance, so linking writes none — and is never read
// again (the walk releases heads only); a head's distance is 0 and is never
// read (a jump reads the distance of a chained wave only, the walk reads a
// tail's, and "is my target chained" asks the level's marker), so the
// ranking never writes a head's distance and its in-degree stays for the
// walk. The policy asks for this step (rule P1) after count_chained() found
// enough chained waves.
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/fused_tail.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

/// Level marking a chained wave between finalise and expand (never a real
/// level: contraction is only used when wave_count < this value).
template <class Ordinal>
inline constexpr Ordinal chained_level = std::numeric_limits<Ordinal>::max() - 1;

/// The waves link_chains would chain (a reduction; nothing is written).
/// `remaining` holds in-degrees.
template <class ExecSpace, class Ordinal, class Offset>
std::uint64_t count_chained(const ExecSpace& space,
                            const PlanState<ExecSpace, Ordinal, Offset>& s) {
  const auto row_map = s.graph.row_map;
  const auto entries = s.graph.entries;
  const auto remaining = s.remaining;
  scan_value_t<Ordinal> chained = 0;
  Kokkos::parallel_reduce(
      "strata::plan::chain_count", Kokkos::RangePolicy<ExecSpace>(space, 0, s.wave_count()),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& count) {
        if (row_map(w + 1) - row_map(w) != Offset(1)) return;
        if (remaining(entries(row_map(w))) == Offset(1)) ++count;
      },
      chained);
  return chained;
}

/// link(t) = predecessor of chained t (t itself for heads). `remaining`
/// holds in-degrees, which are the chained waves' distances (1) already.
/// Returns the number of chained waves.
template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class LinkView>
std::uint64_t link_chains(const ExecSpace& space,
                          const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                          const RemainingView& remaining, const LinkView& link) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const std::size_t waves = graph.wave_count();
  Kokkos::parallel_for(
      "strata::plan::chain_heads", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w) { link(w) = Ordinal(w); });
  scan_value_t<Ordinal> chained = 0;
  Kokkos::parallel_reduce(
      "strata::plan::chain_links", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& count) {
        if (row_map(w + 1) - row_map(w) != Offset(1)) return;
        const Ordinal t = entries(row_map(w));
        if (remaining(t) != Offset(1)) return;
        link(t) = Ordinal(w);  // t's only in-edge: no other wave writes here
        ++count;
      },
      chained);
  return chained;
}

/// One round of pointer jumping from (link_in, distance_in) into the other
/// buffer. A wave linked to itself (a head, or a ring member that jumped
/// onto itself) has no distance to carry: neither buffer's is written (a
/// head's word holds its in-degree). Returns how many waves moved their link.
template <class ExecSpace, class InLink, class InDistance, class OutLink, class OutDistance>
std::uint64_t jump_round(const ExecSpace& space, std::size_t waves, const InLink& link_in,
                         const InDistance& distance_in, const OutLink& link_out,
                         const OutDistance& distance_out) {
  using Ordinal = typename OutLink::non_const_value_type;
  using Distance = typename OutDistance::non_const_value_type;
  // A ring's distances would double every round; saturate at the wave count.
  const std::uint64_t cap = waves;
  scan_value_t<Ordinal> moved = 0;
  Kokkos::parallel_reduce(
      "strata::plan::chain_jump", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& count) {
        // A distance is read only where its wave is not linked to itself
        // (w's own when a != w; a's when a's link moves on).
        const Ordinal a = static_cast<Ordinal>(link_in(w));
        const Ordinal aa = static_cast<Ordinal>(link_in(a));
        if (aa != a) {  // a is chained (so a != w): jump over it
          const std::uint64_t sum = static_cast<std::uint64_t>(distance_in(w)) +
                                    static_cast<std::uint64_t>(distance_in(a));
          link_out(w) = aa;
          distance_out(w) = static_cast<Distance>(sum < cap ? sum : cap);
          ++count;
        } else {
          link_out(w) = a;
          if (a != Ordinal(w)) distance_out(w) = static_cast<Distance>(distance_in(w));
        }
      },
      moved);
  return moved;
}

/// Ranks every chain: afterwards link(t) is t's head (or a ring member) and,
/// for t not linked to itself, distance(t) the number of edges from it.
/// (order, level) are the spare buffers.
template <class ExecSpace, class LinkView, class DistanceView, class SpareLink, class SpareDistance>
void rank_chains(const ExecSpace& space, std::size_t waves, const LinkView& link,
                 const DistanceView& distance, const SpareLink& spare_link,
                 const SpareDistance& spare_distance) {
  // Every round halves the longest unranked stretch: log2(waves) + 1 rounds
  // rank every chain; links still moving after that circle a ring.
  unsigned max_rounds = 2;
  for (std::uint64_t n = waves; n > 1; n >>= 1) ++max_rounds;
  bool in_spare = false;
  for (unsigned round = 0; round < max_rounds; ++round) {
    const std::uint64_t moved =
        in_spare ? jump_round(space, waves, spare_link, spare_distance, link, distance)
                 : jump_round(space, waves, link, distance, spare_link, spare_distance);
    in_spare = !in_spare;
    if (moved == 0) break;
  }
  if (in_spare) {
    Kokkos::deep_copy(space, link, spare_link);
    Kokkos::parallel_for(
        "strata::plan::chain_distance_back", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
        KOKKOS_LAMBDA(const std::size_t w) {
          if (spare_link(w) != static_cast<typename SpareLink::non_const_value_type>(w))
            distance(w) = static_cast<typename DistanceView::non_const_value_type>(spare_distance(w));
        });
  }
}

/// Finalise: chained waves get the chained_level marker, heads their tail in
/// `link`; layer 0 (heads of in-degree 0, ascending) goes to `order`.
/// Returns the size of layer 0.
template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class OrderView,
          class LevelView, class LinkView>
std::uint64_t finalise_chains(const ExecSpace& space,
                              const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                              const RemainingView& remaining, const OrderView& order,
                              const LevelView& level, const LinkView& link) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const std::size_t waves = graph.wave_count();
  constexpr Ordinal unreached = unreached_level<Ordinal>;
  constexpr Ordinal chained = chained_level<Ordinal>;
  Kokkos::parallel_for(
      "strata::plan::chain_mark", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w) {
        const Ordinal head = link(w);
        if (head == Ordinal(w)) {
          level(w) = remaining(w) == Offset(0) ? Ordinal(0) : unreached;
        } else if (link(head) != head) {
          level(w) = unreached;  // a ring: no head, never scheduled
        } else {
          level(w) = chained;
        }
      });
  Kokkos::parallel_for(
      "strata::plan::chain_tails", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w) {
        if (level(w) != chained) return;
        // w is the tail unless its single target continues the chain.
        if (row_map(w + 1) - row_map(w) == Offset(1) && level(entries(row_map(w))) == chained)
          return;
        link(link(w)) = Ordinal(w);  // only heads' entries are written here
      });
  scan_value_t<Ordinal> sources = 0;
  Kokkos::parallel_scan(
      "strata::plan::chain_sources", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& position, const bool final) {
        if (level(w) != Ordinal(0)) return;
        if (final) order(position) = Ordinal(w);
        ++position;
      },
      sources);
  return sources;
}

/// Expand: chained waves below a scheduled head get level(head) + distance.
/// A head is scheduled when its remaining in-degree reached 0. Returns the
/// number of scheduled waves.
template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class LevelView,
          class LinkView, class DistanceView>
std::uint64_t expand_chains(const ExecSpace& space, std::size_t waves,
                            const RemainingView& remaining, const LevelView& level,
                            const LinkView& link, const DistanceView& distance) {
  constexpr Ordinal unreached = unreached_level<Ordinal>;
  constexpr Ordinal chained = chained_level<Ordinal>;
  scan_value_t<Ordinal> scheduled = 0;
  Kokkos::parallel_reduce(
      "strata::plan::chain_expand", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& count) {
        if (level(w) == chained) {
          const Ordinal head = link(w);
          if (remaining(head) != Offset(0)) {
            level(w) = unreached;
            return;
          }
          level(w) = static_cast<Ordinal>(level(head) + distance(w));
          ++count;
        } else if (remaining(w) == Offset(0)) {
          ++count;  // a head the walk released (a ring's waves keep in-degree 1)
        }
      },
      scheduled);
  return scheduled;
}

struct ChainStep {
  /// Links, ranks and finalises the chains, walks the heads fused and
  /// expands: the walk is finished.
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    const std::uint64_t waves = s.wave_count();
    s.reserve_chain_buffers();
    const std::uint64_t chained = link_chains(space, s.graph, s.remaining, s.chain_link);
    rank_chains(space, waves, s.chain_link, s.chain_distance, s.order, s.level);
    const std::uint64_t heads_first =
        finalise_chains(space, s.graph, s.remaining, s.order, s.level, s.chain_link);
    s.stats.chained_waves = chained;
    s.stats.fused = true;
    s.stats.fused_workers = fused_worker_count(space, waves - chained);
    s.begin = 0;
    s.frontier = heads_first;
    fused_walk(space, s, s.stats.fused_workers, /*contracted=*/true);
    s.finish(expand_chains<ExecSpace, Ordinal, Offset>(space, waves, s.remaining, s.level,
                                                       s.chain_link, s.chain_distance),
             /*on_device=*/true);
  }
};

}  // namespace strata::plan::detail
