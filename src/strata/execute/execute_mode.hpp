#pragma once
// ExecuteMode: how an Executor runs the waves of a plan (strata/execute/).
//
//   layered     one team launch per group, queued on the execution space
//               instance with no host fence between groups
//   persistent  one launch of a co-resident league; teams take the waves of
//               the current group from an atomic cursor; a device-wide
//               barrier between groups
//   dataflow    one launch, no barriers: per-wave remaining-predecessor
//               counters and a device ready queue
//   automatic   LaunchPolicy::standard() chooses from the plan's shape and
//               the device (LaunchPolicy::recommend_execution)
#include <string>

#include <strata/launch/launch_policy.hpp>

namespace strata {

enum class ExecuteMode { Automatic, Layered, Persistent, Dataflow };

/// "auto", "layered", "persistent", "dataflow".
const char* execute_mode_name(ExecuteMode mode) noexcept;

/// The inverse of execute_mode_name; InvalidArgument for any other name.
ExecuteMode parse_execute_mode(const std::string& name);

/// The mode that runs a strategy of the launch policy.
ExecuteMode execute_mode_of(launch::ExecutionStrategy strategy) noexcept;

}  // namespace strata
