#pragma once
// Default sizes of a persistent dispatch: LaunchConfig's defaults
// (execute/) and the team ceiling of the planner's per-layer question
// (plan/policy/layer_request.hpp).
#include <cstdint>

namespace strata {

/// Default sizes of a persistent dispatch.
class SizingPolicy {
 public:
  static constexpr SizingPolicy standard() { return SizingPolicy(); }
  /// Persistent worker teams when the caller does not say: 264 = two
  /// resident teams per multiprocessor of a 132-multiprocessor GPU, also
  /// ample for any host (a team per core). The policy still caps it by the device's limits.
  constexpr std::uint32_t default_worker_count() const { return 264; }
  /// Default wall-clock budget of one persistent dispatch, in seconds.
  constexpr std::uint32_t default_max_wall_seconds() const { return 60; }
};

}  // namespace strata
