#pragma once
// Persistent mode: one launch of a co-resident league (residency.hpp; no
// larger than the widest group needs) runs every remaining group. A group no
// wider than the league's waves at once (one per team, or one per thread for
// thread-level waves) is split statically: team r takes wave r (lane i wave
// i), with no shared word touched. A wider group of team-level waves is
// handed out one wave at a time by an atomic cursor (control word
// group_next) over plan.waves; thread-level waves of a wider group run in
// static passes over the league's threads. A wave
// completed by an earlier, drained run is skipped. Between groups every team meets at the
// device-wide barrier (strata/core/device_barrier.hpp), whose last arrival
// resets the cursor and records whether the run stops; every team reads that
// one decision after the barrier, so all teams leave at the same group.
// Thread-level waves: the leader reads the run's words once per group for its
// team (together with that decision) and the lanes start at once; a wave's
// state word is read before it starts only when a drained run came before.
//
// Staged thread-level waves (wave_invoke.hpp): each thread prepares its
// wave of the next group between its team's arrival at the barrier and its
// wait, so those loads overlap the barrier instead of following it.
//
// The kernel starts with the league rendezvous shared with the planner's
// persistent layers (core/league_rendezvous.hpp): each team counts itself in
// and waits (bounded by RunOptions::residency_timeout on the device clock)
// until the whole league has started. One word decides for every team, so
// either the whole league proceeds or no team runs a wave: a league the
// device cannot hold at once ends as NotCoResident, never as a hang at the
// first barrier and never as a partly run group.
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/device_barrier.hpp>
#include <strata/core/league_rendezvous.hpp>
#include <strata/core/spin_wait.hpp>
#include <strata/execute/detail/executor_state.hpp>
#include <strata/execute/detail/residency.hpp>
#include <strata/execute/detail/run_in_place.hpp>
#include <strata/execute/detail/wave_invoke.hpp>

namespace strata::execute::detail {

template <class ExecSpace, class Ordinal, class Functor>
struct PersistentKernel {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr std::uint64_t code_end = no_wave;       // the group is handed out
  static constexpr std::uint64_t code_stop = no_wave - 1;  // the run stops
  static constexpr std::uint64_t code_skip = no_wave - 2;  // completed by an earlier run

  WaveState<ExecSpace, Ordinal> s;
  Kokkos::View<Ordinal*, memory_space> waves;
  Kokkos::View<Ordinal*, memory_space> group_offsets;
  DeviceBarrier<memory_space> barrier;
  LeagueRendezvous<memory_space> rendezvous;
  Functor f;
  std::uint64_t first_group = 0, groups = 0;
  std::uint32_t league = 1;
  std::uint64_t rendezvous_timeout_ns = LeagueRendezvous<memory_space>::default_timeout_ns;
  bool resumed = true;  ///< an earlier run may have completed waves: their state is read first
  static constexpr int code_leave = -1;  ///< after a barrier: the run stops, every team leaves
  static constexpr bool team_level = is_team_wave_functor<Functor, member_type, Ordinal>::value;
  /// Staged thread-level waves: prepare() of a thread's first wave of the
  /// next group runs while the barrier is crossed (see operator()).
  static constexpr bool staged = !team_level && is_staged_wave_functor<Functor, Ordinal>::value;
  using prepared_type = prepared_t<Functor, Ordinal>;

