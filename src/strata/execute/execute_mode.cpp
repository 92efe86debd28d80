#include <strata/execute/execute_mode.hpp>

#include <strata/core/error.hpp>

namespace strata {

const char* execute_mode_name(ExecuteMode mode) noexcept {
  switch (mode) {
    case ExecuteMode::Automatic: return "auto";
    case ExecuteMode::Layered: return "layered";
    case ExecuteMode::Persistent: return "persistent";
    case ExecuteMode::Dataflow: return "dataflow";
  }
  return "unknown";
}

ExecuteMode parse_execute_mode(const std::string& name) {
  for (ExecuteMode m : {ExecuteMode::Automatic, ExecuteMode::Layered, ExecuteMode::Persistent,
                        ExecuteMode::Dataflow})
    if (name == execute_mode_name(m)) return m;
  throw PlanError::invalid_argument("unknown execute mode '" + name + "'",
                                    "use auto, layered, persistent or dataflow");
}

}  // namespace strata
