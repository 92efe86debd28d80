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
//   automatic   ExecutePolicy::standard() chooses from the plan's shape and
//               the device (rules E1-E4, execute/execute_policy.hpp)
#include <string>

namespace strata {

enum class ExecuteMode { Automatic, Layered, Persistent, Dataflow };

/// "auto", "layered", "persistent", "dataflow".
const char* execute_mode_name(ExecuteMode mode) noexcept;

/// The inverse of execute_mode_name; InvalidArgument for any other name.
ExecuteMode parse_execute_mode(const std::string& name);

}  // namespace strata
