// A 3-D upwind transport sweep over blocks of cells, scheduled by Strata and
// run by its executor with a TEAM-level wave: a block is one wave, and the
// threads of the team sweep the block's cells plane by plane.
//
// The mesh is NBX x NBY x NBZ blocks of BS^3 cells. The flow comes from the
// -x,-y,-z corner, so cell (i, j, k) needs (i-1, j, k), (i, j-1, k), (i, j, k-1):
//
//   psi = (q + mu * west + eta * south + xi * below) / (sigma + mu + eta + xi)
//
// with psi = inflow on the inflow faces. Block (bx, by, bz) waits for its
// three upwind neighbour blocks (the DAG of `strata gen sweep3d`, block ids
// x fastest). Inside a block the cells of one plane i+j+k = p (block-local)
// are independent: the team splits each plane over its threads, with a team
// barrier between planes. Every mode of strata::Executor (layered,
// persistent, dataflow, auto) must give a result bitwise equal to the serial
// sweep (the same cell arithmetic in one thread of the same execution space).
//
//   upwind_sweep3d [NBX NBY NBZ BS] [--mode auto|layered|persistent|dataflow|all]
//                  (default 8 8 8 4, all modes); exit 0 iff every sweep agrees
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/strata.hpp>

#include "executor_example.hpp"

namespace {

constexpr double mu = 0.7, eta = 0.4, xi = 0.3, inflow = 1.0;

using Space = Kokkos::DefaultExecutionSpace;
using Psi = Kokkos::View<double***, Kokkos::LayoutRight, Space::memory_space>;  // (k, j, i)

struct Mesh {
  int nbx, nby, nbz, bs;
  int nx() const { return nbx * bs; }
  int ny() const { return nby * bs; }
  int nz() const { return nbz * bs; }
  std::uint32_t block_id(int bx, int by, int bz) const {
    return static_cast<std::uint32_t>((bz * nby + by) * nbx + bx);
  }
};

KOKKOS_INLINE_FUNCTION double source(int i, int j, int k) { return 1.0 + 0.5 * ((i * 7 + j * 13 + k * 5) % 11); }
KOKKOS_INLINE_FUNCTION double sigma(int i, int j, int k) { return 0.5 + 0.25 * ((i * 3 + j * 5 + k * 2) % 7); }

KOKKOS_INLINE_FUNCTION void update_cell(const Psi& psi, int i, int j, int k) {
  const double west = i > 0 ? psi(k, j, i - 1) : inflow;
  const double south = j > 0 ? psi(k, j - 1, i) : inflow;
  const double below = k > 0 ? psi(k - 1, j, i) : inflow;
  psi(k, j, i) = (source(i, j, k) + mu * west + eta * south + xi * below) /
                 (sigma(i, j, k) + mu + eta + xi);
}

std::vector<strata::WaveDependency<std::uint32_t>> block_dependencies(const Mesh& m) {
  std::vector<strata::WaveDependency<std::uint32_t>> deps;
  for (int bz = 0; bz < m.nbz; ++bz)
    for (int by = 0; by < m.nby; ++by)
      for (int bx = 0; bx < m.nbx; ++bx) {
        const std::uint32_t b = m.block_id(bx, by, bz);
        if (bx > 0) deps.push_back({m.block_id(bx - 1, by, bz), b});
        if (by > 0) deps.push_back({m.block_id(bx, by - 1, bz), b});
        if (bz > 0) deps.push_back({m.block_id(bx, by, bz - 1), b});
      }
  return deps;
}

// One wave, team-level: the block's cells plane by plane.
struct SweepBlock {
  using team_member = Kokkos::TeamPolicy<Space>::member_type;
  Psi psi;
  int nbx, nby, bs;
  KOKKOS_FUNCTION strata::TaskState operator()(const team_member& team, const std::uint32_t block) const {
    const int b = static_cast<int>(block);
    const int i0 = (b % nbx) * bs, j0 = ((b / nbx) % nby) * bs, k0 = (b / (nbx * nby)) * bs;
    const int n = bs;
    for (int p = 0; p <= 3 * (n - 1); ++p) {  // block-local plane di + dj + dk = p
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * n), [&](const int ij) {
        const int di = ij % n, dj = ij / n, dk = p - di - dj;
        if (dk >= 0 && dk < n) update_cell(psi, i0 + di, j0 + dj, k0 + dk);
      });
      team.team_barrier();  // the plane is written before the next one reads it
    }
    return strata::TaskState::Completed;
  }
};

