#pragma once
// PersistentStep: every remaining top-down layer in ONE launch of a
// co-resident league, with a device-wide rendezvous between layers in place
// of a kernel boundary and a host round trip. On a GPU a layer of the paced
// step costs two kernel launches; here it costs a few memory round trips.
//
// Layer j is order[begin, end). Teams grid-stride over it, one wave per
// thread: each edge that releases a target (the release rule, release.hpp, a
// few edges' decrements in flight together) gives it the next level, and the
// thread keeps it in a small per-thread list (a thread releasing more than
// `kept` appends the rest with one atomic each).
//
// One 64-bit tally word both places the released targets and counts the
// teams in, so a layer ends with ONE atomic per team and no barrier episode:
//   tally = (targets appended since the launch) * 2^24 + (team arrivals)
// A team's last pass of a layer adds (its targets) * 2^24 + 1 through the
// team scan's atomic; every other pass (and each spilled target) adds its
// targets * 2^24 only. In layer j every team has arrived exactly j times
// before, so `seen - j * league` splits into the targets appended before this
// team (its slots: order[stop + that, ...)) and the teams already arrived in
// this layer (< league < 2^24, no carry). The team that arrives last knows
// the next layer's end at once and publishes it, tagged with the layer, in
// the published word; the others poll that word. A layer that releases
// nothing publishes the end it started from, and every team leaves.
//
// A slot is written after its team has arrived, so the readers of the next
// layer may get there first: order[stop, waves) holds `empty_slot` before the
// launch and a reader spins until its slot holds a wave. Nothing else crosses
// layers inside the kernel (row_map and entries are read-only, the in-degree
// decrements are atomics, a released target's level and parked edge are read
// only after the launch), so no fence is needed: the value is the message.
// The publication depends on the last arrival's atomic result, so it cannot
// be seen before that atomic is performed, and every arrival of the next
// layer comes after it in the tally's order.
//
// Residency: the league is at most the co-resident teams for this kernel
// (core/resident_teams.hpp), and at most one team per multiprocessor
// (persistent_walk_league says why); a league rendezvous with a timeout
// (core/league_rendezvous.hpp) comes first, so when the device cannot hold
// it after all, the launch returns without touching the graph and the caller
// falls back to host-paced steps. Every wait is bounded (a 64-bit spin
// count); one that runs out raises the abort word, every team leaves, and
// the step reports the league as not co-resident.
//
// The order of waves inside a layer depends on the atomics; nothing reads it
// as ordered (the plan is laid out from the levels), so plans stay identical.
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/device_barrier.hpp>  // its spin limit
#include <strata/core/device_limits.hpp>
#include <strata/core/error.hpp>
#include <strata/core/league_rendezvous.hpp>
#include <strata/core/resident_teams.hpp>
#include <strata/core/spin_wait.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/detail/release.hpp>
#include <strata/plan/detail/sparse_paced.hpp>

namespace strata::plan::detail {

/// Control words of the persistent walk (a View of persistent_word_count).
enum PersistentWord : int { tally_word, published_word, abort_word };
inline constexpr int persistent_word_count = 3;

/// The tally word's split: team arrivals below, appended targets above.
inline constexpr int persistent_count_shift = 24;
inline constexpr std::uint64_t persistent_most_teams =
    (std::uint64_t(1) << persistent_count_shift) - 1;
/// The published word's split: the layer's end below, its tag above.
inline constexpr int persistent_end_bits = 40;
inline constexpr std::uint64_t persistent_most_waves = std::uint64_t(1) << persistent_end_bits;

template <class ExecSpace, class Ordinal, class Offset, class Rule, class OrderView>
struct PersistentLayers {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr int kept = 4;  ///< released targets a thread keeps for the team scan
  static constexpr Ordinal empty_slot = std::numeric_limits<Ordinal>::max();
  static constexpr std::uint64_t end_mask = persistent_most_waves - 1;
  static constexpr std::uint64_t arrival_mask = persistent_most_teams;

  typename DependencyGraph<ExecSpace, Ordinal, Offset>::row_map_type row_map;
  typename DependencyGraph<ExecSpace, Ordinal, Offset>::entries_type entries;
  Rule rule;
  OrderView order;
  Kokkos::View<std::uint64_t*, memory_space> words;
  LeagueRendezvous<memory_space> rendezvous;
  std::uint64_t league = 1;
  std::uint64_t waves = 0;
  std::uint64_t start = 0;  ///< the first layer: order[start, stop)
  std::uint64_t stop = 0;   ///< where the released targets go, in layer order
  Ordinal level0 = 0;       ///< the first layer's level

