#pragma once
// What the executor examples (upwind_sweep, upwind_sweep3d, sparse_trisolve)
// share, so each keeps only its own physics and its own check:
//   * the command line: positional sizes and `--mode auto|layered|persistent|
//     dataflow|all` (all: every mode, the automatic one last);
//   * a positive integer argument with a bound (exit 2 otherwise);
//   * the plan of a host dependency list on the execution space;
//   * the loop that runs one wave functor through a strata::Executor in each
//     mode: prepare the data, reset the executor, run it, resume every
//     drained run until the plan is complete, fence, check;
//   * main's frame: a PlanError (a bad --mode name, an invalid graph) is
//     printed after the program's name and exits 3.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/strata.hpp>

namespace strata_example {

struct CommandLine {
  std::vector<const char*> positional;
  std::string mode = "all";

  /// The modes `--mode` names (all: layered, persistent, dataflow, auto);
  /// PlanError InvalidArgument for an unknown name.
  std::vector<strata::ExecuteMode> modes() const {
    if (mode == "all")
      return {strata::ExecuteMode::Layered, strata::ExecuteMode::Persistent,
              strata::ExecuteMode::Dataflow, strata::ExecuteMode::Automatic};
    return {strata::parse_execute_mode(mode)};
  }
};

/// argv after Kokkos::ScopeGuard consumed its --kokkos-* options.
inline CommandLine parse_command_line(int argc, char* argv[]) {
  CommandLine c;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--mode" && i + 1 < argc) c.mode = argv[++i];
    else c.positional.push_back(argv[i]);
  }
  return c;
}

/// An integer in 1..max, or a message and exit 2.
inline int parse_positive(const char* program, const char* text, const char* name, long max) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > max) {
    std::fprintf(stderr, "%s: %s must be an integer in 1..%ld, got '%s'\n", program, name, max,
                 text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

template <class Space>
struct PlannedDag {
  strata::DependencyGraph<Space, std::uint32_t, std::uint32_t> graph;
  strata::BarrierPlan<Space, std::uint32_t> plan;
};

/// The CSR and the plan of `waves` waves with the host dependencies `deps`,
/// built on `space` (the dependencies are copied there first).
template <class Space>
PlannedDag<Space> plan_dag(const Space& space, std::uint64_t waves,
                           const std::vector<strata::WaveDependency<std::uint32_t>>& deps) {
  using Dep = strata::WaveDependency<std::uint32_t>;
  const Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host_deps(deps.data(), deps.size());
  const Kokkos::View<const Dep*, typename Space::memory_space> device_deps =
      Kokkos::create_mirror_view_and_copy(typename Space::memory_space(), host_deps);
  strata::DependencyGraphStorage<Space, std::uint32_t, std::uint32_t> graph_storage;
  PlannedDag<Space> dag;
  dag.graph = strata::build_dependency_graph(space, waves, device_deps, graph_storage);
  strata::PlannerScratch<Space, std::uint32_t, std::uint32_t> scratch;
  dag.plan = strata::plan_barriers(space, dag.graph, scratch);
  return dag;
}

/// Runs `wave` through `executor` once per mode. Before each: prepare()
/// (e.g. the solution set to NaN, so a wave run too early poisons the
/// result) and executor.reset(); a drained run is resumed until the plan is
/// complete. After each: check(mode, report, runs) -> true when the result
/// is right. Returns how many modes failed.
template <class Executor, class Functor, class Prepare, class Check>
int run_every_mode(Executor& executor, const std::vector<strata::ExecuteMode>& modes,
                   const std::string& label, const Functor& wave, Prepare&& prepare,
                   Check&& check) {
  int failures = 0;
  for (const strata::ExecuteMode mode : modes) {
    prepare();
    executor.reset();
    strata::RunOptions options;
    options.mode = mode;
    options.label = label;
    strata::RunReport report = executor.run(wave, options);
    int runs = 1;
    while (report.drained && !report.complete) {  // a wall-time budget ran out: resume
      report = executor.run(wave, options);
      ++runs;
    }
    typename Executor::execution_space().fence();
    if (!check(mode, report, runs)) ++failures;
  }
  return failures;
}

/// The line a sweep example prints for one mode, and its verdict: every cell
/// bitwise equal to the serial sweep, the plan complete with every wave run.
inline bool report_sweep(const char* program, strata::ExecuteMode mode,
                         const strata::RunReport& report, int runs, std::size_t bitwise_equal,
                         std::size_t cells, std::uint64_t waves) {
  std::printf("%s: %-10s -> %s (%s): %llu waves, %llu layers, %d run(s), %.3f ms; "
              "%zu of %zu cells bitwise equal to the serial sweep\n",
              program, strata::execute_mode_name(mode), strata::execute_mode_name(report.mode),
              report.reason.c_str(), static_cast<unsigned long long>(report.waves_total),
              static_cast<unsigned long long>(report.layers), runs, 1e3 * report.elapsed_seconds,
              bitwise_equal, cells);
  if (bitwise_equal == cells && report.complete && report.waves_total == waves) return true;
  std::fprintf(stderr, "%s: FAILED in mode %s\n", program, strata::execute_mode_name(mode));
  return false;
}

/// main's frame around body() (which returns the exit code).
template <class Body>
int guarded_main(const char* program, Body&& body) {
  try {
    return body();
  } catch (const strata::PlanError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 3;
  }
}

}  // namespace strata_example
