#include <strata/plan/plan_options.hpp>

#include <strata/core/error.hpp>

namespace strata {

const char* plan_mode_name(PlanMode mode) noexcept {
  switch (mode) {
    case PlanMode::Automatic: return "auto";
    case PlanMode::Sparse: return "sparse";
    case PlanMode::Dense: return "dense";
    case PlanMode::Hybrid: return "hybrid";
    case PlanMode::Fused: return "fused";
    case PlanMode::Persistent: return "persistent";
  }
  return "unknown";
}

PlanMode parse_plan_mode(const std::string& name) {
  for (PlanMode m : {PlanMode::Automatic, PlanMode::Sparse, PlanMode::Dense, PlanMode::Hybrid,
                     PlanMode::Fused, PlanMode::Persistent})
    if (name == plan_mode_name(m)) return m;
  throw PlanError::invalid_argument("unknown planner mode '" + name + "'",
                                    "use one of auto, sparse, dense, hybrid, fused, persistent");
}

}  // namespace strata
