#pragma once
// Primitives for device code that waits on another team's write: a load and
// a store that always reach memory (volatile: the compiler can neither hoist
// the load out of a spin loop nor keep the store in a register), and a pause
// between spins. They order nothing by themselves: pair a store with a
// Kokkos::memory_fence() before it (release) and a load with one after the
// spin ends (acquire).
//
// Every spin that uses them must be bounded by a 64-bit count or a condition
// that some running thread makes true; no spin counter may wrap.
#include <cstdint>

#include <Kokkos_Core.hpp>

#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <thread>
#endif

namespace strata {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T volatile_load(const T* ptr) {
  return *static_cast<const volatile T*>(ptr);
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION void volatile_store(T* ptr, T value) {
  *static_cast<volatile T*>(ptr) = value;
}

/// Called once per spin with the spin count: on CUDA (sm_70+) a short sleep
/// so polling leaves the memory system to the teams doing work; on a host
/// backend every 64th spin yields the core (teams may outnumber cores when
/// OMP_NUM_THREADS oversubscribes the machine, and the team being waited on
/// must get to run).
KOKKOS_INLINE_FUNCTION void spin_pause(std::uint64_t spins) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 700
  __nanosleep(spins < 64 ? 32u : 256u);
#else
  (void)spins;
#endif
#elif defined(__HIP_DEVICE_COMPILE__)
  (void)spins;
#else
  if ((spins & 63u) == 63u) std::this_thread::yield();
#endif
}

}  // namespace strata
