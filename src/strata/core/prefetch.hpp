#pragma once
// Software prefetch for the host backends' scattered loops (the owned CSR
// count and fill, the host Kahn walk): a loop that knows the address it will
// touch some iterations ahead asks the cache for it now, so that several
// misses are in flight at once instead of one after another. A hint only:
// it never faults, changes no value, and compiles to nothing in device code
// and on compilers without __builtin_prefetch. On x86-64 it is an inline
// `prefetcht0`: GCC 12 dropped every __builtin_prefetch of the host Kahn
// walk's loop (it kept those of the CSR build), an asm statement stays.
#include <cstddef>

#include <Kokkos_Core.hpp>

namespace strata {

/// Iterations between a loop's prefetch and its use: enough to cover a
/// memory miss at a few nanoseconds per iteration, few enough that the
/// lines are still cached when used.
inline constexpr unsigned prefetch_distance = 16;

/// Below this many bytes of scattered data a loop's prefetch only costs
/// instructions: the data stays in a core's L2. Measured on the in-edge
/// level pass (plan/detail/topological_levels.hpp, one thread): with levels
/// of a few hundred KiB the prefetch made the pass slower, at about 1 MiB
/// it changed nothing, at several MiB it made the pass faster (the upper
/// factor's pass, which reads its rows backwards, was slower with it and
/// has none).
inline constexpr std::size_t prefetch_min_bytes = std::size_t(2) << 20;

/// Prefetches the line of `p` for a read.
KOKKOS_FORCEINLINE_FUNCTION void prefetch_read(const void* p) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
  (void)p;
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 0, 3);
#else
  (void)p;
#endif
}

/// Prefetches the line of `p` for a write (read-modify-write or store).
KOKKOS_FORCEINLINE_FUNCTION void prefetch_write(const void* p) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
  (void)p;
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 1, 3);
#else
  (void)p;
#endif
}

}  // namespace strata
