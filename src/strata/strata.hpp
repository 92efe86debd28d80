#pragma once
// Umbrella header: everything a simulation code needs to plan barriers.
#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/execute/executor.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/counting_sort_by_level.hpp>
#include <strata/plan/layer_widths.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/plan_in_edges.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/plan/reference_kahn.hpp>
#include <strata/runtime/initialize.hpp>
#include <strata/version.hpp>
#ifdef STRATA_ENABLE_MPI  // distributed planning (built with MPI)
#include <strata/distributed/gather_plan.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/distributed/read_edge_list_distributed.hpp>
#endif
