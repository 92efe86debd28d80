#pragma once
// PersistentStep: every remaining top-down layer in ONE launch of a
// co-resident league, with the device-wide barrier (core/device_barrier.hpp)
// between layers in place of a kernel boundary and a host round trip. On a
// GPU a layer of the paced step costs two launches (~10 us each on the H200,
// docs/gpu-cuda.md); here it costs one barrier.
//
// Layer j is order[begin, end) (control words). Teams grid-stride over it,
// one wave per thread: each edge that releases a target (the release rule,
// release.hpp, a few edges' decrements in flight together) gives it the next
// level, and the thread keeps it in a small per-thread list; a team scan with one
// atomic on the tail word gives the team's released targets their slots
// behind the layer (a thread releasing more than `kept` targets appends the
// rest with one atomic each). At the barrier the last team to arrive moves
// the layer: begin = end, end = tail. A layer that releases nothing ends the
// walk for every team at once (they all read the same words after the barrier).
//
// Residency: the league is at most the co-resident teams for this kernel
// (launch/resident_teams.hpp), and at most one team per multiprocessor
// (persistent_walk_league says why); a league rendezvous with a timeout
// (core/league_rendezvous.hpp) comes first, so when the device cannot hold
// it after all, the launch returns without touching the graph and the caller
// falls back to host-paced steps.
//
// The order of waves inside a layer depends on the atomics; nothing reads it
// as ordered (the plan is laid out from the levels), so plans stay identical.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/device_barrier.hpp>
#include <strata/core/league_rendezvous.hpp>
#include <strata/core/spin_wait.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/launch/device_limits.hpp>
#include <strata/launch/resident_teams.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/detail/release.hpp>
#include <strata/plan/detail/sparse_paced.hpp>

namespace strata::detail {

/// Control words of the persistent walk (a View of persistent_word_count).
enum PersistentWord : int { layer_begin_word, layer_end_word, tail_word, layer_word };
inline constexpr int persistent_word_count = 4;

template <class ExecSpace, class Ordinal, class Offset, class Rule, class OrderView>
struct PersistentLayers {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr int kept = 4;  ///< released targets a thread keeps for the team scan

  typename DependencyGraph<ExecSpace, Ordinal, Offset>::row_map_type row_map;
  typename DependencyGraph<ExecSpace, Ordinal, Offset>::entries_type entries;
  Rule rule;
  OrderView order;
  Kokkos::View<std::uint64_t*, memory_space> words;
  DeviceBarrier<memory_space> barrier;
  LeagueRendezvous<memory_space> rendezvous;
  std::uint64_t league = 1;
  std::uint64_t waves = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!rendezvous.arrive(team, league)) return;
    const int size = team.team_size();
    const std::uint64_t stride = league * std::uint64_t(size);
    // Each round but the last schedules at least one wave: at most waves + 1 rounds.
    for (std::uint64_t round = 0; round <= waves; ++round) {
      const std::uint64_t begin = volatile_load(&words(layer_begin_word));
      const std::uint64_t end = volatile_load(&words(layer_end_word));
      if (begin == end) return;
      const Ordinal next_level = static_cast<Ordinal>(volatile_load(&words(layer_word)) + 1);
      const std::uint64_t count = end - begin;
      // The bound is the same for the whole team: every thread reaches the scan.
      for (std::uint64_t base = std::uint64_t(team.league_rank()) * size; base < count;
           base += stride) {
        Ordinal mine[kept];
        std::uint64_t n = 0;
        const std::uint64_t k = base + std::uint64_t(team.team_rank());
        if (k < count) {
          const Ordinal w = order(begin + k);
          rule.release_edges(entries, std::uint64_t(row_map(w)), std::uint64_t(row_map(w + 1)),
                             next_level, [&](const Ordinal t) {
                               if (n < kept)
                                 mine[n++] = t;
                               else
                                 order(Kokkos::atomic_fetch_add(&words(tail_word),
                                                                std::uint64_t(1))) = t;
                             });
        }
        const std::uint64_t slot = team.team_scan(n, &words(tail_word));
        for (std::uint64_t j = 0; j < n; ++j) order(slot + j) = mine[j];
      }
      const bool passed = barrier.arrive_and_wait(team, league, [&]() {
        words(layer_begin_word) = end;
        words(layer_end_word) = words(tail_word);
        words(layer_word) += 1;
      });
      if (!passed) return;  // unreachable while the league is resident
    }
  }
};

/// The walk's league on a device: the co-resident league, but at most one
/// team per multiprocessor. Every team arrives at every layer's barrier and
/// takes one atomic on the tail word per pass, so fewer teams make each of a
/// deep plan's hundreds of layers cheaper; one team of 256 per multiprocessor
/// covers 33,792 waves per pass on 132 (a sweep3d-200 layer: at most ~30,000).
/// On an H100 (docs/gpu-cuda.md, 2026-12-06), 396 -> 132 teams of 256: the
/// sweeps 11-18 % and layered 6-9 % faster, but tree-out-2M 5-6 % slower
/// (its last layers hold up to 1M waves: three times the passes); 66 or 100
/// teams, or 132 of 512 or 896, were slower. Host backends keep a team per
/// thread.
inline std::uint32_t persistent_walk_league(std::uint32_t resident,
                                            const launch::DeviceLimits& limits) {
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
    auto shape =
        launch::resident_team_shape(space, kernel, static_cast<int>(paced_team_size<ExecSpace>()));
    shape.league = persistent_walk_league(shape.league, launch::DeviceLimits::query(space));
    kernel.league = shape.league;
    kernel.barrier.reset(space);
    kernel.rendezvous.reset(space);
    const std::uint64_t start = s.begin, stop = s.begin + s.frontier, level0 = s.layer;
    Kokkos::parallel_for(
        "strata::plan::persistent_words", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
        KOKKOS_LAMBDA(const int) {
          words(layer_begin_word) = start;
          words(layer_end_word) = stop;
          words(tail_word) = stop;
          words(layer_word) = level0;
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
                      Kokkos::subview(words, std::size_t(layer_end_word)));
    space.fence();
    s.stats.persistent = true;
    s.stats.persistent_from_layer = s.layer;
    s.stats.persistent_teams = shape.league;
    s.finish(scheduled, /*on_device=*/true);  // the layers after this one are counted on the device
  }
};

}  // namespace strata::detail
