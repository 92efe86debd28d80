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
#include <atomic>
#include <chrono>
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

/// The two halves of Kokkos::memory_fence() for a hand-off through an atomic
/// read-modify-write or a volatile store: release_fence() before the write
/// that publishes this thread's writes, acquire_fence() after the atomic (or
/// spin) that observed another thread's.
///  * CUDA sm_70+: PTX `fence.acq_rel.gpu`, which with the strong (volatile
///    or atomic) access beside it forms the PTX memory model's release and
///    acquire patterns. Kokkos::memory_fence() is `__threadfence()`, a
///    sequentially consistent `fence.sc.gpu` that the patterns do not need.
///    The fence is cumulative: writes of other threads of the block that this
///    thread observed through a block barrier (team_barrier) are released
///    with its own, which is what lets one thread of a team publish the
///    whole team's writes (the pattern of CUDA's cooperative-groups grid
///    sync).
///  * Other devices: Kokkos::memory_fence().
///  * Hosts: the C++ fences of that order (on x86 no instruction at all: its
///    locked read-modify-writes already order everything, so only the
///    compiler is held back; on Arm a one-way barrier).
KOKKOS_FORCEINLINE_FUNCTION void release_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  Kokkos::memory_fence();
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

KOKKOS_FORCEINLINE_FUNCTION void acquire_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#elif defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  Kokkos::memory_fence();
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

/// Called once per spin with the spin count: on CUDA (sm_70+) a short sleep
/// so polling leaves the memory system to the teams doing work; on a host
/// backend the CPU's spin hint (x86 `pause`, Arm `yield`: a spinning hardware
/// thread leaves its core's resources to its sibling), every spin after the
/// 16th yields the core, and every spin after the 1024th sleeps 50 us.
/// Threads may outnumber cores (OMP_NUM_THREADS beyond the cores, MPI ranks
/// sharing a node, other processes): the thread being waited on must get to
/// run, and a yield alone does not give it the core while other runnable
/// threads spin too (Linux' CFS runs the yielding thread again soon). A wait
/// that long is already thousands of spins, so the sleep does not slow a
/// machine that is not oversubscribed.
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
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
  if (spins >= 1024)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  else if (spins >= 16)
    std::this_thread::yield();
#endif
}

}  // namespace strata
