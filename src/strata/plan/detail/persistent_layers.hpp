#pragma once
// PersistentStep: every remaining top-down layer in ONE launch of a
// co-resident league, with the device-wide barrier (core/device_barrier.hpp)
// between layers in place of a kernel boundary and a host round trip. On a
// GPU a layer of the paced step costs two launches (~10 us each on the H200,
// docs/gpu-cuda.md); here it costs one barrier.
//
// A released wave stays with the thread that released it: each edge that
// releases a target (the release rule, release.hpp, a few edges' decrements
// in flight together) gives it the next level, and the thread keeps the
// target with its edge range (row_map loaded at once, so the load overlaps
// the barrier) in a small per-thread list that it walks itself in the next
// layer, the list's edges a batch at a time (ReleaseRule::release_ranges). Only a thread that releases more than `kept` targets appends the
// rest to a shared list (one atomic each: order[tail++]), which every team
// grid-strides over in the next layer, as it does over the first frontier.
// So a layer is the barrier, then each kept wave's edges and decrements: no
// layer bounds, no `order` read or write and no scan before a wave's edges
// (a deep sweep's layer was a chain of about eight dependent memory round
// trips, docs/gpu-cuda.md). Each team adds its released count to the
// round's counter (two, alternating: the last arrival at the barrier zeroes
// the one the teams read a layer ago, and moves the shared list's segment);
// a layer whose previous one released nothing ends the walk for every team
// at once (they all read the same words after the same barrier).
//
// Residency: the league is at most the co-resident teams for this kernel
// (launch/resident_teams.hpp); a league rendezvous with a timeout
// (core/league_rendezvous.hpp) comes first, so when the device cannot hold
// it after all, the launch returns without touching the graph and the caller
// falls back to host-paced steps.
//
// `order` past the first frontier holds only the spilled targets: nothing
// reads it as the layers (the plan is laid out from the levels, and the walk
// counts the scheduled waves), so plans stay identical.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/device_barrier.hpp>
#include <strata/core/league_rendezvous.hpp>
#include <strata/core/spin_wait.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/launch/resident_teams.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/detail/release.hpp>
#include <strata/plan/detail/sparse_paced.hpp>

namespace strata::detail {

/// Control words of the persistent walk (a View of persistent_word_count):
/// the shared list's segment of the current layer [begin, end) and its tail,
/// the waves released in even and odd layers, and the waves scheduled.
enum PersistentWord : int {
  layer_begin_word,
  layer_end_word,
  tail_word,
  released_even_word,
  released_odd_word,
  scheduled_word
};
inline constexpr int persistent_word_count = 6;

template <class ExecSpace, class Ordinal, class Offset, class Rule, class OrderView>
struct PersistentLayers {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr int kept = 4;  ///< released targets a thread keeps for itself

  typename DependencyGraph<ExecSpace, Ordinal, Offset>::row_map_type row_map;
  typename DependencyGraph<ExecSpace, Ordinal, Offset>::entries_type entries;
  Rule rule;
  OrderView order;
  Kokkos::View<std::uint64_t*, memory_space> words;
  DeviceBarrier<memory_space> barrier;
  LeagueRendezvous<memory_space> rendezvous;
  std::uint64_t league = 1;
  std::uint64_t waves = 0;
  std::uint64_t first_level = 0;  ///< the level of the first frontier

