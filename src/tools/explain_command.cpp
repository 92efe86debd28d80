// strata explain FILE|-|--demo [--output text|json] [--triangle lower|upper]:
// the launch policy's recommendation for a graph (mode, sizes, reason), the
// device limits it used, what the planner did, and the plan's layer-width
// profile (waves per group: min, median, max and a histogram).
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/device_limits.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/plan/layer_widths.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/policy/layer_request.hpp>
#include <strata/plan/policy/plan_policy.hpp>

#include "commands.hpp"
#include "graph_input.hpp"
#include "memory_budget.hpp"

namespace strata::tools {

namespace {

/// A JSON string literal (quotes, backslashes and control bytes escaped).
std::string json_string(const std::string& text) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

/// The histogram as text: one line per power-of-two width bucket, a bar of
/// up to 40 '#' scaled to the fullest bucket (at least one '#' for a
/// non-empty bucket), then the group count.
void write_histogram(std::ostream& out, const LayerWidthProfile& p) {
  std::uint64_t fullest = 0;
  std::vector<std::string> ranges;
  std::size_t widest = 0;
  for (const auto& b : p.histogram) {
    fullest = b.groups > fullest ? b.groups : fullest;
    ranges.push_back(b.min_width == b.max_width
                         ? std::to_string(b.min_width)
                         : std::to_string(b.min_width) + "-" + std::to_string(b.max_width));
    widest = ranges.back().size() > widest ? ranges.back().size() : widest;
  }
  for (std::size_t i = 0; i < p.histogram.size(); ++i) {
    const auto& b = p.histogram[i];
    const std::uint64_t bar = fullest == 0 ? 0 : (b.groups * 40 + fullest - 1) / fullest;
    out << "  width " << std::string(widest - ranges[i].size(), ' ') << ranges[i] << " | "
        << std::string(bar, '#') << std::string(40 - bar, ' ') << " " << b.groups
        << (b.groups == 1 ? " group\n" : " groups\n");
  }
}

}  // namespace

int explain_command(const std::vector<std::string>& args) {
  bool json = false;
  const GraphSource source =
      parse_graph_arguments(args, "explain", [&](const std::string& s, auto& value) {
        if (s != "--output") return false;
        const std::string& v = value("--output");
        if (v != "text" && v != "json")
          throw UsageError{"--output must be 'text' or 'json' for 'explain', not '" + v + "'"};
        json = v == "json";
        return true;
      });
  const LoadedGraph graph = load_graph(source);
  const io::EdgeList& list = graph.list;
  // Explain plans with 64-bit ids from the reader's list: checked as
  // `strata plan` checks it, before anything is allocated.
  check_plan_memory<std::uint64_t>(list.wave_count, list.dependencies.size(), graph.budget.bytes);
  using Space = Kokkos::DefaultExecutionSpace;
  Space space;
  // Plan first (64-bit ids keep any input exact); the statistics say what ran.
  PlanStatistics stats;
  PlanOptions options;
  options.statistics = &stats;
  const auto plan = plan_barriers(space, list.wave_count, list.dependencies.data(),
                                  list.dependencies.size(), options);
  const auto limits = DeviceLimits::query(space);
  // The question the planner asked before its first step (plan/policy/layer_request.hpp).
  const auto request = layer_request(limits, list.wave_count, list.dependencies.size(),
                                             stats.sources, 0, 0, 0);
  auto policy = PlanPolicy::standard();
  policy.ordinal_bytes = policy.offset_bytes = sizeof(std::uint64_t);  // explain plans 64-bit
  const auto rec = policy.recommend(request);
  const LayerWidthProfile widths = layer_width_profile(plan);
  // A Matrix Market file: also the triangular solve's schedule and its rule.
  const bool matrix_file = source.file.size() > 4 &&
                           source.file.compare(source.file.size() - 4, 4, ".mtx") == 0;
  const std::string solve_report =
      matrix_file ? solve_schedule_report(source.file, source.triangle == io::Triangle::Upper,
                                          graph.budget)
                  : std::string();

  // The whole report is composed first and written at once: an error (out of
  // memory) while composing writes nothing.
  std::ostringstream report;
  if (json) {
    report << "{\"graph\":{\"waves\":" << list.wave_count
           << ",\"dependencies\":" << list.dependencies.size()
           << ",\"sources\":" << stats.sources << "},\"device\":{\"backend\":"
           << json_string(limits.backend) << ",\"concurrency\":" << limits.concurrency
           << ",\"max_team_size\":" << limits.max_team_size
           << ",\"max_league_size\":" << limits.max_league_size
           << ",\"max_invocations_per_team\":" << limits.max_invocations_per_team
           << ",\"multiprocessors\":" << limits.multiprocessor_count
           << "},\"recommendation\":{\"mode\":" << json_string(layer_recommendation_name(rec))
           << ",\"league\":" << rec.league_size << ",\"team\":" << rec.team_size
           << ",\"frontier_capacity\":" << rec.frontier_capacity
           << ",\"needed_bytes\":" << rec.needed_bytes << ",\"reason\":" << json_string(rec.reason)
           << "},\"planned\":{\"groups\":" << plan.group_count()
           << ",\"global_barriers\":" << plan.global_barriers()
           << ",\"sparse_layers\":" << stats.sparse_layers
           << ",\"paced_batches\":" << stats.paced_batches
           << ",\"dense_layers\":" << stats.dense_layers
           << ",\"one_thread_steps\":" << stats.one_thread_steps
           << ",\"fused\":" << (stats.fused ? "true" : "false")
           << ",\"fused_from_layer\":" << stats.fused_from_layer
           << ",\"fused_workers\":" << stats.fused_workers
           << ",\"persistent\":" << (stats.persistent ? "true" : "false")
           << ",\"persistent_from_layer\":" << stats.persistent_from_layer
           << ",\"persistent_teams\":" << stats.persistent_teams
           << ",\"chained_waves\":" << stats.chained_waves
           << ",\"contraction\":"
           << json_string(stats.chained_waves != 0 ? stats.first_decision : "")
           << ",\"dense_budget_spent_at_layer\":" << stats.dense_budget_spent_at_layer
           << "},\"layer_widths\":{\"groups\":" << widths.groups << ",\"min\":" << widths.min
           << ",\"median\":" << widths.median << ",\"max\":" << widths.max
           << ",\"histogram\":[";
    for (std::size_t b = 0; b < widths.histogram.size(); ++b)
      report << (b == 0 ? "" : ",") << "{\"min_width\":" << widths.histogram[b].min_width
             << ",\"max_width\":" << widths.histogram[b].max_width
             << ",\"groups\":" << widths.histogram[b].groups << "}";
    report << "]}";
    if (matrix_file) report << ",\"solve\":" << json_string(solve_report);
    report << "}\n";
    std::cout << report.str() << std::flush;
    return exit_ok;
  }
  report << "graph: " << list.wave_count << " waves, " << list.dependencies.size()
         << " dependencies, " << stats.sources << " sources\n"
         << "device: " << limits.backend << " concurrency " << limits.concurrency
         << " max_team_size " << limits.max_team_size << " max_league_size "
         << limits.max_league_size << " max_invocations_per_team "
         << limits.max_invocations_per_team << " multiprocessors "
         << limits.multiprocessor_count << "\n"
         << "recommendation: mode " << layer_recommendation_name(rec) << " league "
         << rec.league_size << " team " << rec.team_size << " frontier_capacity "
         << rec.frontier_capacity << " needed_bytes " << rec.needed_bytes << "\n"
         << "reason: " << rec.reason << "\n"
         << "planned: " << plan.group_count() << " groups, " << plan.global_barriers()
         << " barriers; " << stats.sparse_layers << " sparse layers ("
         << stats.paced_batches << " device-paced batches), " << stats.dense_layers
         << " dense layers, " << stats.one_thread_steps << " layers on one thread, "
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
  report << "layer widths: min " << widths.min << " median " << widths.median << " max "
         << widths.max << " waves per group over " << widths.groups << " groups\n";
  write_histogram(report, widths);
  report << solve_report;
  std::cout << report.str() << std::flush;
  return exit_ok;
}

}  // namespace strata::tools
