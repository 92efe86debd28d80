#pragma once
// RunReport: what one Executor::run call did.
#include <cstdint>
#include <string>

#include <strata/execute/execute_mode.hpp>

namespace strata {

struct RunReport {
  ExecuteMode mode = ExecuteMode::Layered;  ///< the mode used (never Automatic)
  std::string reason;            ///< why: the policy's reason in Automatic
  std::uint64_t waves_run = 0;   ///< waves completed in this call
  std::uint64_t waves_total = 0; ///< waves completed over all calls since the last reset
  /// Groups finished in this call: groups whose waves, and every earlier
  /// group's, are all complete now but were not when the call began.
  std::uint64_t layers = 0;
  std::uint64_t requeues = 0;    ///< Yielded + Requeued re-executions in this call
  std::uint32_t league_size = 0; ///< teams of the launch (the widest group launch in layered)
  int team_size = 0;             ///< threads per team
  double elapsed_seconds = 0;    ///< host wall time of the call
  bool drained = false;          ///< stopped at max_wall_time with waves left: run() resumes
  bool complete = false;         ///< every wave completed
};

}  // namespace strata
