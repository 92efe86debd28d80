#pragma once
// How many teams of a given kernel can run at the same time: the league of a
// persistent kernel whose teams wait for each other (the planner's persistent
// layers, the executor's persistent and dataflow modes). Every team of such a
// league must be running at once: a team that the backend starts only after
// another one finished would never arrive at the barrier.
//
//   Serial         one thread: 1 team of 1 thread.
//   OpenMP,        Kokkos runs a TeamPolicy on the whole thread pool, one
//   Threads, HPX   pool partition per team, and hands league ranks out in
//                  chunks of 1 while the league is at most the number of
//                  partitions: league <= concurrency() / team_size. (More
//                  threads than cores still progress: spins yield the core.)
//   CUDA, HIP      league <= multiprocessors x blocks per multiprocessor,
//                  blocks per multiprocessor = team_size_max / team_size for
//                  this kernel (at least 1, at most 16). Kokkos' team_size_max
//                  is the largest block of this kernel that fits one
//                  multiprocessor (its registers and shared memory), so
//                  team_size_max / team_size blocks of team_size threads fit
//                  it together; 16 is at or below the resident-block limit of
//                  every CUDA and HIP device.
// Another stream's kernel can still hold multiprocessors: persistent kernels
// start with a LeagueRendezvous (core/league_rendezvous.hpp), bounded by a
// timeout, so a league that is not resident after all is detected, not a hang.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/device_limits.hpp>

namespace strata {

template <class ExecSpace>
inline constexpr bool is_host_backend_v =
    Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

/// Teams of `team_size` threads of `kernel` that can be resident at once.
template <class ExecSpace, class Kernel>
std::uint32_t resident_teams(const ExecSpace& space, const Kernel& kernel, int team_size,
                             const DeviceLimits& limits) {
  if (team_size < 1) team_size = 1;
  if (is_host_backend_v<ExecSpace> || limits.multiprocessor_count == 0) {
    const std::uint32_t teams = limits.concurrency / static_cast<std::uint32_t>(team_size);
    return teams < 1 ? 1 : teams;
  }
  const Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1);
  const int max = probe.team_size_max(kernel, Kokkos::ParallelForTag());
  std::uint64_t per_multiprocessor = static_cast<std::uint64_t>(max / team_size);
  if (per_multiprocessor < 1) per_multiprocessor = 1;
  if (per_multiprocessor > 16) per_multiprocessor = 16;
  const std::uint64_t teams = per_multiprocessor * limits.multiprocessor_count;
  return teams > limits.max_league_size ? limits.max_league_size
                                        : static_cast<std::uint32_t>(teams);
}

/// `wanted` threads per team, clamped to 1 .. the kernel's team_size_max on
/// a device backend; 1 on host backends (a team per thread: the most teams
/// at once). The one place a persistent kernel's team size is clamped.
template <class ExecSpace, class Kernel>
int clamped_team_size(const ExecSpace& space, const Kernel& kernel, int wanted) {
  if (is_host_backend_v<ExecSpace>) return 1;
  const Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1);
  const int max = probe.team_size_max(kernel, Kokkos::ParallelForTag());
  const int size = wanted < max ? wanted : max;
  return size < 1 ? 1 : size;
}

struct ResidentShape {
  std::uint32_t league = 1;
  int team_size = 1;
};

/// The largest co-resident league of `kernel` with teams of `team_size`
/// threads on a device backend (capped by the kernel's team_size_max), or of
/// one thread on host backends.
template <class ExecSpace, class Kernel>
ResidentShape resident_team_shape(const ExecSpace& space, const Kernel& kernel,
                                  int device_team_size, const DeviceLimits& limits) {
  ResidentShape shape;
  shape.team_size = clamped_team_size(space, kernel, device_team_size);
  shape.league = resident_teams(space, kernel, shape.team_size, limits);
  return shape;
}

}  // namespace strata
