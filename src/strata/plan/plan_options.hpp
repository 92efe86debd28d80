#pragma once
namespace strata {

/// How the planner walks the layers. Every mode gives the identical plan.
enum class PlanMode {
  Automatic,  ///< let the planner choose (today: Sparse)
  Sparse,     ///< top-down Kahn over a scan-compacted frontier, one phase pair per layer
};

struct PlanOptions {
  PlanMode mode = PlanMode::Automatic;
};

}  // namespace strata
