#pragma once
// Runs one wave on a team until it completes, shared by the layered and
// persistent modes (whose teams hold a wave until it is done): a Yielded or
// Requeued wave executes again on the same team, without a host round trip,
// until it completes, exceeds the requeue bound, faults, or the run stops
// (drain or error; the wave then stays Yielded / Requeued and the next run
// resumes it). The loop is bounded: record() stops it after
// max_requeues_per_wave + 1 executions.
//
// No fence here: the layered and persistent modes hand a wave's writes to
// its successors only across a group boundary, which is a kernel boundary
// (layered) or the device-wide barrier (persistent), and both order every
// write of the group before anything of the next one. A wave that runs again
// runs on the same team (or thread), after a team barrier.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/execute/detail/executor_state.hpp>
#include <strata/execute/detail/wave_invoke.hpp>

namespace strata::execute::detail {

/// Every thread of the team calls it; the leader has marked w Running.
template <class ExecSpace, class Ordinal, class Functor, class Member>
KOKKOS_INLINE_FUNCTION void run_in_place(const WaveState<ExecSpace, Ordinal>& s,
                                         const Functor& f, const Member& team, Ordinal w) {
  for (;;) {
    const std::uint32_t outcome = invoke_wave(f, team, w);
    team.team_barrier();  // every thread's outcome and writes, before the leader records
    int again = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& a) { a = s.record(w, outcome) == outcome_again && s.may_start() ? 1 : 0; },
        again);
    if (again == 0) return;
  }
}

/// Thread-level waves, one per thread of the team ("lanes"): the calling
/// thread alone runs w until it completes, exceeds the requeue bound, faults,
/// or the run stops. No team collective: the other threads hold other waves
/// (on a GPU this keeps every thread of a warp busy). The team's leader has
/// decided that waves may start (WaveState::team_start(), code `start`), so
/// the thread checks none of the run's words before w starts; the state
/// word of w is read (w skipped if Completed) only when an earlier run may
/// have completed it (`resumed`). Requeues check may_start() again. A staged
/// wave's prepared data `p` (wave_invoke.hpp) serves every execution of w:
/// prepare() reads nothing a wave writes.
///
/// Two stores a wave does not need are left out (a lane pays one memory
/// transaction for each, and the widest group of a row solve has 144,000
/// lanes): w is not marked Running (the lane holds w until it is recorded,
/// so no run ends with a lane's wave Running), and only the team's leader
/// (`leader`: team rank 0, which holds the group's first wave of each pass
/// its team runs) raises the run_completed flag, not every lane of the first
/// pass on one word. The flag lets the deadline stop the run once some wave
/// of it completed; team 0's leader holds the first wave of every group, so
/// in a run from the start the flag still rises in its first group (a
/// resumed run may skip that wave as completed: the flag then rises with the
/// first wave a leader completes, and until then the run does not drain).
template <class ExecSpace, class Ordinal, class Functor>
KOKKOS_INLINE_FUNCTION void run_lane(const WaveState<ExecSpace, Ordinal>& s, const Functor& f,
                                     Ordinal w, bool resumed, int start, bool leader,
                                     const prepared_t<Functor, Ordinal>& p) {
  if (resumed && s.completed(w)) return;
  bool flagged = start == lanes_go_flagged || !leader;
  for (;;) {  // bounded: record() stops it after max_requeues_per_wave + 1 executions
    const std::uint32_t outcome = call_thread_wave(f, w, p);
    if (s.record(w, outcome, &flagged) != outcome_again || !s.may_start()) return;
  }
}
template <class ExecSpace, class Ordinal, class Functor>
KOKKOS_INLINE_FUNCTION void run_lane(const WaveState<ExecSpace, Ordinal>& s, const Functor& f,
                                     Ordinal w, bool resumed, int start, bool leader) {
  run_lane(s, f, w, resumed, start, leader, prepare_wave(f, w));
}

/// Leader's decision before a wave of a group starts, broadcast to the team.
enum StartCode : int { start_go = 0, start_skip = 1, start_stop = 2 };

template <class ExecSpace, class Ordinal, class Member>
KOKKOS_INLINE_FUNCTION int try_start(const WaveState<ExecSpace, Ordinal>& s, const Member& team,
                                     Ordinal w) {
  int code = start_go;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](int& c) {
        if (s.completed(w)) {
          c = start_skip;  // completed by an earlier (drained) run
        } else if (!s.may_start()) {
          c = start_stop;
        } else {
          s.mark_running(w);
          c = start_go;
        }
      },
      code);
  return code;
}

}  // namespace strata::execute::detail
