#pragma once
// The clock the wall-time budget (LaunchConfig::max_wall_time) is measured
// with, read inside the kernels so that a persistent launch can drain by
// itself without the host watching it:
//   CUDA        %globaltimer: the GPU's nanosecond wall clock (every
//               architecture CUDA 11+ supports; updates about every µs)
//   HIP         wall_clock64(): a constant-rate counter, 100 MHz on the
//               MI100 / MI200 / MI300 family (untested here)
//   host        std::chrono::steady_clock (Serial, OpenMP, Threads run
//               their kernels on host threads)
// The deadline is computed by a one-thread kernel on the same clock
// (executor_state.hpp), so host and device clocks are never compared.
#include <cstdint>

#include <Kokkos_Core.hpp>

#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <chrono>
#endif

namespace strata::execute_detail {

KOKKOS_INLINE_FUNCTION std::uint64_t device_clock_ns() {
#if defined(__CUDA_ARCH__)
  std::uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#elif defined(__HIP_DEVICE_COMPILE__)
  return static_cast<std::uint64_t>(wall_clock64()) * 10u;
#else
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
#endif
}

}  // namespace strata::execute_detail
