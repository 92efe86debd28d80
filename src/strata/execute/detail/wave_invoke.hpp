#pragma once
// Calls a user's wave functor in either of its two forms and returns the
// TaskState word of team thread 0 on every thread of the team:
//   team-level    TaskState operator()(const TeamMember&, Ordinal wave) const
//                 (every thread of the team calls it; it may use TeamThreadRange,
//                 team_barrier...; thread 0's return value counts)
//   thread-level  TaskState operator()(Ordinal wave) const
//                 (one thread of the team calls it)
// The form is detected with std::is_invocable; a functor offering both is
// called team-level. Tag dispatch (no `if constexpr`, which nvcc rejects
// around lambda captures in device code).
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/launch/task_queue.hpp>

namespace strata::execute_detail {

template <class Functor, class Member, class Ordinal>
using is_team_wave_functor = std::is_invocable<const Functor&, const Member&, Ordinal>;

template <class Functor, class Member, class Ordinal>
inline constexpr bool is_wave_functor_v =
    std::is_invocable<const Functor&, const Member&, Ordinal>::value ||
    std::is_invocable<const Functor&, Ordinal>::value;

template <class Functor, class Member, class Ordinal>
KOKKOS_INLINE_FUNCTION std::uint32_t invoke_wave(const Functor& f, const Member& team,
                                                 Ordinal wave, std::true_type /*team-level*/) {
  std::uint32_t word = static_cast<std::uint32_t>(f(team, wave));
  team.team_broadcast(word, 0);
  return word;
}

template <class Functor, class Member, class Ordinal>
KOKKOS_INLINE_FUNCTION std::uint32_t invoke_wave(const Functor& f, const Member& team,
                                                 Ordinal wave, std::false_type /*thread-level*/) {
  std::uint32_t word = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](std::uint32_t& w) { w = static_cast<std::uint32_t>(f(wave)); }, word);
  return word;
}

/// One execution of `wave`; every thread of the team calls it.
template <class Functor, class Member, class Ordinal>
KOKKOS_INLINE_FUNCTION std::uint32_t invoke_wave(const Functor& f, const Member& team,
                                                 Ordinal wave) {
  return invoke_wave(f, team, wave,
                     std::integral_constant<bool, is_team_wave_functor<Functor, Member,
                                                                       Ordinal>::value>());
}

}  // namespace strata::execute_detail