  KOKKOS_INLINE_FUNCTION static std::uint64_t published(std::uint64_t layer, std::uint64_t end) {
    return ((layer & arrival_mask) << persistent_end_bits) | end;
  }

  /// Raises the abort word: every wait then ends and every team leaves.
  KOKKOS_INLINE_FUNCTION void give_up() const {
    Kokkos::atomic_fetch_max(&words(abort_word), std::uint64_t(1));
  }

  /// The wave in order(i), once its writer has stored it; empty_slot when
  /// the walk was aborted.
  KOKKOS_INLINE_FUNCTION Ordinal wave_at(std::uint64_t i) const {
    Ordinal w = volatile_load(&order(i));
    for (std::uint64_t spins = 0; w == empty_slot; ++spins) {
      if (spins >= DeviceBarrier<memory_space>::default_spin_limit) give_up();
      if (volatile_load(&words(abort_word)) != 0) return empty_slot;
      spin_pause(spins);
      w = volatile_load(&order(i));
    }
    return w;
  }

  /// The end of layer `layer` (> 0) once the last team of the layer before
  /// has published it; the team's leader polls, the team gets its answer.
  /// `aborted` when the walk was given up.
  KOKKOS_INLINE_FUNCTION std::uint64_t layer_end(const Member& team, std::uint64_t layer,
                                                 bool& aborted) const {
    std::uint64_t answer = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](std::uint64_t& out) {
          const std::uint64_t tag = layer & arrival_mask;
          std::uint64_t word = volatile_load(&words(published_word));
          for (std::uint64_t spins = 0; (word >> persistent_end_bits) != tag; ++spins) {
            if (spins >= DeviceBarrier<memory_space>::default_spin_limit) give_up();
            if (volatile_load(&words(abort_word)) != 0) {
              out = ~std::uint64_t(0);
              return;
            }
            spin_pause(spins);
            word = volatile_load(&words(published_word));
          }
          out = word & end_mask;
        },
        answer);
    aborted = answer == ~std::uint64_t(0);
    return answer;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!rendezvous.arrive(team, league)) return;
    const std::uint64_t size = std::uint64_t(team.team_size());
    const std::uint64_t stride = league * size;
    const std::uint64_t first = std::uint64_t(team.league_rank()) * size;
    const bool closes = std::uint64_t(team.team_rank()) + 1 == size;  // adds the arrival
    std::uint64_t begin = start, end = stop;
    // Each layer but the last schedules at least one wave: at most waves + 1 layers.
    for (std::uint64_t layer = 0; layer <= waves; ++layer) {
      if (layer > 0) {
        bool aborted = false;
        const std::uint64_t next_end = layer_end(team, layer, aborted);
        if (aborted) return;
        begin = end;
        end = next_end;
      }
      if (begin == end) return;
      const Ordinal next_level = static_cast<Ordinal>(level0 + Ordinal(layer) + 1);
      const std::uint64_t count = end - begin;
      const std::uint64_t arrived_before = layer * league;  // every team, once per layer
      // The same for the whole team (every thread reaches each scan); a team
      // with no wave in this layer still takes one pass, to arrive.
      const std::uint64_t passes = count > first ? (count - first - 1) / stride + 1 : 0;
      const std::uint64_t rounds = passes > 0 ? passes : 1;
      for (std::uint64_t pass = 0; pass < rounds; ++pass) {
        Ordinal mine[kept];
        std::uint64_t n = 0;
        const std::uint64_t k = first + pass * stride + std::uint64_t(team.team_rank());
        if (pass < passes && k < count) {
          const Ordinal w = wave_at(begin + k);
          if (w != empty_slot)
            rule.release_edges(
                entries, std::uint64_t(row_map(w)), std::uint64_t(row_map(w + 1)), next_level,
                [&](const Ordinal t) {
                  if (n < kept) {
                    mine[n++] = t;
                    return;
                  }
                  const std::uint64_t seen = Kokkos::atomic_fetch_add(
                      &words(tally_word), std::uint64_t(1) << persistent_count_shift);
                  volatile_store(&order(stop + ((seen - arrived_before) >> persistent_count_shift)),
                                 t);
                });
        }
        const bool arrives = closes && pass + 1 == rounds;
        const std::uint64_t seen = team.team_scan(
            (n << persistent_count_shift) | (arrives ? 1 : 0), &words(tally_word));
        const std::uint64_t here = seen - arrived_before;
        const std::uint64_t slot = stop + (here >> persistent_count_shift);
        for (std::uint64_t j = 0; j < n; ++j) volatile_store(&order(slot + j), mine[j]);
        if (arrives && (here & arrival_mask) + 1 == league)
          volatile_store(&words(published_word), published(layer + 1, slot + n));
      }
    }
  }
};

