// A 2-D upwind transport sweep over mesh blocks, scheduled by Strata and run
// by its executor.
//
// The mesh is NBX x NBY blocks of BS x BS cells. The flow comes from the -x,-y
// corner, so cell (i, j) needs its upwind neighbours (i-1, j) and (i, j-1):
//
//   psi(i,j) = (q(i,j) + mu * psi(i-1,j) + eta * psi(i,j-1)) / (sigma(i,j) + mu + eta)
//
// with psi = inflow on the -x and -y boundaries. A block therefore waits for
// its -x and -y neighbour blocks: that is the wave DAG Strata plans. A
// strata::Executor then runs one wave per block (each block updating its cells
// in upwind order) in every execution mode — layered (one launch per group),
// persistent (one launch, a device-wide barrier between groups), dataflow (one
// launch, no barrier: a block starts when its two upwind blocks are done) and
// auto (the executor policy's choice) — and each result must be bitwise equal to
// the serial sweep (the same cell arithmetic, in one thread of the same
// execution space); that serial sweep is also checked against a host one.
//
//   upwind_sweep [NBX NBY BS] [--mode auto|layered|persistent|dataflow|all]
//                (default 16 16 8, all modes); exit 0 iff every sweep agrees
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

constexpr double mu = 0.7, eta = 0.4, inflow = 1.0;

struct Mesh {
  int nbx, nby, bs;
  int nx() const { return nbx * bs; }
  int ny() const { return nby * bs; }
  std::uint32_t block_id(int bx, int by) const { return static_cast<std::uint32_t>(by * nbx + bx); }
};

// Deterministic, spatially varying source and cross section.
KOKKOS_INLINE_FUNCTION double source(int i, int j) { return 1.0 + 0.5 * ((i * 7 + j * 13) % 11); }
KOKKOS_INLINE_FUNCTION double sigma(int i, int j) { return 0.5 + 0.25 * ((i * 3 + j * 5) % 7); }

KOKKOS_INLINE_FUNCTION double upwind_cell(int i, int j, double west, double south) {
  return (source(i, j) + mu * west + eta * south) / (sigma(i, j) + mu + eta);
}

// The block DAG: (bx-1, by) -> (bx, by) and (bx, by-1) -> (bx, by).
std::vector<strata::WaveDependency<std::uint32_t>> block_dependencies(const Mesh& m) {
  std::vector<strata::WaveDependency<std::uint32_t>> deps;
  for (int by = 0; by < m.nby; ++by)
    for (int bx = 0; bx < m.nbx; ++bx) {
      if (bx > 0) deps.push_back({m.block_id(bx - 1, by), m.block_id(bx, by)});
      if (by > 0) deps.push_back({m.block_id(bx, by - 1), m.block_id(bx, by)});
    }
  return deps;
}

// The reference: one serial sweep over the whole mesh, row by row.
std::vector<double> serial_sweep(const Mesh& m) {
  const int nx = m.nx(), ny = m.ny();
  std::vector<double> psi(static_cast<std::size_t>(nx) * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double west = i > 0 ? psi[static_cast<std::size_t>(j) * nx + i - 1] : inflow;
      const double south = j > 0 ? psi[static_cast<std::size_t>(j - 1) * nx + i] : inflow;
      psi[static_cast<std::size_t>(j) * nx + i] = upwind_cell(i, j, west, south);
    }
  return psi;
}

using Space = Kokkos::DefaultExecutionSpace;
using Psi = Kokkos::View<double**, Kokkos::LayoutRight, Space::memory_space>;

// One wave: block `block` updates its cells in upwind order (the thread-level
// functor form: one thread of a team runs it).
struct SweepBlock {
  Psi psi;
  int nbx, bs;
  KOKKOS_FUNCTION strata::TaskState operator()(const std::uint32_t block) const {
    const int i0 = (static_cast<int>(block) % nbx) * bs, j0 = (static_cast<int>(block) / nbx) * bs;
    for (int j = j0; j < j0 + bs; ++j)
      for (int i = i0; i < i0 + bs; ++i) {
        const double west = i > 0 ? psi(j, i - 1) : inflow;
        const double south = j > 0 ? psi(j - 1, i) : inflow;
        psi(j, i) = upwind_cell(i, j, west, south);
      }
    return strata::TaskState::Completed;
  }
};

