#pragma once
// DeviceBarrier: a device-wide barrier for a persistent kernel (the
// executor's persistent mode, strata/execute/). The planner's persistent walk
// ends its layers without one: a layer's end there is also the count of the
// waves it released, so one tally word counts the teams in and places those
// waves in the same atomic (plan/detail/persistent_layers.hpp); it keeps
// this barrier's spin limit.
//
// Contract
//  * Participants: exactly `participants` (< 2^32) callers per episode: the teams of a
//    co-resident league (arrive_and_wait with a team member) or the threads
//    of a co-resident RangePolicy (arrive_and_wait_thread). Co-residency is
//    the caller's duty (strata/execute/detail/residency.hpp computes it); a
//    participant that is not running can never arrive, so the others would
//    wait until the spin limit or the abort word ends their wait.
//  * One word: the high 32 bits number the episodes (the generation), the
//    low 32 bits count this episode's arrivals. An arrival is one atomic
//    fetch_add of 1, whose old value gives the caller both its generation
//    and its place, so no separate read of the generation has to be ordered
//    before it. The last arrival runs the completion function (once per
//    episode, before anyone is released), then adds 2^32 - participants:
//    the count returns to 0 and the generation steps, in one atomic. The
//    others spin until the generation in the word changes. The generation
//    may wrap after 2^32 episodes; a waiter compares for inequality with its
//    own episode, which the next 2^32 - 1 episodes cannot all pass while it
//    waits (it is one of their participants).
//  * Memory: every write made before arrive_and_wait (by any thread of any
//    participating team) is visible to every thread after it returns. The
//    team synchronises (team_barrier), its leader fences (release) and
//    arrives, the last arrival fences (acquire) before the completion
//    function and (release) before the release; each waiter fences
//    (acquire) when it sees the new generation and the team synchronises
//    again (the broadcast of Kokkos::single). Only the leader fences: the
//    fences are cumulative over what the team barrier ordered before them
//    (core/spin_wait.hpp), as in CUDA's cooperative-groups grid sync. The
//    completion function's writes are visible after the barrier too.
//  * Bounded: the wait ends when the generation changes, when `*abort` is
//    non-zero, or after `spin_limit` spins (64-bit count, no wrap). It returns
//    true when the barrier was passed, false when the wait was abandoned;
//    after a false return the barrier's state is undefined until reset().
//  * Team-level: every thread of the team calls arrive_and_wait (it contains
//    team barriers); only the team's thread 0 touches the shared word.
//  * One participant: the completion function runs and nothing else (no
//    atomic, no fence: there is nobody to hand writes to).
//  * Split phase: arrive() / wait() (and their _thread forms) are the two
//    halves of arrive_and_wait; between them a participant may read only
//    what no participant writes before the barrier.
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/spin_wait.hpp>

namespace strata {

template <class MemorySpace>
class DeviceBarrier {
 public:
  using memory_space = MemorySpace;
  /// Enough for hours of spinning on any device; reachable only if a
  /// participant never arrives.
  static constexpr std::uint64_t default_spin_limit = std::uint64_t(1) << 40;

  DeviceBarrier() = default;
  explicit DeviceBarrier(const std::string& label) : words_(Kokkos::view_alloc(label), 1) {}

  bool is_allocated() const { return words_.is_allocated(); }

  /// Zeroes the word (queued on `space`): needed once before first use and
  /// after an abandoned wait. All participants must be outside the barrier.
  template <class ExecSpace>
  void reset(const ExecSpace& space) const {
    Kokkos::deep_copy(space, words_, std::uint64_t(0));
  }

  /// One arrival, as the arriving thread sees it: its episode, or `passed`
  /// when it was the last (it has run the completion and released the
  /// others). Meaningful in the arriving thread only (a team's leader).
  struct Arrival {
    std::uint64_t episode = 0;
    bool passed = true;
  };

