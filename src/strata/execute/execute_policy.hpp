#pragma once
// ExecutePolicy: the executor's rules E1-E4, which pick the mode an
// Executor runs in when asked for ExecuteMode::Automatic, from the plan's
// shape and the device.
#include <cstdint>
#include <string>

#include <strata/execute/execute_mode.hpp>

namespace strata {

/// What the executor's automatic mode asks: the plan's shape and the device.
struct ExecutionShape {
  std::uint64_t waves = 0;
  std::uint64_t groups = 0;
  std::uint32_t device_concurrency = 0;  ///< hardware threads (1: Kokkos::Serial)
  std::uint32_t resident_teams = 1;      ///< the persistent modes' co-resident league
  bool host_backend = true;              ///< kernel launches are host calls, no device queue
  std::uint64_t widest_group = 0;        ///< waves in the plan's widest group (0: not given)
  /// Waves the persistent mode's league runs at once (its teams, or its
  /// threads for thread-level waves): a group no wider runs in one pass.
  std::uint64_t persistent_waves_at_once = 0;
};

struct ExecutionRecommendation {
  /// Layered, Persistent or Dataflow (never Automatic).
  ExecuteMode mode = ExecuteMode::Layered;
  std::string reason;  ///< one line: which rule decided, with its figures
};

class ExecutePolicy {
 public:
  static ExecutePolicy standard();

  /// The executor's automatic mode. Rules, in order:
  ///  E1. at most one group: layered (one launch, nothing to synchronise);
  ///  E2. one hardware thread: persistent (a barrier of one team is free and
  ///      the group cursor is the cheapest queue);
  ///  E3. mean group width below `dataflow_width_per_team` waves per
  ///      resident team: dataflow (a barrier per group would idle teams; a
  ///      wave starts as soon as its predecessors finish);
  ///  E4. on a device, persistent when the widest group runs in one pass of
  ///      the persistent league (`persistent_waves_at_once`): a device-wide
  ///      barrier per group then costs less than a queued launch; otherwise
  ///      layered (a queued launch spreads a wider group over the whole
  ///      device; on a host a launch per group is a function call, cheaper
  ///      than teams spinning at a barrier). Figures: docs/execute.md.
  ExecutionRecommendation recommend(const ExecutionShape& shape) const;

  std::uint32_t dataflow_width_per_team = 0;  ///< rule E3
};

}  // namespace strata
