#pragma once
// DeviceBarrier: a device-wide barrier for a persistent kernel, shared by the
// executor (strata/execute/, persistent mode) and any planner step that keeps
// one launch across layers.
//
// Contract
//  * Participants: exactly `participants` callers per episode: the teams of a
//    co-resident league (arrive_and_wait with a team member) or the threads
//    of a co-resident RangePolicy (arrive_and_wait_thread). Co-residency is
//    the caller's duty (strata/execute/detail/residency.hpp computes it); a
//    participant that is not running can never arrive, so the others would
//    wait until the spin limit or the abort word ends their wait.
//  * Generation counting: `arrived` counts the callers of this episode and
//    `generation` numbers the episodes. A caller reads the generation before
//    it arrives; the last arrival runs the completion function (once per
//    episode, before anyone is released), resets `arrived` to 0 and bumps the
//    generation; the others spin until the generation changes. Both words are
//    64-bit: the generation cannot wrap in any real run, and `arrived` never
//    exceeds `participants`.
//  * Memory: every write made before arrive_and_wait (by any thread of any
//    participating team) is visible to every thread after it returns: each
//    thread fences, the team synchronises (team_barrier), the leader fences
//    again before arriving, the last arrival fences before the release, the
//    waiters fence after it. The completion function's writes are visible
//    after the barrier too.
//  * Bounded: the wait ends when the generation changes, when `*abort` is
//    non-zero, or after `spin_limit` spins (64-bit count, no wrap). It returns
//    true when the barrier was passed, false when the wait was abandoned;
//    after a false return the barrier's state is undefined until reset().
//  * Team-level: every thread of the team calls arrive_and_wait (it contains
//    team barriers); only the team's thread 0 touches the shared words.
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
  explicit DeviceBarrier(const std::string& label) : words_(Kokkos::view_alloc(label), 2) {}

  bool is_allocated() const { return words_.is_allocated(); }

  /// Zeroes both words (queued on `space`): needed once before first use and
  /// after an abandoned wait. All participants must be outside the barrier.
  template <class ExecSpace>
  void reset(const ExecSpace& space) const {
    Kokkos::deep_copy(space, words_, std::uint64_t(0));
  }

  /// One thread = one participant. `completion()` runs on the last arrival.
  template <class Completion>
  KOKKOS_INLINE_FUNCTION bool arrive_and_wait_thread(std::uint64_t participants,
                                                     const Completion& completion,
                                                     const std::uint64_t* abort = nullptr,
                                                     std::uint64_t spin_limit =
                                                         default_spin_limit) const {
    std::uint64_t* const arrived = &words_(0);
    std::uint64_t* const generation = &words_(1);
    Kokkos::memory_fence();  // this thread's (and its team's) writes before the arrival
    const std::uint64_t episode = volatile_load(generation);
    Kokkos::memory_fence();  // read the generation before arriving
    const std::uint64_t before = Kokkos::atomic_fetch_add(arrived, std::uint64_t(1));
    if (before + 1 >= participants) {
      Kokkos::memory_fence();  // see every other arrival's writes
      completion();
      volatile_store(arrived, std::uint64_t(0));
      Kokkos::memory_fence();  // the reset and the completion's writes before the release
      Kokkos::atomic_fetch_add(generation, std::uint64_t(1));
      return true;
    }
    for (std::uint64_t spins = 0; volatile_load(generation) == episode; ++spins) {
      if (abort != nullptr && volatile_load(abort) != 0) return false;
      if (spins >= spin_limit) return false;
      spin_pause(spins);
    }
    Kokkos::memory_fence();  // acquire: what was written before the release
    return true;
  }

  /// One team = one participant; every thread of the team calls it.
  template <class Member, class Completion>
  KOKKOS_INLINE_FUNCTION bool arrive_and_wait(const Member& team, std::uint64_t participants,
                                              const Completion& completion,
                                              const std::uint64_t* abort = nullptr,
                                              std::uint64_t spin_limit =
                                                  default_spin_limit) const {
    Kokkos::memory_fence();  // each thread's writes before the team synchronises
    team.team_barrier();
    int passed = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& ok) {
          ok = arrive_and_wait_thread(participants, completion, abort, spin_limit) ? 1 : 0;
        },
        passed);
    Kokkos::memory_fence();
    return passed != 0;
  }

 private:
  Kokkos::View<std::uint64_t*, MemorySpace> words_;  ///< arrived, generation
};

}  // namespace strata