// The serial sweep in one thread of the execution space: the same arithmetic
// as the blocks, compiled by the same compiler (a device may contract a*b+c
// into an FMA where the host does not), so a correct schedule is bitwise equal.
Psi serial_sweep_on(const Space& space, int nx, int ny) {
  Psi psi("psi serial", ny, nx);
  Kokkos::parallel_for(
      "upwind_sweep::serial", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) {
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            const double west = i > 0 ? psi(j, i - 1) : inflow;
            const double south = j > 0 ? psi(j - 1, i) : inflow;
            psi(j, i) = upwind_cell(i, j, west, south);
          }
      });
  space.fence();
  return psi;
}

int run(const Mesh& m, const std::vector<strata::ExecuteMode>& modes) {
  const Space space;

  // 1. The block DAG, its CSR and its plan.
  const auto deps = block_dependencies(m);
  const std::uint64_t blocks = static_cast<std::uint64_t>(m.nbx) * m.nby;
  const auto dag = strata_example::plan_dag(space, blocks, deps);
  const auto& plan = dag.plan;
  const std::size_t expected_groups = static_cast<std::size_t>(m.nbx + m.nby - 1);
  std::printf("upwind_sweep: %dx%d blocks of %dx%d cells on %s: %zu waves, %zu dependencies, "
              "%zu groups, %zu global barriers\n",
              m.nbx, m.nby, m.bs, m.bs, Space::name(), plan.wave_count(), deps.size(),
              plan.group_count(), plan.global_barriers());
  if (plan.group_count() != expected_groups) {
    std::fprintf(stderr, "upwind_sweep: expected %zu groups (one per block anti-diagonal)\n",
                 expected_groups);
    return 1;
  }

  // 2. The references: the serial sweep on the execution space, checked
  // against the host one (equal up to rounding: see serial_sweep_on).
  const int nx = m.nx(), ny = m.ny();
  const auto reference = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), serial_sweep_on(space, nx, ny));
  const std::vector<double> host_reference = serial_sweep(m);
  double max_rel = 0.0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double a = reference(j, i), b = host_reference[static_cast<std::size_t>(j) * nx + i];
      const double rel = std::fabs(a - b) / std::fabs(b);
      if (rel > max_rel || rel != rel) max_rel = rel;
    }
  if (!(max_rel <= 1e-14)) {
    std::fprintf(stderr, "upwind_sweep: FAILED: the serial sweep on %s differs from the host one by %.3g\n",
                 Space::name(), max_rel);
    return 1;
  }

  // 3. Every mode through the executor. psi starts as NaN: a block that ran
  // before one of its upwind blocks would read NaN and poison the comparison.
  Psi psi("psi", ny, nx);
  strata::Executor<Space, std::uint32_t, std::uint32_t> executor(space, plan, dag.graph);
  const int failures = strata_example::run_every_mode(
      executor, modes, "upwind_sweep", SweepBlock{psi, m.nbx, m.bs},
      [&] { Kokkos::deep_copy(psi, std::numeric_limits<double>::quiet_NaN()); },
      [&](strata::ExecuteMode mode, const strata::RunReport& report, int runs) {
        const auto host_psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), psi);
        std::size_t bitwise_equal = 0;
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i)
            if (host_psi(j, i) == reference(j, i)) ++bitwise_equal;
        const std::size_t cells = static_cast<std::size_t>(nx) * ny;
        return strata_example::report_sweep("upwind_sweep", mode, report, runs, bitwise_equal, cells,
                                            blocks);
      });
  std::printf("upwind_sweep: psi(%d,%d) = %.12f\n", nx - 1, ny - 1, reference(ny - 1, nx - 1));
  if (failures != 0) return 1;
  std::printf("upwind_sweep: OK\n");
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  // Strata's start-up rules (checked thread counts, no OMP_PROC_BIND warning, threads
  // per MPI rank), then Kokkos; consumes the --kokkos-* options.
  strata::runtime::ScopeGuard kokkos(argc, argv);
  const auto args = strata_example::parse_command_line(argc, argv);
  const auto& sizes = args.positional;
  if (sizes.size() != 0 && sizes.size() != 3) {
    std::fprintf(stderr, "usage: upwind_sweep [NBX NBY BS] [--mode auto|layered|persistent|dataflow|all]\n");
    return 2;
  }
  auto parse = [](const char* text, const char* name) {
    return strata_example::parse_positive("upwind_sweep", text, name, 4096);
  };
  const Mesh mesh = sizes.size() == 3 ? Mesh{parse(sizes[0], "NBX"), parse(sizes[1], "NBY"),
                                             parse(sizes[2], "BS")}
                                      : Mesh{16, 16, 8};
  return strata_example::guarded_main("upwind_sweep", [&] { return run(mesh, args.modes()); });
}