  /// A thread's waves of one layer, each with its out-edge range.
  struct Kept {
    Ordinal wave[kept];
    std::uint64_t first[kept], last[kept];
    int count = 0;
  };

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!rendezvous.arrive(team, league)) return;
    const int size = team.team_size();
    const std::uint64_t stride = league * std::uint64_t(size);
    const std::uint64_t thread = std::uint64_t(team.league_rank()) * size + team.team_rank();
    Kept mine;
    // Each round but the last schedules at least one wave: at most waves + 1 rounds.
    for (std::uint64_t round = 0; round <= waves; ++round) {
      // Issued together; only the shared segment and the exit test wait for them.
      const std::uint64_t begin = volatile_load(&words(layer_begin_word));
      const std::uint64_t end = volatile_load(&words(layer_end_word));
      const std::uint64_t last_released =
          volatile_load(&words(round % 2 == 0 ? released_odd_word : released_even_word));
      const Ordinal next_level = static_cast<Ordinal>(first_level + round + 1);
      Kept next;
      std::uint64_t released = 0;
      const auto keep = [&](const Ordinal t) {
        ++released;
        if (next.count < kept) {
          next.wave[next.count] = t;
          next.first[next.count] = std::uint64_t(row_map(t));
          next.last[next.count] = std::uint64_t(row_map(t + 1));
          ++next.count;
        } else {
          order(Kokkos::atomic_fetch_add(&words(tail_word), std::uint64_t(1))) = t;
        }
      };
      rule.release_ranges(entries, mine.first, mine.last, mine.count, next_level, keep);
      for (std::uint64_t k = begin + thread; k < end; k += stride) {
        const Ordinal w = order(k);
        rule.release_edges(entries, std::uint64_t(row_map(w)), std::uint64_t(row_map(w + 1)),
                           next_level, keep);
      }
      // The layer before released nothing: every list and segment was empty,
      // and every team leaves in this round.
      if (last_released == 0) return;
      mine = next;
      std::uint64_t team_released = released;
      team.team_reduce(Kokkos::Sum<std::uint64_t>(team_released));
      const int parity = round % 2 == 0 ? released_even_word : released_odd_word;
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        if (team_released != 0) Kokkos::atomic_add(&words(parity), team_released);
      });
      const int other = parity == released_even_word ? released_odd_word : released_even_word;
      const bool passed = barrier.arrive_and_wait(team, league, [&]() {
        words(scheduled_word) += words(parity);
        words(other) = 0;  // read by every team in this round, before it arrived
        words(layer_begin_word) = end;
        words(layer_end_word) = words(tail_word);
      });
      if (!passed) return;  // unreachable while the league is resident
    }
  }
};

struct PersistentStep {
  /// Runs every layer from the current frontier in one launch and finishes
  /// the walk; when the league turns out not to be co-resident nothing was
  /// touched, and the state records the refusal (the policy then picks
  /// another step).
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    s.pay_owed_edges(space);
    using State = PlanState<ExecSpace, Ordinal, Offset>;
    using Kernel = PersistentLayers<ExecSpace, Ordinal, Offset, decltype(s.release_rule()),
                                    typename State::OrdinalView>;
    using memory_space = typename ExecSpace::memory_space;
    const auto words = prefix(s.counters, persistent_word_count);
    Kernel kernel{s.graph.row_map, s.graph.entries, s.release_rule(), s.order, words,
                  DeviceBarrier<memory_space>("strata::plan::persistent_barrier"),
                  LeagueRendezvous<memory_space>("strata::plan::persistent_rendezvous")};
    kernel.waves = s.wave_count();
    kernel.first_level = s.layer;
    const auto shape =
        launch::resident_team_shape(space, kernel, static_cast<int>(paced_team_size<ExecSpace>()));
    kernel.league = shape.league;
    kernel.barrier.reset(space);
    kernel.rendezvous.reset(space);
    const std::uint64_t start = s.begin, stop = s.begin + s.frontier;
    Kokkos::parallel_for(
        "strata::plan::persistent_words", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
        KOKKOS_LAMBDA(const int) {
          words(layer_begin_word) = start;
          words(layer_end_word) = stop;
          words(tail_word) = stop;
          words(released_even_word) = 0;
          words(released_odd_word) = stop - start;  // "the layer before" the first one
          words(scheduled_word) = stop;
        });
    Kokkos::parallel_for("strata::plan::persistent_layers",
                         Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(shape.league),
                                                       shape.team_size),
                         kernel);
    space.fence();
    if (kernel.rendezvous.abandoned()) {
      s.persistent_refused = true;
      return;
    }
    std::uint64_t scheduled = 0;
    Kokkos::deep_copy(space, Kokkos::View<std::uint64_t, Kokkos::HostSpace>(&scheduled),
                      Kokkos::subview(words, std::size_t(scheduled_word)));
    space.fence();
    s.stats.persistent = true;
    s.stats.persistent_from_layer = s.layer;
    s.stats.persistent_teams = shape.league;
    s.finish(scheduled, /*on_device=*/true);  // the layers after this one are counted on the device
  }
};

}  // namespace strata::detail
