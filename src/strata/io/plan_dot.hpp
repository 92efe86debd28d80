#pragma once
// A BarrierPlan as a Graphviz picture (`strata plan --output dot`, then
// `dot -Tsvg`): one node per wave, one edge per dependency, and the waves of
// each group on one rank (a `rank=same` subgraph led by a "group g" label),
// groups top to bottom in layer order, alternately shaded.
//
// For small graphs only. dot lays out one node per wave plus one virtual
// node for every group an edge passes through without stopping (an edge
// from group 2 to group 7 adds 4), then minimises crossings between
// adjacent ranks: its time grows faster than linearly with these *layout
// nodes*, and a picture of thousands of waves is no longer readable anyway.
// Graphviz's `dot` takes seconds for a few thousand layout nodes and
// minutes beyond ten thousand (docs/visualising_plans.md has the command).
// DotLimits: at most 2000 waves (readability), 20000 dependencies, and
// 6000 layout nodes (seconds of dot at worst); beyond them the writer
// throws InvalidArgument before it writes anything.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include <strata/core/error.hpp>
#include <strata/io/plan_writer.hpp>

namespace strata::io {

struct DotLimits {
  std::uint64_t max_waves = 2000;
  std::uint64_t max_dependencies = 20000;
  std::uint64_t max_layout_nodes = 6000;  ///< waves + groups skipped by every edge
};

/// Throws InvalidArgument when a graph of this shape is beyond `limits`.
inline void check_dot_limits(std::uint64_t waves, std::uint64_t dependencies,
                             const DotLimits& limits = {}) {
  if (waves > limits.max_waves || dependencies > limits.max_dependencies)
    throw PlanError::invalid_argument(
        "a dot picture is for small graphs: this one has " + std::to_string(waves) +
            " waves and " + std::to_string(dependencies) + " dependencies, the limit is " +
            std::to_string(limits.max_waves) + " waves and " +
            std::to_string(limits.max_dependencies) + " dependencies",
        "write the plan as JSON or text (write_plan), or draw a part of the graph");
}

/// `dependencies[0..count)`: records with `.before` and `.after` (any
/// WaveDependency), host-accessible; the plan's graph.
template <class Plan, class Dependency>
void write_plan_dot(std::ostream& out, const Plan& plan, const Dependency* dependencies,
                    std::size_t count, const DotLimits& limits = {}) {
  check_dot_limits(plan.wave_count(), count, limits);
  const auto host = detail::plan_on_host(plan);
  std::uint64_t layout_nodes = host.wave_count();
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t from = host.level(dependencies[k].before);
    const std::uint64_t to = host.level(dependencies[k].after);
    layout_nodes += to > from + 1 ? to - from - 1 : 0;
  }
  if (layout_nodes > limits.max_layout_nodes)
    throw PlanError::invalid_argument(
        "a dot picture is for small graphs: this one needs " + std::to_string(layout_nodes) +
            " layout nodes (its " + std::to_string(host.wave_count()) +
            " waves plus one for every group an edge skips), the limit is " +
            std::to_string(limits.max_layout_nodes),
        "write the plan as JSON or text (write_plan), or draw a part of the graph");
  detail::BufferedWriter w(out);
  w.put("strict digraph strata_plan {\n  // ");
  w.number(host.wave_count());
  w.put(" waves, ");
  w.number(host.group_count());
  w.put(" groups, ");
  w.number(host.global_barriers());
  w.put(" barriers\n");
  w.put("  graph [rankdir=TB, ranksep=0.35, nodesep=0.15];\n");
  w.put("  node [shape=circle, style=filled, fontsize=9, margin=0.02];\n");
  w.put("  edge [arrowsize=0.4, color=\"#00000060\"];\n");
  for (std::size_t g = 0; g < host.group_count(); ++g) {
    w.put("  { rank=same; g");
    w.number(g);
    w.put(" [shape=plaintext, style=\"\", label=\"group ");
    w.number(g);
    w.put("\"];");
    const char* fill = g % 2 == 0 ? " [fillcolor=\"#cfe0f3\"];" : " [fillcolor=\"#f6dcc0\"];";
    for (std::size_t i = host.group_offsets(g); i < host.group_offsets(g + 1); ++i) {
      w.put(' ');
      w.number(host.waves(i));
      w.put(fill);
    }
    w.put(" }\n");
  }
  if (host.group_count() > 1) {
    w.put("  ");
    for (std::size_t g = 0; g < host.group_count(); ++g) {
      if (g != 0) w.put(" -> ");
      w.put('g');
      w.number(g);
    }
    w.put(" [style=invis];\n");
  }
  for (std::size_t k = 0; k < count; ++k) {
    w.put("  ");
    w.number(dependencies[k].before);
    w.put(" -> ");
    w.number(dependencies[k].after);
    w.put(";\n");
  }
  w.put("}\n");
  w.finish();
}

}  // namespace strata::io
