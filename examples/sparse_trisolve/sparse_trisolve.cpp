// A sparse lower-triangular solve L x = b run by Strata's executor.
//
// L is the lower factor of ILU(0) of the 7-point Laplacian on an n^3 grid under
// the random symmetric permutation of `strata gen ilu3d n n n 1`, with
// deterministic values and a dominant diagonal (ilu_lower_factor.hpp). Rows are
// grouped into waves of R consecutive rows; wave B waits for every other wave
// holding a column one of B's rows reads. Strata plans that DAG and a
// strata::Executor solves it in every mode (layered, persistent, dataflow,
// auto): a wave solves its rows in order, in one thread (the thread-level
// functor form). Each solution must match the serial forward substitution to a
// relative error <= 1e-12.
//
//   sparse_trisolve [N [R]] [--mode auto|layered|persistent|dataflow|all]
//                   (default N = 12, R = 1 and 16, all modes)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/strata.hpp>

#include "ilu_lower_factor.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;

struct SolveWave {
  strata_example::SolveRows<Space::memory_space> rows;
  KOKKOS_FUNCTION strata::TaskState operator()(const std::uint32_t wave) const {
    rows(wave);
    return strata::TaskState::Completed;
  }
};

int parse(const char* text, const char* name, long max) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > max) {
    std::fprintf(stderr, "sparse_trisolve: %s must be an integer in 1..%ld, got '%s'\n", name, max, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

int solve(const strata_example::LowerFactor& L, const std::vector<double>& b,
          const std::vector<double>& reference, std::uint64_t rows_per_wave,
          const std::vector<strata::ExecuteMode>& modes) {
  const Space space;
  const auto deps = strata_example::wave_dependencies(L, rows_per_wave);
  const std::uint64_t waves = strata_example::wave_count_of(L, rows_per_wave);
  const Kokkos::View<const strata::WaveDependency<std::uint32_t>*, Kokkos::HostSpace,
                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host_deps(deps.data(), deps.size());
  const Kokkos::View<const strata::WaveDependency<std::uint32_t>*, Space::memory_space> device_deps =
      Kokkos::create_mirror_view_and_copy(Space::memory_space(), host_deps);  // a copy on a device
  strata::DependencyGraphStorage<Space, std::uint32_t, std::uint32_t> graph_storage;
  const auto graph = strata::build_dependency_graph(space, waves, device_deps, graph_storage);
  strata::PlannerScratch<Space, std::uint32_t, std::uint32_t> scratch;
  const auto plan = strata::plan_barriers(space, graph, scratch);
  std::printf("sparse_trisolve: %llu rows per wave: %llu waves, %zu dependencies, %zu groups\n",
              static_cast<unsigned long long>(rows_per_wave), static_cast<unsigned long long>(waves),
              deps.size(), plan.group_count());

  const auto f = strata_example::to_device<Space::memory_space>(L, b);
  const SolveWave functor{{f, static_cast<std::int64_t>(rows_per_wave), L.rows}};
  strata::Executor<Space, std::uint32_t, std::uint32_t> executor(space, plan, graph);
  int failures = 0;
  for (const strata::ExecuteMode mode : modes) {
    Kokkos::deep_copy(f.x, std::numeric_limits<double>::quiet_NaN());  // a row solved too early reads NaN
    executor.reset();
    strata::RunOptions options;
    options.mode = mode;
    options.label = "sparse_trisolve";
    strata::RunReport report = executor.run(functor, options);
    while (report.drained && !report.complete) report = executor.run(functor, options);
    space.fence();
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.x);
    const double error = strata_example::relative_error(x, reference);
    const bool ok = error <= 1e-12 && report.complete && report.waves_total == waves;
    std::printf("sparse_trisolve:   %-10s -> %s: %llu waves, %llu layers, %.3f ms, relative error %.3g%s\n",
                strata::execute_mode_name(mode), strata::execute_mode_name(report.mode),
                static_cast<unsigned long long>(report.waves_total),
                static_cast<unsigned long long>(report.layers), 1e3 * report.elapsed_seconds, error,
                ok ? "" : "  FAILED");
    if (!ok) ++failures;
  }
  return failures;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::vector<const char*> args;
  std::string mode = "all";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--mode" && i + 1 < argc) mode = argv[++i];
    else args.push_back(argv[i]);
  }
  if (args.size() > 2) {
    std::fprintf(stderr, "usage: sparse_trisolve [N [R]] [--mode auto|layered|persistent|dataflow|all]\n");
    return 2;
  }
  const int n = args.size() >= 1 ? parse(args[0], "N", 800) : 12;
  std::vector<std::uint64_t> rows_per_wave = {1, 16};
  if (args.size() == 2) rows_per_wave = {static_cast<std::uint64_t>(parse(args[1], "R", 1 << 20))};
  try {
    std::vector<strata::ExecuteMode> modes;
    if (mode == "all")
      modes = {strata::ExecuteMode::Layered, strata::ExecuteMode::Persistent,
               strata::ExecuteMode::Dataflow, strata::ExecuteMode::Automatic};
    else
      modes = {strata::parse_execute_mode(mode)};
    const auto L = strata_example::ilu3d_lower_factor(static_cast<std::uint64_t>(n));
    const auto b = strata_example::rhs_of(L);
    const auto reference = strata_example::forward_substitution(L, b);
    std::printf("sparse_trisolve: L of ILU(0), 7-point Laplacian on %d^3 (ilu3d seed 1): %lld rows, "
                "%lld nonzeros, on %s\n",
                n, static_cast<long long>(L.rows), static_cast<long long>(L.nonzeros()), Space::name());
    int failures = 0;
    for (const std::uint64_t r : rows_per_wave) failures += solve(L, b, reference, r, modes);
    if (failures != 0) return 1;
    std::printf("sparse_trisolve: OK\n");
    return 0;
  } catch (const strata::PlanError& e) {
    std::fprintf(stderr, "sparse_trisolve: %s\n", e.what());
    return 3;
  }
}
