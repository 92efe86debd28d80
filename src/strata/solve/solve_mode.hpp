#pragma once
// SolveMode: how TriangularSolve::solve runs the levels of its plan.
//
//   layered    the levels one after another, each level's rows (contiguous
//              in the handle's level order) in parallel: on a device a
//              launch per level (the launch is the barrier), on a host one
//              launch whose workers hand each level over by done counters
//   dataflow   one launch for all levels, no barriers: rows are taken in
//              level order by ticket and a row waits (bounded spin) for the
//              ready flags of the rows it reads — the "sync-free" solve
//   automatic  the solve policy (policy.hpp) splits the levels into
//              stretches and picks one of the two for each
#include <string>

#include <strata/core/error.hpp>

namespace strata::solve {

enum class SolveMode { Automatic, Layered, Dataflow };

inline const char* solve_mode_name(SolveMode mode) noexcept {
  switch (mode) {
    case SolveMode::Layered: return "layered";
    case SolveMode::Dataflow: return "dataflow";
    default: return "auto";
  }
}

/// The inverse of solve_mode_name; InvalidArgument for any other name.
inline SolveMode parse_solve_mode(const std::string& name) {
  if (name == "auto") return SolveMode::Automatic;
  if (name == "layered") return SolveMode::Layered;
  if (name == "dataflow") return SolveMode::Dataflow;
  throw PlanError::invalid_argument("unknown solve mode '" + name + "'",
                                    "give one of auto, layered, dataflow");
}

}  // namespace strata::solve
