// The 3-D upwind sweep of upwind_sweep3d, across MPI ranks (kba_sweep.hpp):
// NB^3 blocks of BS^3 cells, Px x Py columns of blocks (one per rank), the 8
// octants as one DAG. Strata plans the DAG over the ranks with the columns as
// the partition, and strata::distributed::Executor runs it: each block is a
// team-level wave; the downwind face of a block whose neighbour lives on
// another rank is the message of that dependency. Every rank checks its cells
// bitwise against the serial sweep of the whole mesh, in every mode (segment
// readiness) and with wave readiness (ExchangeOptions::readiness).
//
//   mpiexec -n P upwind_sweep3d_mpi [NB BS] [--px PX] [--mode auto|layered|persistent|dataflow|all]
//
// (default 6 4; PX * PY = P, PX the largest divisor of P not above sqrt(P)
// unless given). Exit 0 iff every rank's cells agree in every mode.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <strata/distributed/distributed_executor.hpp>
#include <strata/distributed/local_graph.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/strata.hpp>

#include "executor_example.hpp"
#include "kba_sweep.hpp"

namespace {

int run(const kba::Grid& grid, const std::vector<strata::ExecuteMode>& modes) {
  const strata::distributed::Communicator comm(MPI_COMM_WORLD);
  const kba::Space space;
  const auto deps = kba::dependencies_into(grid, comm.rank());
  strata::distributed::DistributedOptions options;
  options.wave_begin = grid.wave_begin();  // the KBA columns are the partition
  const auto plan = strata::distributed::plan_barriers_distributed(
      space, comm, grid.waves(), deps.data(), deps.size(), options);
  const auto graph = strata::distributed::local_graph(space, comm, plan, deps.data(), deps.size());
  strata::distributed::ExchangeOptions exchange;
  exchange.message_bytes = sizeof(double) * std::uint64_t(grid.bs) * std::uint64_t(grid.bs);
  strata::distributed::Executor<kba::Space, kba::Ordinal> executor(space, comm, plan, graph, {},
                                                                   exchange);
  strata::distributed::ExchangeOptions wave_exchange = exchange;
  wave_exchange.readiness = strata::distributed::Readiness::Wave;
  strata::distributed::Executor<kba::Space, kba::Ordinal> wave_executor(space, comm, plan, graph, {},
                                                                        wave_exchange);
  const kba::RankData data(grid, comm.rank());
  const auto reference = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                             kba::serial_sweep(space, grid));
  if (comm.rank() == 0)
    std::printf("upwind_sweep3d_mpi: %d^3 blocks of %d^3 cells, 8 octants, %d x %d ranks on %s: "
                "%llu waves, %zu groups, %llu cross-rank dependencies\n",
                grid.nbx, grid.bs, grid.px, grid.py, kba::Space::name(),
                static_cast<unsigned long long>(grid.waves()), plan.group_count(),
                static_cast<unsigned long long>(executor.cross_rank_dependencies()));
  int failures = 0;
  std::vector<std::pair<strata::ExecuteMode, bool>> runs_to_check;  // (mode, wave readiness)
  for (const strata::ExecuteMode mode : modes) runs_to_check.push_back({mode, false});
  runs_to_check.push_back({strata::ExecuteMode::Automatic, true});
  for (const auto& [mode, wave_readiness] : runs_to_check) {
    auto& executor_of_run = wave_readiness ? wave_executor : executor;
    Kokkos::deep_copy(data.psi, std::numeric_limits<double>::quiet_NaN());
    Kokkos::deep_copy(data.ghost_x, std::numeric_limits<double>::quiet_NaN());
    Kokkos::deep_copy(data.ghost_y, std::numeric_limits<double>::quiet_NaN());
    executor_of_run.reset();
    strata::RunOptions run_options;
    run_options.mode = mode;
    strata::distributed::DistributedRunReport report;
    int runs = 0;
    do {
      report = executor_of_run.run(kba::SweepWave{data}, kba::FaceMessages{data}, run_options);
      ++runs;
    } while (!report.complete);
    space.fence();
    const auto psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), data.psi);
    std::uint64_t equal = 0, cells = 0;
    const int i0 = data.mine.bx0 * grid.bs, j0 = data.mine.by0 * grid.bs;
    for (int o = 0; o < 8; ++o)
      for (int k = 0; k < grid.nz(); ++k)
        for (std::size_t jl = 0; jl < psi.extent(2); ++jl)
          for (std::size_t il = 0; il < psi.extent(3); ++il) {
            const double a = psi(o, k, jl, il), b = reference(o, k, j0 + int(jl), i0 + int(il));
            equal += std::memcmp(&a, &b, sizeof a) == 0;
            ++cells;
          }
    const std::uint64_t all_equal = comm.sum(equal), all_cells = comm.sum(cells);
    const bool ok = all_equal == all_cells &&
                    all_cells == 8ull * std::uint64_t(grid.nx()) * grid.ny() * grid.nz();
    failures += ok ? 0 : 1;
    if (comm.rank() == 0)
      std::printf("upwind_sweep3d_mpi: %-15s %d run(s), %llu %s, %llu messages, "
                  "%llu of %llu cells bitwise equal to the serial sweep%s\n",
                  wave_readiness ? "wave readiness" : (std::string("mode ") + strata::execute_mode_name(mode)).c_str(),
                  runs, static_cast<unsigned long long>(report.segments_run),
                  wave_readiness ? "batches" : "segments",
                  static_cast<unsigned long long>(report.messages_sent),
                  static_cast<unsigned long long>(all_equal),
                  static_cast<unsigned long long>(all_cells), ok ? "" : "  FAILED");
  }
  if (comm.rank() == 0) std::printf(failures == 0 ? "upwind_sweep3d_mpi: OK\n" : "upwind_sweep3d_mpi: FAILED\n");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int px = 0;
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
      if (std::string(argv[i]) == "--px" && i + 1 < argc)
        px = strata_example::parse_positive("upwind_sweep3d_mpi", argv[++i], "PX", ranks);
      else rest.push_back(argv[i]);
    }
    const auto args = strata_example::parse_command_line(int(rest.size()), rest.data());
    const auto& sizes = args.positional;
    if (sizes.size() != 0 && sizes.size() != 2) {
      std::fprintf(stderr, "usage: mpiexec -n P upwind_sweep3d_mpi [NB BS] [--px PX] [--mode auto|layered|persistent|dataflow|all]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (px == 0)
      for (int d = 1; d * d <= ranks; ++d)
        if (ranks % d == 0) px = d;
    if (ranks % px != 0) {
      std::fprintf(stderr, "upwind_sweep3d_mpi: PX must divide the rank count %d\n", ranks);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    kba::Grid grid;
    grid.nbx = grid.nby = grid.nbz =
        sizes.size() == 2 ? strata_example::parse_positive("upwind_sweep3d_mpi", sizes[0], "NB", 256) : 6;
    grid.bs = sizes.size() == 2 ? strata_example::parse_positive("upwind_sweep3d_mpi", sizes[1], "BS", 64) : 4;
    grid.px = px;
    grid.py = ranks / px;
    code = strata_example::guarded_main("upwind_sweep3d_mpi", [&] { return run(grid, args.modes()); });
  }
  MPI_Finalize();
  return code;
}
