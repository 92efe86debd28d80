#pragma once
// The co-resident league of the persistent and dataflow kernels. A persistent
// kernel's teams wait for each other (a device-wide barrier, the ready
// queue), so every team of the league must be running at the same time: a
// team that the backend runs only after another team finished would never
// arrive. The co-resident bound per backend, and why it holds, is
// core/resident_teams.hpp (shared with the planner's persistent layers).
// Another stream's kernel could still hold multiprocessors: the persistent
// kernel then starts with a rendezvous bounded by a timeout (persistent.hpp),
// so a league that is not resident is the typed error NotCoResident, not a hang.
//
// A league forced by the caller (RunOptions::league_size) above the bound is
// NotCoResident before anything is launched; otherwise the league is
// min(LaunchConfig::worker_count, the bound, the useful teams). Useful teams:
// no more than can hold a wave at once (the persistent mode passes the
// widest group: a team beyond it would only wait at every barrier, and each
// participant makes the barrier slower).
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/device_limits.hpp>
#include <strata/core/error.hpp>
#include <strata/core/resident_teams.hpp>

namespace strata::execute::detail {

struct TeamShape {
  std::uint32_t league = 1;
  int team_size = 1;
  std::uint32_t resident = 1;  ///< the co-resident bound for this team size
};

/// Threads per team for `kernel`: the caller's (InvalidLaunchConfig above the
/// kernel's team_size_max) or, when 0: 1 on host backends (a team per
/// thread: the most waves at once), on device backends a warp for
/// thread-level waves and the kernel's recommended size for team-level ones.
template <class ExecSpace, class Kernel>
int resolve_team_size(const ExecSpace& space, const Kernel& kernel, int requested,
                      bool team_level) {
  const Kokkos::TeamPolicy<ExecSpace> probe(space, 1, 1);
  const int max = probe.team_size_max(kernel, Kokkos::ParallelForTag());
  if (requested < 0 || requested > max)
    throw PlanError::invalid_launch_config(
        "team_size", "RunOptions::team_size is " + std::to_string(requested) + " but " +
                         ExecSpace::name() + " runs at most " + std::to_string(max) +
                         " threads per team for this kernel",
        "use 0 (chosen per backend) or a value in 1.." + std::to_string(max));
  if (requested > 0) return requested;
  // Thread-level waves: a warp; team-level ones: Kokkos' recommended size
  // (clamped_team_size caps it, and makes it 1 on host backends).
  const int wanted =
      team_level && !is_host_backend_v<ExecSpace>
          ? probe.team_size_recommended(kernel, Kokkos::ParallelForTag())
          : 32;
  return clamped_team_size(space, kernel, wanted);
}

/// Threads per team for thread-level waves in a persistent launch on a
/// device, one wave per thread: wide enough that the widest group needs
/// about one team per multiprocessor, from a warp up to 256 threads. Every
/// team is one participant of the device-wide barrier between groups, and
/// the barrier's cost grows with them (docs/execute.md), so a group of 50,000 waves
/// meets as ~200 teams of 256 rather than ~1,600 warps.
inline int lane_team_size(std::uint64_t widest, std::uint32_t multiprocessors) {
  constexpr std::uint64_t warp = 32, most = 256;
  const std::uint64_t sms = multiprocessors == 0 ? 1 : multiprocessors;
  const std::uint64_t per_sm = (widest + sms - 1) / sms;
  const std::uint64_t rounded = (per_sm + warp - 1) / warp * warp;
  return static_cast<int>(rounded < warp ? warp : rounded > most ? most : rounded);
}

/// What a persistent launch asks of its league.
struct LeagueRequest {
  int team_size = 0;                ///< RunOptions::team_size (0: the kernel's choice)
  bool team_level = true;           ///< one wave per team (else one per thread, see below)
  std::uint32_t forced_league = 0;  ///< RunOptions::league_size (0: as many as useful)
  std::uint32_t worker_count = 0;   ///< LaunchConfig::worker_count (0: no ceiling)
  std::uint64_t useful_waves = 1;   ///< waves the league can run at once
  /// Each thread runs a wave of its own: the team is sized for the widest
  /// group (lane_team_size) and holds team_size waves.
  bool wave_per_thread = false;
};

/// The league of a persistent launch (see the header comment).
template <class ExecSpace, class Kernel>
TeamShape co_resident_league(const ExecSpace& space, const Kernel& kernel,
                             const DeviceLimits& limits, const LeagueRequest& request) {
  const int requested_team_size = request.team_size;
  const bool team_level = request.team_level;
  const std::uint32_t forced_league = request.forced_league;
  const std::uint32_t worker_count = request.worker_count;
  const std::uint64_t useful_waves = request.useful_waves;
  const bool wave_per_thread = request.wave_per_thread;
  TeamShape shape;
  shape.team_size = resolve_team_size(space, kernel, requested_team_size, team_level);
  if (wave_per_thread && requested_team_size == 0 && !is_host_backend_v<ExecSpace>)
    shape.team_size = clamped_team_size(
        space, kernel, lane_team_size(useful_waves, limits.multiprocessor_count));
  // A team holds one wave, or one per thread where each thread runs its own.
  const std::uint64_t per_team = wave_per_thread ? std::uint64_t(shape.team_size) : 1;
  const std::uint64_t useful_teams = (useful_waves + per_team - 1) / per_team;
  shape.resident = resident_teams(space, kernel, shape.team_size, limits);
  if (forced_league != 0) {
    if (forced_league > shape.resident)
      throw PlanError::not_co_resident(forced_league, static_cast<std::uint64_t>(shape.team_size),
                                       shape.resident, ExecSpace::name());
    shape.league = forced_league;
    return shape;
  }
  std::uint64_t league = shape.resident;
  if (worker_count != 0 && worker_count < league) league = worker_count;
  if (useful_teams < league) league = useful_teams;
  shape.league = static_cast<std::uint32_t>(league < 1 ? 1 : league);
  return shape;
}

}  // namespace strata::execute::detail
