#pragma once
// Calls a user's wave functor in either of its two forms and returns the
// TaskState word of team thread 0 on every thread of the team:
//   team-level    TaskState operator()(const TeamMember&, Ordinal wave) const
//                 (every thread of the team calls it; it may use TeamThreadRange,
//                 team_barrier...; thread 0's return value counts)
//   thread-level  TaskState operator()(Ordinal wave) const
//                 (one thread of the team calls it)
//   staged        P prepare(Ordinal wave) const and
//                 TaskState operator()(Ordinal wave, const P&) const
//                 (thread-level in two halves: prepare() reads only what no
//                 wave writes, so the persistent mode may run it for the next
//                 group while the device-wide barrier of the current one is
//                 crossed; every other mode calls the halves back to back)
// The form is detected with std::is_invocable; a functor offering both is
// called team-level. Tag dispatch (no `if constexpr`, which nvcc rejects
// around lambda captures in device code).
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/execute/task_queue.hpp>

namespace strata::execute::detail {

template <class Functor, class Member, class Ordinal>
using is_team_wave_functor = std::is_invocable<const Functor&, const Member&, Ordinal>;

/// The staged form: prepare(wave) and operator()(wave, prepared).
template <class Functor, class Ordinal, class = void>
struct is_staged_wave_functor : std::false_type {};
template <class Functor, class Ordinal>
struct is_staged_wave_functor<
    Functor, Ordinal, std::void_t<decltype(std::declval<const Functor&>().prepare(Ordinal()))>>
    : std::is_invocable<const Functor&, Ordinal,
                        const decltype(std::declval<const Functor&>().prepare(Ordinal()))&> {};

/// What prepare() returns, or an empty placeholder for the unstaged forms.
struct NotStaged {};
template <class Functor, class Ordinal, bool = is_staged_wave_functor<Functor, Ordinal>::value>
struct prepared_of {
  using type = NotStaged;
};
template <class Functor, class Ordinal>
struct prepared_of<Functor, Ordinal, true> {
  using type = std::decay_t<decltype(std::declval<const Functor&>().prepare(Ordinal()))>;
};
template <class Functor, class Ordinal>
using prepared_t = typename prepared_of<Functor, Ordinal>::type;

template <class Functor, class Member, class Ordinal>
inline constexpr bool is_wave_functor_v =
    std::is_invocable<const Functor&, const Member&, Ordinal>::value ||
    std::is_invocable<const Functor&, Ordinal>::value ||
    is_staged_wave_functor<Functor, Ordinal>::value;

/// prepare(w) of a staged functor; nothing for the others.
template <class Functor, class Ordinal>
KOKKOS_INLINE_FUNCTION prepared_t<Functor, Ordinal> prepare_wave(const Functor& f, Ordinal w,
                                                                 std::true_type /*staged*/) {
  return f.prepare(w);
}
template <class Functor, class Ordinal>
KOKKOS_INLINE_FUNCTION NotStaged prepare_wave(const Functor&, Ordinal, std::false_type) {
  return NotStaged{};
}
template <class Functor, class Ordinal>
KOKKOS_INLINE_FUNCTION prepared_t<Functor, Ordinal> prepare_wave(const Functor& f, Ordinal w) {
  return prepare_wave(f, w, is_staged_wave_functor<Functor, Ordinal>());
}

/// One execution of a thread-level (or staged) wave, with the prepared
/// data when the caller has it.
template <class Functor, class Ordinal, class Prepared>
KOKKOS_INLINE_FUNCTION std::uint32_t call_thread_wave(const Functor& f, Ordinal w,
                                                      const Prepared& p, std::true_type /*staged*/) {
  return static_cast<std::uint32_t>(f(w, p));
}
template <class Functor, class Ordinal, class Prepared>
KOKKOS_INLINE_FUNCTION std::uint32_t call_thread_wave(const Functor& f, Ordinal w,
                                                      const Prepared&, std::false_type) {
  return static_cast<std::uint32_t>(f(w));
}
template <class Functor, class Ordinal>
KOKKOS_INLINE_FUNCTION std::uint32_t call_thread_wave(const Functor& f, Ordinal w,
                                                      const prepared_t<Functor, Ordinal>& p) {
  return call_thread_wave(f, w, p, is_staged_wave_functor<Functor, Ordinal>());
}
template <class Functor, class Ordinal>
KOKKOS_INLINE_FUNCTION std::uint32_t call_thread_wave(const Functor& f, Ordinal w) {
  return call_thread_wave(f, w, prepare_wave(f, w));
}

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
      [&](std::uint32_t& w) { w = call_thread_wave(f, wave); }, word);
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

}  // namespace strata::execute::detail