Psi serial_sweep_on(const Space& space, int nx, int ny, int nz) {
  Psi psi("psi serial", nz, ny, nx);
  Kokkos::parallel_for(
      "upwind_sweep3d::serial", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) {
        for (int k = 0; k < nz; ++k)
          for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) update_cell(psi, i, j, k);
      });
  space.fence();
  return psi;
}

int run(const Mesh& m, const std::vector<strata::ExecuteMode>& modes) {
  const Space space;
  const auto deps = block_dependencies(m);
  const std::uint64_t blocks = static_cast<std::uint64_t>(m.nbx) * m.nby * m.nbz;
  const auto dag = strata_example::plan_dag(space, blocks, deps);
  const auto& plan = dag.plan;
  std::printf("upwind_sweep3d: %dx%dx%d blocks of %d^3 cells on %s: %zu waves, %zu dependencies, "
              "%zu groups\n",
              m.nbx, m.nby, m.nbz, m.bs, Space::name(), plan.wave_count(), deps.size(), plan.group_count());
  if (plan.group_count() != static_cast<std::size_t>(m.nbx + m.nby + m.nbz - 2)) {
    std::fprintf(stderr, "upwind_sweep3d: expected %d groups (one per block diagonal plane)\n",
                 m.nbx + m.nby + m.nbz - 2);
    return 1;
  }

  const int nx = m.nx(), ny = m.ny(), nz = m.nz();
  const auto reference =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), serial_sweep_on(space, nx, ny, nz));
  Psi psi("psi", nz, ny, nx);
  strata::Executor<Space, std::uint32_t, std::uint32_t> executor(space, plan, dag.graph);
  const int failures = strata_example::run_every_mode(
      executor, modes, "upwind_sweep3d", SweepBlock{psi, m.nbx, m.nby, m.bs},
      [&] { Kokkos::deep_copy(psi, std::numeric_limits<double>::quiet_NaN()); },
      [&](strata::ExecuteMode mode, const strata::RunReport& report, int runs) {
        const auto host_psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), psi);
        std::size_t bitwise_equal = 0;
        for (int k = 0; k < nz; ++k)
          for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i)
              if (host_psi(k, j, i) == reference(k, j, i)) ++bitwise_equal;
        const std::size_t cells = static_cast<std::size_t>(nx) * ny * nz;
        return strata_example::report_sweep("upwind_sweep3d", mode, report, runs, bitwise_equal, cells,
                                            blocks);
      });
  std::printf("upwind_sweep3d: psi(%d,%d,%d) = %.12f\n", nx - 1, ny - 1, nz - 1,
              reference(nz - 1, ny - 1, nx - 1));
  if (failures != 0) return 1;
  std::printf("upwind_sweep3d: OK\n");
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  // Strata's start-up rules (checked thread counts, no OMP_PROC_BIND warning, threads
  // per MPI rank), then Kokkos; consumes the --kokkos-* options.
  strata::runtime::ScopeGuard kokkos(argc, argv);
  const auto args = strata_example::parse_command_line(argc, argv);
  const auto& sizes = args.positional;
  if (sizes.size() != 0 && sizes.size() != 4) {
    std::fprintf(stderr, "usage: upwind_sweep3d [NBX NBY NBZ BS] [--mode auto|layered|persistent|dataflow|all]\n");
    return 2;
  }
  auto parse = [](const char* text, const char* name) {
    return strata_example::parse_positive("upwind_sweep3d", text, name, 1024);
  };
  const Mesh mesh = sizes.size() == 4 ? Mesh{parse(sizes[0], "NBX"), parse(sizes[1], "NBY"),
                                             parse(sizes[2], "NBZ"), parse(sizes[3], "BS")}
                                      : Mesh{8, 8, 8, 4};
  return strata_example::guarded_main("upwind_sweep3d", [&] { return run(mesh, args.modes()); });
}
