#pragma once
// Dispatch geometry: how many teams a direct dispatch of `queue_len` work
// slots launches. Never more teams than the caller's worker ceiling, never
// more than needed to give every slot a thread, and at least one.
#include <array>
#include <cstdint>

namespace strata {

inline std::array<std::uint32_t, 3> dispatch_grid_for(std::uint32_t worker_count,
                                                      std::uint32_t queue_len,
                                                      std::uint32_t max_team_size) {
  const std::uint64_t team = max_team_size == 0 ? 1 : max_team_size;
  const std::uint64_t needed = (std::uint64_t(queue_len) + team - 1) / team;
  std::uint64_t teams = needed < worker_count ? needed : worker_count;
  if (teams == 0) teams = 1;
  return {static_cast<std::uint32_t>(teams), 1u, 1u};
}

}  // namespace strata
