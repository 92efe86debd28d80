#pragma once
// DeviceLimits: the adapter limits of a Kokkos execution space, as the
// planner's and the executor's rules read them. Host backends report their thread count; CUDA and HIP
// add the multiprocessor count and the grid limit from the runtime.
#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

namespace strata {

struct DeviceLimits {
  std::string backend;                  ///< ExecSpace::name()
  std::uint32_t concurrency = 1;        ///< threads that can run at once
  std::uint32_t max_team_size = 1;      ///< threads per team (TeamPolicy::team_size_max)
  std::uint32_t max_league_size = 1;    ///< teams per launch
  std::uint32_t max_invocations_per_team = 1;
  std::uint32_t multiprocessor_count = 0;  ///< SMs / CUs; 0 on host backends
  /// Lanes of a warp progress independently, so a lane may spin-wait on
  /// another lane of its own warp: host threads, CUDA devices of compute
  /// capability 7.0 and later (independent thread scheduling); not HIP
  /// wavefronts or older CUDA devices.
  bool independent_lanes = true;

  template <class ExecSpace>
  static DeviceLimits query(const ExecSpace& space = ExecSpace());
};

namespace core::detail {
struct TeamSizeProbe {
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member&) const {}
};
inline std::uint32_t clamp32(long long v) {
  if (v < 1) return 1;
  if (v > static_cast<long long>(std::numeric_limits<std::uint32_t>::max()))
    return std::numeric_limits<std::uint32_t>::max();
  return static_cast<std::uint32_t>(v);
}
}  // namespace core::detail

template <class ExecSpace>
DeviceLimits DeviceLimits::query(const ExecSpace& space) {
  DeviceLimits l;
  l.backend = ExecSpace::name();
  l.concurrency = core::detail::clamp32(space.concurrency());
  const Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1);
  l.max_team_size =
      core::detail::clamp32(probe.team_size_max(core::detail::TeamSizeProbe(), Kokkos::ParallelForTag()));
  l.max_invocations_per_team = l.max_team_size;
  l.max_league_size = std::numeric_limits<std::int32_t>::max();  // Kokkos loops beyond the grid
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    int device = 0, sms = 0, grid = 0, block = 0, major = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    l.independent_lanes = major >= 7;
    cudaDeviceGetAttribute(&grid, cudaDevAttrMaxGridDimX, device);
    cudaDeviceGetAttribute(&block, cudaDevAttrMaxThreadsPerBlock, device);
    l.multiprocessor_count = core::detail::clamp32(sms);
    l.max_league_size = core::detail::clamp32(grid);
    l.max_invocations_per_team = core::detail::clamp32(block);
  }
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Experimental::HIP>) {
    int device = 0, cus = 0, grid = 0, block = 0;
    (void)hipGetDevice(&device);
    (void)hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device);
    l.independent_lanes = false;
    (void)hipDeviceGetAttribute(&grid, hipDeviceAttributeMaxGridDimX, device);
    (void)hipDeviceGetAttribute(&block, hipDeviceAttributeMaxThreadsPerBlock, device);
    l.multiprocessor_count = core::detail::clamp32(cus);
    l.max_league_size = core::detail::clamp32(grid);
    l.max_invocations_per_team = core::detail::clamp32(block);
  }
#endif
  if (l.max_team_size > l.max_invocations_per_team) l.max_team_size = l.max_invocations_per_team;
  return l;
}

}  // namespace strata
