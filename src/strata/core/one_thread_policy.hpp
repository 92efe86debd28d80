#pragma once
// A kernel of one iteration, for the passes that must run in order on one
// thread (the host level passes, counting-sort placements): where it runs
// and its policy. Public so that every module runs such passes the same way.
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace strata {

/// Where a one-thread kernel runs: Kokkos::Serial when it is enabled and can
/// read the space's memory (host backends: a one-iteration kernel on OpenMP
/// would still fork and join every thread of the pool, which on a loaded
/// machine waits for descheduled threads), else the space itself.
template <class ExecSpace, class = void>
struct one_thread_space {
  using type = ExecSpace;
  static type make(const ExecSpace& space) { return space; }
};
#ifdef KOKKOS_ENABLE_SERIAL
template <class ExecSpace>
struct one_thread_space<
    ExecSpace, std::enable_if_t<!std::is_same_v<ExecSpace, Kokkos::Serial> &&
                                Kokkos::SpaceAccessibility<
                                    Kokkos::Serial, typename ExecSpace::memory_space>::accessible>> {
  using type = Kokkos::Serial;
  static type make(const ExecSpace& space) {
    space.fence();  // the space's earlier kernels have written what the serial one reads
    return Kokkos::Serial();
  }
};
#endif

/// A RangePolicy of one iteration on one_thread_space.
template <class ExecSpace>
Kokkos::RangePolicy<typename one_thread_space<ExecSpace>::type> one_thread_policy(
    const ExecSpace& space) {
  return Kokkos::RangePolicy<typename one_thread_space<ExecSpace>::type>(
      one_thread_space<ExecSpace>::make(space), 0, 1);
}

}  // namespace strata