  /// First half of arrive_and_wait_thread: counts this thread in, and the
  /// last arrival runs `completion()` and releases the episode at once. The
  /// caller may then do work that reads nothing a participant writes before
  /// the barrier (a split-phase barrier: the executor's staged waves load
  /// their next group's immutable data here) and must call wait_thread.
  template <class Completion>
  KOKKOS_INLINE_FUNCTION Arrival arrive_thread(std::uint64_t participants,
                                               const Completion& completion) const {
    if (participants <= 1) {
      completion();
      return Arrival{};
    }
    std::uint64_t* const word = &words_(0);
    release_fence();  // this thread's writes (and its team's, through the team barrier)
    const std::uint64_t before = Kokkos::atomic_fetch_add(word, std::uint64_t(1));
    if ((before & count_mask) + 1 >= participants) {
      acquire_fence();  // every other arrival's writes
      completion();
      release_fence();  // the completion's writes before the release
      Kokkos::atomic_fetch_add(word, (std::uint64_t(1) << 32) - participants);
      return Arrival{};
    }
    return Arrival{before >> 32, false};
  }

  /// Second half: waits until the episode of `arrival` has been released.
  KOKKOS_INLINE_FUNCTION bool wait_thread(const Arrival& arrival,
                                          const std::uint64_t* abort = nullptr,
                                          std::uint64_t spin_limit = default_spin_limit) const {
    if (arrival.passed) return true;
    const std::uint64_t* const word = &words_(0);
    for (std::uint64_t spins = 0; (volatile_load(word) >> 32) == arrival.episode; ++spins) {
      if (abort != nullptr && volatile_load(abort) != 0) return false;
      if (spins >= spin_limit) return false;
      spin_pause(spins);
    }
    acquire_fence();  // what was written before the release
    return true;
  }

  /// One thread = one participant. `completion()` runs on the last arrival.
  template <class Completion>
  KOKKOS_INLINE_FUNCTION bool arrive_and_wait_thread(std::uint64_t participants,
                                                     const Completion& completion,
                                                     const std::uint64_t* abort = nullptr,
                                                     std::uint64_t spin_limit =
                                                         default_spin_limit) const {
    return wait_thread(arrive_thread(participants, completion), abort, spin_limit);
  }

  /// One team = one participant; every thread of the team calls it.
  template <class Member, class Completion>
  KOKKOS_INLINE_FUNCTION bool arrive_and_wait(const Member& team, std::uint64_t participants,
                                              const Completion& completion,
                                              const std::uint64_t* abort = nullptr,
                                              std::uint64_t spin_limit =
                                                  default_spin_limit) const {
    team.team_barrier();  // every thread's writes, before the leader releases them
    int passed = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& ok) {
          ok = arrive_and_wait_thread(participants, completion, abort, spin_limit) ? 1 : 0;
        },
        passed);  // the broadcast synchronises the team after the leader's acquire
    return passed != 0;
  }

  /// Split-phase form of arrive_and_wait, every thread of the team calls
  /// both: arrive() synchronises the team and its leader arrives (no
  /// broadcast: the other threads go on at once); wait() is the leader's
  /// wait and the broadcast. Between the two the team may only read what no
  /// participant writes before the barrier.
  template <class Member, class Completion>
  KOKKOS_INLINE_FUNCTION Arrival arrive(const Member& team, std::uint64_t participants,
                                        const Completion& completion) const {
    team.team_barrier();  // every thread's writes, before the leader releases them
    Arrival arrival;
    Kokkos::single(Kokkos::PerTeam(team),
                   [&]() { arrival = arrive_thread(participants, completion); });
    return arrival;
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION bool wait(const Member& team, const Arrival& arrival,
                                   const std::uint64_t* abort = nullptr,
                                   std::uint64_t spin_limit = default_spin_limit) const {
    int passed = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& ok) { ok = wait_thread(arrival, abort, spin_limit) ? 1 : 0; },
        passed);  // the broadcast synchronises the team after the leader's acquire
    return passed != 0;
  }

 private:
  static constexpr std::uint64_t count_mask = (std::uint64_t(1) << 32) - 1;
  Kokkos::View<std::uint64_t*, MemorySpace> words_;  ///< generation << 32 | arrivals
};

}  // namespace strata
