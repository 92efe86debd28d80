#include <strata/execute/execute_policy.hpp>

#include <string>

namespace strata {

ExecutePolicy ExecutePolicy::standard() {
  ExecutePolicy p;
  // Groups narrower than two waves per resident team leave teams idle at
  // every barrier (a first value, to be tuned from perf_test).
  p.dataflow_width_per_team = 2;
  return p;
}

ExecutionRecommendation ExecutePolicy::recommend(const ExecutionShape& s) const {
  ExecutionRecommendation rec;
  if (s.groups <= 1) {
    rec.mode = ExecuteMode::Layered;
    rec.reason = std::to_string(s.groups) + " group" + (s.groups == 1 ? "" : "s") +
                 ": one launch, nothing to synchronise";
    return rec;
  }
  if (s.device_concurrency == 1) {
    rec.mode = ExecuteMode::Persistent;
    rec.reason = "one hardware thread: a barrier of one team is free and the group cursor is "
                 "the cheapest queue (" + std::to_string(s.groups) + " groups)";
    return rec;
  }
  const std::uint64_t teams = s.resident_teams == 0 ? 1 : s.resident_teams;
  const std::uint64_t mean_width = s.waves / s.groups;
  const std::uint64_t wide = teams * dataflow_width_per_team;
  const std::string shape = "mean group width " + std::to_string(mean_width) + " (" +
                            std::to_string(s.waves) + " waves in " + std::to_string(s.groups) +
                            " groups)";
  if (mean_width < wide) {
    rec.mode = ExecuteMode::Dataflow;
    rec.reason = shape + " < " + std::to_string(wide) + " (" +
                 std::to_string(dataflow_width_per_team) + " per resident team of " +
                 std::to_string(teams) + "): barriers would idle teams; each wave starts when "
                 "its predecessors finish";
    return rec;
  }
  // E4. Measured on a GPU (docs/execute.md): where every group runs in one
  // pass of the co-resident league (sweep3d, layered grids), the persistent
  // kernel's barrier per group costs less than a launch per group queued on
  // the instance. Where the widest group needs several passes (the rows of
  // an ILU factor's widest level), the queued launches, which spread a group
  // over the whole device, win. Host backends: a launch per group is a
  // function call, cheaper than spinning at a barrier.
  // (widest_group 0: not given, so no pass is known to suffice)
  const bool one_pass = s.widest_group != 0 && s.widest_group <= s.persistent_waves_at_once;
  if (!s.host_backend && one_pass) {
    rec.mode = ExecuteMode::Persistent;
    rec.reason = shape + " fills " + std::to_string(teams) + " resident teams and the widest "
                 "group (" + std::to_string(s.widest_group) + " waves) runs in one pass of the "
                 "persistent league (" + std::to_string(s.persistent_waves_at_once) +
                 " at once): a device-wide barrier per group costs less than a queued launch";
    return rec;
  }
  rec.mode = ExecuteMode::Layered;
  rec.reason = shape + " fills " + std::to_string(teams) + " resident teams: " +
               (s.host_backend ? "on a host backend a launch per group is a function call, "
                                 "cheaper than spinning at a device-wide barrier"
                               : "the widest group (" + std::to_string(s.widest_group) +
                                     " waves) needs more than one pass of the persistent "
                                     "league (" + std::to_string(s.persistent_waves_at_once) +
                                     " at once): a launch per group spreads it over the whole "
                                     "device");
  return rec;
}

}  // namespace strata