/// The walk's league on a device: the co-resident league, but at most one
/// team per multiprocessor. Every team arrives at every layer's barrier and
/// takes one atomic on the tail word per pass, so fewer teams make each of a
/// deep plan's hundreds of layers cheaper; one team of 256 per multiprocessor
/// covers 33,792 waves per pass on 132 (a sweep3d-200 layer: at most ~30,000).
/// Measured on a GPU (docs/performance.md): one team per multiprocessor made
/// the sweeps and layered grids faster than three, and a tree whose last
/// layers hold up to 1M waves (three times the passes) a little slower;
/// fewer teams, or larger ones, were slower. Host backends keep a team per
/// thread.
inline std::uint32_t persistent_walk_league(std::uint32_t resident,
                                            const DeviceLimits& limits) {
  if (limits.multiprocessor_count == 0 || resident <= limits.multiprocessor_count) return resident;
  return limits.multiprocessor_count;
}

struct PersistentStep {
  /// Runs every layer from the current frontier in one launch and finishes
  /// the walk; when the league turns out not to be co-resident nothing was
  /// touched, and the state records the refusal (the policy then picks
  /// another step).
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    using State = PlanState<ExecSpace, Ordinal, Offset>;
    using Kernel = PersistentLayers<ExecSpace, Ordinal, Offset, decltype(s.release_rule()),
                                    typename State::OrdinalView>;
    using memory_space = typename ExecSpace::memory_space;
    const std::uint64_t waves = s.wave_count();
    const auto words = prefix(s.counters, persistent_word_count);
    Kernel kernel{s.graph.row_map, s.graph.entries, s.release_rule(), s.order, words,
                  LeagueRendezvous<memory_space>("strata::plan::persistent_rendezvous")};
    const DeviceLimits limits = DeviceLimits::query(space);
    auto shape = resident_team_shape(
        space, kernel, static_cast<int>(paced_team_size<ExecSpace>()), limits);
    shape.league = persistent_walk_league(shape.league, limits);
    if (shape.league > persistent_most_teams || waves >= persistent_most_waves) {
      s.persistent_refused = true;  // the tally's fields would overflow: paced steps instead
      return;
    }
    s.pay_owed_edges(space);
    kernel.league = shape.league;
    kernel.waves = waves;
    kernel.start = s.begin;
    kernel.stop = s.begin + s.frontier;
    kernel.level0 = static_cast<Ordinal>(s.layer);
    kernel.rendezvous.reset(space);
    const std::uint64_t first_end = Kernel::published(0, kernel.stop);
    Kokkos::parallel_for(
        "strata::plan::persistent_words", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
        KOKKOS_LAMBDA(const int) {
          words(tally_word) = 0;
          words(published_word) = first_end;
          words(abort_word) = 0;
        });
    if (kernel.stop < waves)  // the slots the walk fills; readers wait while one is empty
      Kokkos::deep_copy(space, Kokkos::subview(s.order, std::make_pair(kernel.stop, waves)),
                        Kernel::empty_slot);
    Kokkos::parallel_for("strata::plan::persistent_layers",
                         Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(shape.league),
                                                       shape.team_size),
                         kernel);
    space.fence();
    if (kernel.rendezvous.abandoned()) {
      s.persistent_refused = true;
      return;
    }
    std::uint64_t last[persistent_word_count] = {};
    Kokkos::deep_copy(space,
                      Kokkos::View<std::uint64_t*, Kokkos::HostSpace>(last, persistent_word_count),
                      words);
    space.fence();
    if (last[abort_word] != 0)  // a wait ran out: some team never progressed
      throw PlanError::persistent_walk_stalled(shape.league, std::uint64_t(shape.team_size),
                                               ExecSpace::name());
    s.stats.persistent = true;
    s.stats.persistent_from_layer = s.layer;
    s.stats.persistent_teams = shape.league;
    // The layers after this one are counted on the device.
    s.finish(last[published_word] & Kernel::end_mask, /*on_device=*/true);
  }
};

}  // namespace strata::plan::detail
