// A 2-D upwind transport sweep over mesh blocks, scheduled by Strata.
//
// The mesh is NBX x NBY blocks of BS x BS cells. The flow comes from the -x,-y
// corner, so cell (i, j) needs its upwind neighbours (i-1, j) and (i, j-1):
//
//   psi(i,j) = (q(i,j) + mu * psi(i-1,j) + eta * psi(i,j-1)) / (sigma(i,j) + mu + eta)
//
// with psi = inflow on the -x and -y boundaries. A block therefore waits for
// its -x and -y neighbour blocks: that is the wave DAG Strata plans. The
// sweep then runs group by group (one Kokkos parallel_for per group over the
// blocks of that group, each block updating its cells in upwind order) and is
// compared with a plain serial sweep of the whole mesh.
//
//   upwind_sweep [NBX NBY BS]     (default 16 16 8); exit 0 iff the sweeps agree
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/strata.hpp>

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

int parse(const char* text, const char* name) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 4096) {
    std::fprintf(stderr, "upwind_sweep: %s must be an integer in 1..4096, got '%s'\n", name, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

int run(const Mesh& m) {
  using Space = Kokkos::DefaultExecutionSpace;
  const Space space;

  // 1. Plan the block DAG.
  const auto deps = block_dependencies(m);
  strata::PlannerScratch<Space> scratch;
  const auto plan = strata::plan_barriers(space, static_cast<std::uint64_t>(m.nbx) * m.nby,
                                          deps.data(), deps.size(), scratch);
  const auto host_plan = plan.host_mirror();  // the host loops over groups only
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

  // 2. Sweep group by group. psi starts as NaN: a block that ran before one
  // of its upwind blocks would read NaN and poison the comparison.
  const int nx = m.nx(), ny = m.ny(), nbx = m.nbx, bs = m.bs;
  Kokkos::View<double**, Kokkos::LayoutRight, Space::memory_space> psi("psi", ny, nx);
  Kokkos::deep_copy(psi, std::numeric_limits<double>::quiet_NaN());
  const auto waves = plan.waves;
  for (std::size_t g = 0; g < host_plan.group_count(); ++g) {
    Kokkos::parallel_for(
        "upwind_sweep::group",
        Kokkos::RangePolicy<Space>(space, host_plan.group_offsets(g),
                                   host_plan.group_offsets(g + 1)),
        KOKKOS_LAMBDA(const std::uint32_t k) {
          const int block = static_cast<int>(waves(k));
          const int i0 = (block % nbx) * bs, j0 = (block / nbx) * bs;
          for (int j = j0; j < j0 + bs; ++j)
            for (int i = i0; i < i0 + bs; ++i) {
              const double west = i > 0 ? psi(j, i - 1) : inflow;
              const double south = j > 0 ? psi(j - 1, i) : inflow;
              psi(j, i) = upwind_cell(i, j, west, south);
            }
        });
    // Kernels on one execution space instance run in order: the next group's
    // launch is the global barrier.
  }
  space.fence();

  // 3. Compare with the serial sweep.
  const auto host_psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), psi);
  const std::vector<double> reference = serial_sweep(m);
  double max_rel = 0.0;
  std::size_t mismatches = 0, bitwise_equal = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double a = host_psi(j, i), b = reference[static_cast<std::size_t>(j) * nx + i];
      if (a == b) ++bitwise_equal;
      const double rel = std::fabs(a - b) / std::fabs(b);
      if (!(rel <= 1e-14)) ++mismatches;  // NaN counts as a mismatch
      if (rel > max_rel || rel != rel) max_rel = rel;
    }
  const std::size_t cells = static_cast<std::size_t>(nx) * ny;
  std::printf("upwind_sweep: %zu cells, %zu bitwise equal to the serial sweep, max relative "
              "difference %.3g, psi(%d,%d) = %.12f\n",
              cells, bitwise_equal, max_rel, nx - 1, ny - 1, host_psi(ny - 1, nx - 1));
  if (mismatches != 0) {
    std::fprintf(stderr, "upwind_sweep: FAILED: %zu cells differ from the serial sweep\n",
                 mismatches);
    return 1;
  }
  std::printf("upwind_sweep: OK\n");
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // consumes --kokkos-* options
  if (argc != 1 && argc != 4) {
    std::fprintf(stderr, "usage: upwind_sweep [NBX NBY BS]\n");
    return 2;
  }
  const Mesh mesh = argc == 4 ? Mesh{parse(argv[1], "NBX"), parse(argv[2], "NBY"),
                                     parse(argv[3], "BS")}
                              : Mesh{16, 16, 8};
  try {
    return run(mesh);
  } catch (const strata::PlanError& e) {
    std::fprintf(stderr, "upwind_sweep: %s\n", e.what());
    return 3;
  }
}
