#pragma once
// Layered mode: one team launch per group, all queued on the execution space
// instance with no host fence between them (the instance orders them, and a
// kernel boundary makes a group's writes visible to the next group). Team r
// runs waves r, r + league, ... of its group (thread-level waves: one per
// thread of the league); a yielded or requeued wave executes again on its
// team or thread (run_in_place, run_lane). Once the run stops (drain or
// error) every later kernel returns at its first check, so no wave of a
// later group starts after a fault.
//
// The host needs each group's size to size its launch: Executor copies
// plan.group_offsets to the host once, at construction.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/device_limits.hpp>
#include <strata/execute/detail/executor_state.hpp>
#include <strata/execute/detail/residency.hpp>
#include <strata/execute/detail/run_in_place.hpp>
#include <strata/execute/detail/wave_invoke.hpp>

namespace strata::execute::detail {

template <class ExecSpace, class Ordinal, class Functor>
struct LayeredKernel {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  WaveState<ExecSpace, Ordinal> s;
  Kokkos::View<Ordinal*, typename ExecSpace::memory_space> waves;
  Functor f;
  std::uint64_t begin = 0, width = 0;
  bool resumed = true;  ///< an earlier run may have completed waves: their state is read first

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    run(team, std::integral_constant<bool, is_team_wave_functor<Functor, member_type,
                                                                Ordinal>::value>());
  }

  /// Team-level waves: team r runs waves r, r + league, ...
  KOKKOS_INLINE_FUNCTION void run(const member_type& team, std::true_type) const {
    const std::uint64_t stride = static_cast<std::uint64_t>(team.league_size());
    for (std::uint64_t i = static_cast<std::uint64_t>(team.league_rank()); i < width;
         i += stride) {
      const Ordinal w = waves(begin + i);
      const int code = try_start(s, team, w);
      if (code == start_stop) return;
      if (code == start_skip) continue;
      run_in_place(s, f, team, w);
    }
  }

  /// Thread-level waves: one per thread of the league; before each round the
  /// team's leader decides for its threads (WaveState::team_start).
  KOKKOS_INLINE_FUNCTION void run(const member_type& team, std::false_type) const {
    const std::uint64_t lanes = static_cast<std::uint64_t>(team.team_size());
    const std::uint64_t stride = static_cast<std::uint64_t>(team.league_size()) * lanes;
    for (std::uint64_t base = static_cast<std::uint64_t>(team.league_rank()) * lanes;
         base < width; base += stride) {
      const int start = s.team_start(team);
      if (start == lanes_stop) return;
      const std::uint64_t i = base + static_cast<std::uint64_t>(team.team_rank());
      if (i < width) run_lane(s, f, waves(begin + i), resumed, start, team.team_rank() == 0);
    }
  }
};

struct LaunchShape {
  std::uint32_t league = 0;
  int team_size = 0;
};

/// Queues the kernels of groups first_group .. groups - 1 (no fence).
/// Thread-level waves on a device, with no team size requested: each
/// group's launch takes lane_team_size(width) threads per team (a warp for
/// a narrow group, up to 256 for one that fills every multiprocessor), as
/// the persistent mode sizes its teams. Teams of one warp for a wide group
/// would be more blocks than a multiprocessor keeps resident (the first
/// level of an ILU row solve ran in less than half the time in teams of 256
/// as in teams of 32 on a GPU; docs/execute.md).
/// How run_layered launches: from which group, with which team size, and
/// under which label.
struct LayeredLaunch {
  std::uint64_t first_group = 0;  ///< groups before it are complete
  int team_size = 0;              ///< RunOptions::team_size (0: chosen per group)
  bool resumed = true;            ///< an earlier run may have completed waves
  std::string label;              ///< RunOptions::label
};

template <class ExecSpace, class Ordinal, class Functor>
LaunchShape run_layered(const ExecSpace& space, const WaveState<ExecSpace, Ordinal>& s,
                        const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& waves,
                        const std::vector<std::uint64_t>& host_offsets, const Functor& f,
                        const DeviceLimits& limits, const LayeredLaunch& launch) {
  const std::uint64_t first_group = launch.first_group;
  const int requested_team_size = launch.team_size;
  const bool resumed = launch.resumed;
  const std::string& label = launch.label;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  constexpr bool team_level = is_team_wave_functor<Functor, member_type, Ordinal>::value;
  LayeredKernel<ExecSpace, Ordinal, Functor> kernel{s, waves, f, 0, 0, resumed};
  const int team_size = resolve_team_size(space, kernel, requested_team_size, team_level);
  const bool sized_per_group =
      !team_level && requested_team_size == 0 && !is_host_backend_v<ExecSpace>;
  const int lane_max = sized_per_group ? clamped_team_size(space, kernel, 256) : 0;
  const std::string name = label + "::layered";
  const std::uint64_t max_league = limits.max_league_size;
  const std::uint64_t cap =
      max_league < std::uint64_t(std::numeric_limits<int>::max()) ? max_league
                                                                  : std::numeric_limits<int>::max();
  const std::uint64_t groups = host_offsets.empty() ? 0 : host_offsets.size() - 1;
  LaunchShape shape;  // the widest group's launch
  std::uint64_t widest = 0;
  for (std::uint64_t g = first_group; g < groups; ++g) {
    kernel.begin = host_offsets[g];
    kernel.width = host_offsets[g + 1] - host_offsets[g];
    if (kernel.width == 0) continue;
    int size = team_size;
    if (sized_per_group) {
      size = lane_team_size(kernel.width, limits.multiprocessor_count);
      if (size > lane_max) size = lane_max;
    }
    // Thread-level waves run one per thread: a team covers `size` of them.
    const std::uint64_t teams =
        team_level ? kernel.width
                   : (kernel.width + std::uint64_t(size) - 1) / std::uint64_t(size);
    const std::uint64_t league = teams < cap ? teams : cap;
    if (kernel.width > widest) {  // the first non-empty group too: widest starts at 0
      widest = kernel.width;
      shape.league = static_cast<std::uint32_t>(league);
      shape.team_size = size;
    }
    Kokkos::parallel_for(name,
                         Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), size),
                         kernel);
  }
  if (shape.team_size == 0) shape.team_size = team_size;
  return shape;
}

}  // namespace strata::execute::detail
