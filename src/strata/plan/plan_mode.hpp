#pragma once
// The planner's user-facing knobs (PlanOptions::mode, ::chains). The
// planner's policy (PlanPolicy::choose_step, plan/policy/) turns them into
// steps. Names and values are those of strata::PlanMode since 0.1.
namespace strata {

/// How the planner walks the layers. Every mode gives the identical plan.
enum class PlanMode {
  Automatic,  ///< ask PlanPolicy::standard() before every step (default)
  Sparse,     ///< top-down Kahn over a scan-compacted frontier, one phase pair per layer
  Dense,      ///< bottom-up over all unscheduled waves with a reverse CSR
  Hybrid,     ///< per layer: bottom-up while the frontier is dense, top-down otherwise
  Fused,      ///< all layers in one persistent launch with a device-side ready queue
  Persistent, ///< top-down layers in one launch of a co-resident league, a device-wide barrier between layers
};

/// Whether the planner first contracts chains (plan/detail/chain_contraction.hpp):
/// runs of waves each waiting on exactly one predecessor that nothing else waits on.
enum class ChainContraction {
  Automatic,  ///< in Automatic and Fused mode on device backends, when most waves are chained
  Never,
  Always,     ///< whenever the graph has a chain (any mode: the walk is then fused)
};

}  // namespace strata
