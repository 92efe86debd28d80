#pragma once
// RunOptions: the per-call choices of Executor::run (the LaunchConfig given to
// the Executor holds the dispatch-wide ones: worker_count, max_wall_time).
#include <chrono>
#include <cstdint>
#include <string>

#include <strata/execute/execute_mode.hpp>

namespace strata {

struct RunOptions {
  ExecuteMode mode = ExecuteMode::Automatic;
  std::string label = "strata::execute";  ///< prefix of the kernels' labels
  /// A wave may yield or requeue this many times (over all runs since the
  /// last reset); one more is the typed error RequeueLimit naming it.
  std::uint32_t max_requeues_per_wave = 64;
  int team_size = 0;  ///< threads per team; 0: chosen per backend (see residency.hpp)
  /// Teams of the persistent and dataflow launch. 0: min(LaunchConfig::
  /// worker_count, the co-resident bound, the waves). A forced value above
  /// the co-resident bound is the typed error NotCoResident (never a hang).
  std::uint32_t league_size = 0;
  /// The persistent kernel's teams wait this long (device clock) for the
  /// whole league to start; past it no team runs a wave and run() throws
  /// NotCoResident (core/league_rendezvous.hpp). Must be positive.
  std::chrono::nanoseconds residency_timeout = std::chrono::seconds(5);
};

}  // namespace strata
