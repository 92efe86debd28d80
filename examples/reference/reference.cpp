// The examples of docs/graph.md, docs/plan.md and docs/execute.md: each
// `// [doc:NAME]` ... `// [/doc:NAME]` region is quoted verbatim by a page
// (scripts/check_docs.py checks that the quotes match), and this program runs
// them all, so every quoted line is compiled and run by ctest.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <Kokkos_Core.hpp>
#include <strata/strata.hpp>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Dep = strata::WaveDependency<std::uint32_t>;

// A diamond 0 -> {1, 2} -> 3 as a device View of dependencies.
Kokkos::View<Dep*, Space::memory_space> diamond() {
  Kokkos::View<Dep*, Space::memory_space> deps(Kokkos::view_alloc(Space(), "diamond"), 4);
  auto host = Kokkos::create_mirror_view(deps);
  host(0) = {0, 1};
  host(1) = {0, 2};
  host(2) = {1, 3};
  host(3) = {2, 3};
  Kokkos::deep_copy(deps, host);
  return deps;
}

int graph_example() {
  const auto deps = diamond();
  // [doc:build_dependency_graph]
  Kokkos::View<const Dep*, Space::memory_space> read_only = deps;
  strata::DependencyGraphStorage<Space, std::uint32_t, std::uint32_t> storage;  // reusable
  auto graph = strata::build_dependency_graph(Space(), 4, read_only, storage);
  // graph.row_map(w)..graph.row_map(w + 1) index the waves that wait for w.
  std::printf("%zu waves, %zu dependencies\n", graph.wave_count(), graph.dependency_count());
  // [/doc:build_dependency_graph]
  return graph.wave_count() == 4 && graph.dependency_count() == 4 ? 0 : 1;
}

int plan_example() {
  const auto deps = diamond();
  // [doc:plan_barriers]
  strata::PlannerScratch<Space> scratch;  // owns every planning buffer; reuse it
  strata::PlanStatistics stats;
  strata::PlanOptions options;
  options.statistics = &stats;
  auto plan = strata::plan_barriers(Space(), 4, deps, scratch, options);
  auto host = plan.host_mirror();  // group_offsets, waves, level on the host
  for (std::size_t g = 0; g < host.group_count(); ++g)
    for (auto k = host.group_offsets(g); k < host.group_offsets(g + 1); ++k)
      std::printf("wave %u in group %zu\n", static_cast<unsigned>(host.waves(k)), g);
  std::printf("%zu global barriers\n", plan.global_barriers());  // 2
  // [/doc:plan_barriers]
  return plan.global_barriers() == 2 ? 0 : 1;
}

int error_example() {
  // [doc:plan_error]
  const std::vector<Dep> deps{{0, 1}, {1, 0}};
  try {
    strata::plan_barriers(Space(), 2, deps.data(), deps.size());
  } catch (const strata::PlanError& e) {
    if (e.kind() == strata::ErrorKind::Cycle)
      std::printf("%llu waves on a cycle\n", static_cast<unsigned long long>(e.unscheduled_waves()));
    std::printf("%s\n", e.what());  // "Cycle: ... Fix: ..."
  }
  // [/doc:plan_error]
  return 0;
}

// [doc:wave_functor]
// A thread-level wave functor: value(w) ends as the length of the longest path
// that ends at w. Every predecessor of w has pushed its value before w starts,
// and w pushes value(w) + 1 to each of its successors.
struct LongestPath {
  Kokkos::View<std::uint32_t*, Space::memory_space> value;
  strata::DependencyGraph<Space, std::uint32_t, std::uint32_t> graph;
  KOKKOS_FUNCTION strata::TaskState operator()(std::uint32_t w) const {
    const std::uint32_t mine = value(w) + 1;  // every predecessor has finished
    for (auto k = graph.row_map(w); k < graph.row_map(w + 1); ++k)
      Kokkos::atomic_fetch_max(&value(graph.entries(k)), mine);
    return strata::TaskState::Completed;
  }
};
// [/doc:wave_functor]

int execute_example() {
  const auto deps = diamond();
  Kokkos::View<const Dep*, Space::memory_space> read_only = deps;
  strata::DependencyGraphStorage<Space, std::uint32_t, std::uint32_t> storage;
  auto graph = strata::build_dependency_graph(Space(), 4, read_only, storage);
  strata::PlannerScratch<Space> scratch;
  // [doc:executor_run]
  auto plan = strata::plan_barriers(Space(), graph, scratch);
  strata::Executor<Space> executor(Space(), plan, graph);
  Kokkos::View<std::uint32_t*, Space::memory_space> value(Kokkos::view_alloc(Space(), "value"), 4);
  strata::RunOptions options;
  options.mode = strata::ExecuteMode::Dataflow;  // or Layered, Persistent, Automatic
  const strata::RunReport report = executor.run(LongestPath{value, graph}, options);
  std::printf("%llu waves run in %s mode, complete: %d\n",
              static_cast<unsigned long long>(report.waves_run),
              strata::execute_mode_name(report.mode), report.complete ? 1 : 0);
  // [/doc:executor_run]
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), value);
  return report.complete && host(3) == 2 ? 0 : 1;  // the longest path 0 -> 1 -> 3 has 2 edges
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  int failures = graph_example() + plan_example() + error_example() + execute_example();
  std::printf(failures == 0 ? "reference: all examples passed\n" : "reference: FAILED\n");
  return failures;
}