  /// Leader: the next wave of the group (or a code), broadcast to the team.
  KOKKOS_INLINE_FUNCTION std::uint64_t grab(const member_type& team, std::uint64_t begin,
                                            std::uint64_t width) const {
    std::uint64_t code = code_end;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](std::uint64_t& c) {
          if (!s.may_start()) {
            c = code_stop;
            return;
          }
          const std::uint64_t i = Kokkos::atomic_fetch_add(s.word(group_next), std::uint64_t(1));
          if (i >= width) {
            c = code_end;
            return;
          }
          const Ordinal w = waves(begin + i);
          if (s.completed(w)) {
            c = code_skip;
            return;
          }
          s.mark_running(w);
          c = static_cast<std::uint64_t>(w);
        },
        code);
    return code;
  }

  /// Team-level waves: a team per wave when the group fits the league,
  /// otherwise one wave at a time from the cursor, which only grows: at most
  /// width + 1 passes per team.
  KOKKOS_INLINE_FUNCTION void run_group(const member_type& team, std::uint64_t begin,
                                        std::uint64_t width, std::true_type) const {
    const std::uint64_t rank = static_cast<std::uint64_t>(team.league_rank());
    if (width <= static_cast<std::uint64_t>(team.league_size())) {
      if (rank >= width) return;
      const Ordinal w = waves(begin + rank);
      if (try_start(s, team, w) == start_go) run_in_place(s, f, team, w);
      return;
    }
    for (;;) {
      const std::uint64_t code = grab(team, begin, width);
      if (code == code_end || code == code_stop) break;
      if (code == code_skip) continue;
      run_in_place(s, f, team, static_cast<Ordinal>(code));
    }
  }

  /// Thread-level waves, one per thread of the league and pass: thread t
  /// runs waves t, t + league threads, ... of the group (no shared cursor:
  /// the passes are static). The team's leader decides for its threads
  /// before each pass: for the first, `start` (read with the barrier's
  /// decision), then WaveState::team_start. At most width / threads + 1
  /// passes per team. `first` is the prepared data of the thread's wave of
  /// the first pass (prepare_first), the later passes prepare inline.
  KOKKOS_INLINE_FUNCTION void run_group(const member_type& team, std::uint64_t begin,
                                        std::uint64_t width, int start,
                                        const prepared_type& first, std::false_type) const {
    const std::uint64_t lanes = static_cast<std::uint64_t>(team.team_size());
    const std::uint64_t stride = static_cast<std::uint64_t>(team.league_size()) * lanes;
    std::uint64_t base = static_cast<std::uint64_t>(team.league_rank()) * lanes;
    for (bool first_pass = true; base < width; base += stride, first_pass = false) {
      if (!first_pass) start = s.team_start(team);
      if (start == lanes_stop) return;
      const std::uint64_t i = base + static_cast<std::uint64_t>(team.team_rank());
      if (i >= width) continue;
      const Ordinal w = waves(begin + i);
      run_lane(s, f, w, resumed, start, team.team_rank() == 0,
               first_pass ? first : prepare_wave(f, w));
    }
  }
  KOKKOS_INLINE_FUNCTION void run_group(const member_type& team, std::uint64_t begin,
                                        std::uint64_t width, int, const prepared_type&,
                                        std::true_type tag) const {
    run_group(team, begin, width, tag);
  }

  /// Staged waves: the prepared data of this thread's wave in the first pass
  /// of group g (nothing when it has none, or the functor is not staged).
  KOKKOS_INLINE_FUNCTION void prepare_first(const member_type& team, std::uint64_t g,
                                            prepared_type& p) const {
    if (!staged || g >= groups) return;
    const std::uint64_t begin = group_offsets(g);
    const std::uint64_t width = std::uint64_t(group_offsets(g + 1)) - begin;
    const std::uint64_t i =
        static_cast<std::uint64_t>(team.league_rank()) * static_cast<std::uint64_t>(team.team_size()) +
        static_cast<std::uint64_t>(team.team_rank());
    if (i < width) p = prepare_wave(f, waves(begin + i));
  }

  /// The leader's decision after a barrier (and before the first group):
  /// code_leave once the barrier's last arrival saw the run stop, otherwise
  /// for thread-level waves the team's start code for the next group (the
  /// words are loaded together: one memory round trip for both decisions).
  KOKKOS_INLINE_FUNCTION int next_code(const member_type& team, const std::uint64_t* decided) const {
    int code = code_leave;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& c) {
          const std::uint64_t leave = decided != nullptr ? volatile_load(decided) : 0;
          const int start = team_level ? int(lanes_go) : s.start_code();
          c = leave != 0 ? code_leave : start;
        },
        code);
    return code;
  }

  /// The barrier between groups is split (DeviceBarrier::arrive / wait):
  /// between the team's arrival and its wait, staged waves prepare the next
  /// group (loads of data no wave writes, in flight while the last teams
  /// arrive), so after the barrier only what depends on the previous group
  /// is left to load.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    if (!rendezvous.arrive(team, league, rendezvous_timeout_ns)) return;
    int start = first_group < groups ? next_code(team, nullptr) : int(lanes_stop);
    prepared_type prepared{};
    prepare_first(team, first_group, prepared);
    for (std::uint64_t g = first_group; g < groups; ++g) {
      const std::uint64_t begin = group_offsets(g);
      const std::uint64_t width = std::uint64_t(group_offsets(g + 1)) - begin;
      run_group(team, begin, width, start, prepared, std::integral_constant<bool, team_level>());
      std::uint64_t* const next = s.word(group_next);
      std::uint64_t* const stop = s.word(stop_word);
      std::uint64_t* const decided = s.word(barrier_stop);
      const auto completion = [&]() {
        volatile_store(next, std::uint64_t(0));
        volatile_store(decided, volatile_load(stop));
      };
      if constexpr (staged) {
        const auto arrival = barrier.arrive(team, league, completion);
        prepare_first(team, g + 1, prepared);
        if (!barrier.wait(team, arrival, s.word(abort_word))) return;
      } else {
        // Nothing to overlap: the barrier in one piece (one team collective
        // fewer per group than its halves; a chain of one-wave groups pays
        // that collective on every wave).
        if (!barrier.arrive_and_wait(team, league, completion, s.word(abort_word))) return;
      }
      start = next_code(team, decided);
      if (start == code_leave) return;
    }
  }
};

/// Launches the persistent kernel for groups first_group .. groups - 1.
template <class ExecSpace, class Ordinal, class Functor>
void run_persistent(const ExecSpace& space,
                    const PersistentKernel<ExecSpace, Ordinal, Functor>& kernel, int team_size,
                    const std::string& label) {
  kernel.barrier.reset(space);
  kernel.rendezvous.reset(space);
  Kokkos::parallel_for(label + "::persistent",
                       Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(kernel.league),
                                                     team_size),
                       kernel);
}

}  // namespace strata::execute::detail
