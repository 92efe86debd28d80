// strata explain FILE|--demo: the launch policy's recommendation for a graph
// (mode, sizes, reason), the device limits it used, and what the planner did.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/io/edge_list.hpp>
#include <strata/launch/device_limits.hpp>
#include <strata/launch/launch_policy.hpp>
#include <strata/launch/layer_request.hpp>
#include <strata/plan/plan_barriers.hpp>

#include "commands.hpp"
#include "graph_input.hpp"
#include "memory_budget.hpp"

namespace strata::tools {

int explain_command(const std::vector<std::string>& args) {
  if (args.size() != 1 || (!args[0].empty() && args[0][0] == '-' && args[0] != "--demo"))
    throw UsageError{"'explain' takes one FILE (or --demo)"};
  io::EdgeList list;
  if (args[0] == "--demo") {
    list = demo_graph();  // the graph `strata plan --demo` plans
  } else {
    list = io::read_edge_list(args[0], physical_memory_bytes());
  }
  using Space = Kokkos::DefaultExecutionSpace;
  Space space;
  // Plan first (64-bit ids keep any input exact); the statistics say what ran.
  PlanStatistics stats;
  PlanOptions options;
  options.statistics = &stats;
  const auto plan = plan_barriers(space, list.wave_count, list.dependencies.data(),
                                  list.dependencies.size(), options);
  const auto limits = launch::DeviceLimits::query(space);
  // The question the planner asked before its first step (launch/layer_request.hpp).
  const auto request = launch::layer_request(limits, list.wave_count, list.dependencies.size(),
                                             stats.sources, 0, 0, 0);
  auto policy = launch::LaunchPolicy::standard();
  policy.ordinal_bytes = policy.offset_bytes = sizeof(std::uint64_t);  // explain plans 64-bit
  const auto rec = policy.recommend(request);

  // The whole report is composed first and written at once: an error (out of
  // memory) while composing writes nothing.
  std::ostringstream report;
  report << "graph: " << list.wave_count << " waves, " << list.dependencies.size()
         << " dependencies, " << stats.sources << " sources\n"
         << "device: " << limits.backend << " concurrency " << limits.concurrency
         << " max_team_size " << limits.max_team_size << " max_league_size "
         << limits.max_league_size << " max_invocations_per_team "
         << limits.max_invocations_per_team << " multiprocessors "
         << limits.multiprocessor_count << "\n"
         << "recommendation: mode " << launch::launch_mode_name(rec.mode) << " league "
         << rec.league_size << " team " << rec.team_size << " frontier_capacity "
         << rec.frontier_capacity << " needed_bytes " << rec.needed_bytes << "\n"
         << "reason: " << rec.reason << "\n"
         << "planned: " << plan.group_count() << " groups, " << plan.global_barriers()
         << " barriers; " << stats.sparse_layers << " sparse layers ("
         << stats.paced_batches << " device-paced batches), " << stats.dense_layers
         << " dense layers, "
         << (stats.fused ? "fused from layer " + std::to_string(stats.fused_from_layer) +
                               " with " + std::to_string(stats.fused_workers) + " workers"
                         : std::string("no fused tail"))
         << "; " << stats.chained_waves << " chained waves contracted\n";
  if (stats.chained_waves != 0) report << "contraction: " << stats.first_decision << "\n";
  if (stats.persistent)
    report << "persistent: layers from " << stats.persistent_from_layer << " in one launch of "
           << stats.persistent_teams << " co-resident teams\n";
  if (stats.dense_budget_spent_at_layer != 0)
    report << "bottom-up bound: from layer " << stats.dense_budget_spent_at_layer
           << " top-down (bottom-up steps had scanned " << policy.dense_scan_budget
           << "x the graph)\n";
  std::cout << report.str() << std::flush;
  return exit_ok;
}

}  // namespace strata::tools
