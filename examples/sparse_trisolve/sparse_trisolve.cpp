// A sparse lower-triangular solve L x = b run by Strata's executor.
//
// L is the lower factor of ILU(0) of the 7-point Laplacian on an n^3 grid under
// the random symmetric permutation of `strata gen ilu3d n n n 1`, with
// deterministic values and a dominant diagonal (ilu_lower_factor.hpp). Rows are
// grouped into waves of R consecutive rows; wave B waits for every other wave
// holding a column one of B's rows reads. Strata plans that DAG and a
// strata::Executor solves it in every mode (layered, persistent, dataflow,
// auto): a wave solves its rows in order, in one thread, in the thread-level
// functor form and in the staged one (the first row's data loaded by
// prepare()). Each solution must match the serial forward substitution to a
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

#include "executor_example.hpp"
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

/// The staged form: prepare() loads the wave's first row (its offsets, right-hand
/// side, diagonal and entries: nothing a wave writes), and the persistent mode
/// runs it while the barrier before the row's group is crossed.
struct StagedSolveWave {
  strata_example::SolveRowsStaged<Space::memory_space> rows;
  KOKKOS_FUNCTION strata_example::PreparedRow prepare(const std::uint32_t wave) const {
    return rows.prepare(wave);
  }
  KOKKOS_FUNCTION strata::TaskState operator()(const std::uint32_t wave,
                                               const strata_example::PreparedRow& p) const {
    rows(wave, p);
    return strata::TaskState::Completed;
  }
};

int solve(const strata_example::LowerFactor& L, const std::vector<double>& b,
          const std::vector<double>& reference, std::uint64_t rows_per_wave,
          const std::vector<strata::ExecuteMode>& modes) {
  const Space space;
  const auto deps = strata_example::wave_dependencies(L, rows_per_wave);
  const std::uint64_t waves = strata_example::wave_count_of(L, rows_per_wave);
  const auto dag = strata_example::plan_dag(space, waves, deps);
  const auto& plan = dag.plan;
  std::printf("sparse_trisolve: %llu rows per wave: %llu waves, %zu dependencies, %zu groups\n",
              static_cast<unsigned long long>(rows_per_wave), static_cast<unsigned long long>(waves),
              deps.size(), plan.group_count());

  const auto f = strata_example::to_device<Space::memory_space>(L, b);
  strata::Executor<Space, std::uint32_t, std::uint32_t> executor(space, plan, dag.graph);
  const auto check = [&](const char* form) {
    return [&, form](strata::ExecuteMode mode, const strata::RunReport& report, int) {
      const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.x);
      const double error = strata_example::relative_error(x, reference);
      const bool ok = error <= 1e-12 && report.complete && report.waves_total == waves;
      std::printf("sparse_trisolve:   %-6s %-10s -> %s: %llu waves, %llu layers, %.3f ms, relative error %.3g%s\n",
                  form, strata::execute_mode_name(mode), strata::execute_mode_name(report.mode),
                  static_cast<unsigned long long>(report.waves_total),
                  static_cast<unsigned long long>(report.layers), 1e3 * report.elapsed_seconds,
                  error, ok ? "" : "  FAILED");
      return ok;
    };
  };
  const auto nan_x = [&] {  // a row solved too early reads NaN
    Kokkos::deep_copy(f.x, std::numeric_limits<double>::quiet_NaN());
  };
  const std::int64_t r = static_cast<std::int64_t>(rows_per_wave);
  return strata_example::run_every_mode(executor, modes, "sparse_trisolve",
                                        SolveWave{{f, r, L.rows}}, nan_x, check("plain")) +
         strata_example::run_every_mode(executor, modes, "sparse_trisolve",
                                        StagedSolveWave{{f, r, L.rows}}, nan_x, check("staged"));
}

}  // namespace

int main(int argc, char* argv[]) {
  // Strata's start-up rules (checked thread counts, no OMP_PROC_BIND warning, threads
  // per MPI rank), then Kokkos; consumes the --kokkos-* options.
  strata::runtime::ScopeGuard kokkos(argc, argv);
  const auto cl = strata_example::parse_command_line(argc, argv);
  const auto& args = cl.positional;
  if (args.size() > 2) {
    std::fprintf(stderr, "usage: sparse_trisolve [N [R]] [--mode auto|layered|persistent|dataflow|all]\n");
    return 2;
  }
  const int n = args.size() >= 1 ? strata_example::parse_positive("sparse_trisolve", args[0], "N", 800) : 12;
  std::vector<std::uint64_t> rows_per_wave = {1, 16};
  if (args.size() == 2)
    rows_per_wave = {static_cast<std::uint64_t>(
        strata_example::parse_positive("sparse_trisolve", args[1], "R", 1 << 20))};
  return strata_example::guarded_main("sparse_trisolve", [&] {
    const auto modes = cl.modes();
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
  });
}
