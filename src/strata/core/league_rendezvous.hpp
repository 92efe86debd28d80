#pragma once
// LeagueRendezvous: the first step of a persistent kernel whose teams will
// wait for each other (core/device_barrier.hpp). Every team counts itself in
// and waits until the whole league has started; if that has not happened
// within a timeout on the device clock (core/device_clock.hpp), the league
// is not co-resident (another stream's kernel holds multiprocessors, or the
// backend runs teams one after another) and the launch is abandoned before
// any team did any work, so the caller can fall back or report it.
//
// One 64-bit word decides, so that either every team proceeds or none does:
//   arrival   fetch_add(word, 1); an arrival that sees the abort bit returns
//   timeout   compare_exchange(word, seen, seen | abort_bit) with the count
//             `seen` < league: it succeeds only while the count is still
//             `seen`, so once the last team has arrived nobody can abort, and
//             once the abort bit is set no later arrival can complete the count.
// The word must be zero before the launch (reset()).
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/device_clock.hpp>
#include <strata/core/spin_wait.hpp>

namespace strata {

template <class MemorySpace>
class LeagueRendezvous {
 public:
  static constexpr std::uint64_t abort_bit = std::uint64_t(1) << 63;
  /// Long enough for a loaded device to start every block of a league that
  /// fits it; a league that does not fit never completes, however long.
  static constexpr std::uint64_t default_timeout_ns = 2'000'000'000ull;

  LeagueRendezvous() = default;
  explicit LeagueRendezvous(const std::string& label) : word_(Kokkos::view_alloc(label)) {}

  template <class ExecSpace>
  void reset(const ExecSpace& space) const {
    Kokkos::deep_copy(space, word_, std::uint64_t(0));
  }

  /// Every thread of the team calls it; true: the whole league is running.
  template <class Member>
  KOKKOS_INLINE_FUNCTION bool arrive(const Member& team, std::uint64_t league,
                                     std::uint64_t timeout_ns = default_timeout_ns) const {
    int ok = 0;
    Kokkos::single(
        Kokkos::PerTeam(team), [&](int& r) { r = arrive_thread(league, timeout_ns) ? 1 : 0; },
        ok);
    return ok != 0;
  }

  /// One thread = one participant.
  KOKKOS_INLINE_FUNCTION bool arrive_thread(std::uint64_t league,
                                            std::uint64_t timeout_ns = default_timeout_ns) const {
    std::uint64_t* const word = &word_();
    if (league <= 1) return true;
    if (Kokkos::atomic_fetch_add(word, std::uint64_t(1)) & abort_bit) return false;
    const std::uint64_t start = device_clock_ns();
    for (std::uint64_t spins = 0;; ++spins) {  // ends: the count completes or the clock passes
      const std::uint64_t seen = volatile_load(word);
      if (seen & abort_bit) return false;
      if (seen >= league) break;
      if (device_clock_ns() - start > timeout_ns &&
          Kokkos::atomic_compare_exchange(word, seen, seen | abort_bit) == seen)
        return false;
      spin_pause(spins);
    }
    Kokkos::memory_fence();
    return true;
  }

  /// After the kernel (a host read): whether it was abandoned, and how many
  /// teams had arrived by then (the teams that could be resident).
  struct Outcome {
    bool abandoned = false;
    std::uint64_t arrived = 0;
  };
  Outcome outcome() const {
    std::uint64_t value = 0;
    Kokkos::deep_copy(value, word_);
    return Outcome{(value & abort_bit) != 0, value & ~abort_bit};
  }
  bool abandoned() const { return outcome().abandoned; }

 private:
  Kokkos::View<std::uint64_t, MemorySpace> word_;
};

}  // namespace strata
