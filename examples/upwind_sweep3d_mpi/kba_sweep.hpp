#pragma once
// A 3-D upwind transport sweep decomposed the KBA way (Koch, Baker, Alcouffe):
// the mesh of NBX x NBY x NBZ blocks of BS^3 cells is cut into Px x Py columns of blocks
// along z, one column per rank; a block of one octant is one wave; the
// downwind face of a block whose neighbour lives on another rank is the
// message of that cross-rank dependency. The 8 octants (sweep directions)
// are independent sweeps of one source iteration, planned and run as one DAG,
// so the octants starting from different corners pipeline through the ranks.
//
// Cell (i, j, k) of octant o, direction (sx, sy, sz) = (+-1, +-1, +-1):
//
//   psi = (q + mu * psi(i - sx) + eta * psi(j - sy) + xi * psi(k - sz)) / (sigma + mu + eta + xi)
//
// with psi = inflow(o) outside the mesh. Wave ids are rank-major (rank r owns
// [begin(r), begin(r + 1)), the partition given to the planner), then octant,
// block z, block x, block y.
//
// Used by examples/upwind_sweep3d_mpi and perf_test/strata_sweep_mpi_bench.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/strata.hpp>

namespace kba {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
using Ordinal = std::uint32_t;
using team_member = Kokkos::TeamPolicy<Space>::member_type;

constexpr double mu = 0.7, eta = 0.4, xi = 0.3;

KOKKOS_INLINE_FUNCTION double inflow(int o) { return 1.0 + 0.125 * o; }
KOKKOS_INLINE_FUNCTION double source(int i, int j, int k) { return 1.0 + 0.5 * ((i * 7 + j * 13 + k * 5) % 11); }
KOKKOS_INLINE_FUNCTION double sigma(int i, int j, int k) { return 0.5 + 0.25 * ((i * 3 + j * 5 + k * 2) % 7); }
KOKKOS_INLINE_FUNCTION int dir(int o, int axis) { return (o >> axis) & 1 ? -1 : 1; }
KOKKOS_INLINE_FUNCTION double cell_value(int i, int j, int k, double west, double south, double below) {
  return (source(i, j, k) + mu * west + eta * south + xi * below) / (sigma(i, j, k) + mu + eta + xi);
}

/// A rank's column of blocks: bx in [bx0, bx0 + lbx), by in [by0, by0 + lby), every bz.
struct Column {
  int bx0 = 0, lbx = 0, by0 = 0, lby = 0;
  std::uint64_t begin = 0;  ///< its first wave id
};

struct Grid {
  int nbx = 0, nby = 0, nbz = 0, bs = 0, px = 1, py = 1;
  int nx() const { return nbx * bs; }
  int ny() const { return nby * bs; }
  int nz() const { return nbz * bs; }
  static int part(int n, int parts, int p) { return int(std::int64_t(n) * p / parts); }
  /// The column of rank r = (rx, ry), rx fastest.
  Column column(int r) const {
    const int rx = r % px, ry = r / px;
    Column c;
    c.bx0 = part(nbx, px, rx);
    c.lbx = part(nbx, px, rx + 1) - c.bx0;
    c.by0 = part(nby, py, ry);
    c.lby = part(nby, py, ry + 1) - c.by0;
    return c;
  }
  std::vector<Column> columns() const {
    std::vector<Column> cs;
    std::uint64_t at = 0;
    for (int r = 0; r < px * py; ++r) {
      Column c = column(r);
      c.begin = at;
      at += std::uint64_t(8) * nbz * c.lbx * c.lby;
      cs.push_back(c);
    }
    return cs;
  }
  std::uint64_t waves() const { return std::uint64_t(8) * nbx * nby * nbz; }
  std::vector<std::uint64_t> wave_begin() const {
    std::vector<std::uint64_t> b;
    for (const auto& c : columns()) b.push_back(c.begin);
    b.push_back(waves());
    return b;
  }
};

/// A block of one octant.
struct Block {
  int o, bx, by, bz;
};

KOKKOS_INLINE_FUNCTION Ordinal wave_of(const Column& c, const Block& b, int nbz) {
  return Ordinal(c.begin + ((std::uint64_t(b.o) * nbz + b.bz) * c.lbx + (b.bx - c.bx0)) * c.lby +
                 (b.by - c.by0));
}

/// The rank whose column holds block (bx, by).
KOKKOS_INLINE_FUNCTION int rank_of(int bx, int by, int nbx, int nby, int px, int py) {
  int rx = 0, ry = 0;
  while (std::int64_t(nbx) * (rx + 1) / px <= bx) ++rx;
  while (std::int64_t(nby) * (ry + 1) / py <= by) ++ry;
  return ry * px + rx;
}

template <class Columns>
KOKKOS_INLINE_FUNCTION Block block_of(const Columns& columns, int ranks, int nbz, std::uint64_t w) {
  int r = 0;
  while (r + 1 < ranks && columns(r + 1).begin <= w) ++r;
  const Column c = columns(r);
  std::uint64_t local = w - c.begin;
  Block b;
  b.by = c.by0 + int(local % std::uint64_t(c.lby));
  local /= std::uint64_t(c.lby);
  b.bx = c.bx0 + int(local % std::uint64_t(c.lbx));
  local /= std::uint64_t(c.lbx);
  b.bz = int(local % std::uint64_t(nbz));
  b.o = int(local / std::uint64_t(nbz));
  return b;
}

/// The dependencies into rank r's waves (its blocks wait for their upwind neighbours).
inline std::vector<strata::WaveDependency<Ordinal>> dependencies_into(const Grid& g, int r) {
  const auto cs = g.columns();
  const Column& c = cs[std::size_t(r)];
  std::vector<strata::WaveDependency<Ordinal>> deps;
  for (int o = 0; o < 8; ++o)
    for (int bz = 0; bz < g.nbz; ++bz)
      for (int bx = c.bx0; bx < c.bx0 + c.lbx; ++bx)
        for (int by = c.by0; by < c.by0 + c.lby; ++by) {
          const Ordinal me = wave_of(c, {o, bx, by, bz}, g.nbz);
          const int ux = bx - dir(o, 0), uy = by - dir(o, 1), uz = bz - dir(o, 2);
          const auto column_of = [&](int x, int y) {
            return cs[std::size_t(rank_of(x, y, g.nbx, g.nby, g.px, g.py))];
          };
          if (ux >= 0 && ux < g.nbx) deps.push_back({wave_of(column_of(ux, by), {o, ux, by, bz}, g.nbz), me});
          if (uy >= 0 && uy < g.nby) deps.push_back({wave_of(column_of(bx, uy), {o, bx, uy, bz}, g.nbz), me});
          if (uz >= 0 && uz < g.nbz) deps.push_back({wave_of(c, {o, bx, by, uz}, g.nbz), me});
        }
  return deps;
}

/// One rank's angular flux and the inflow faces other ranks send it.
struct RankData {
  Kokkos::View<double****, Kokkos::LayoutRight, Memory> psi;      ///< (o, k, jl, il)
  Kokkos::View<double***, Kokkos::LayoutRight, Memory> ghost_x;   ///< (o, k, jl): the x inflow face
  Kokkos::View<double***, Kokkos::LayoutRight, Memory> ghost_y;   ///< (o, k, il): the y inflow face
  Kokkos::View<Column*, Memory> columns;                          ///< every rank's column
  Column mine;
  int nx = 0, ny = 0, nz = 0, nbz = 0, bs = 0, ranks = 1;

  RankData() = default;
  RankData(const Grid& g, int rank)
      : nx(g.nx()), ny(g.ny()), nz(g.nz()), nbz(g.nbz), bs(g.bs), ranks(g.px * g.py) {
    const auto cs = g.columns();
    mine = cs[std::size_t(rank)];
    const int lx = mine.lbx * g.bs, ly = mine.lby * g.bs;
    psi = decltype(psi)("kba::psi", 8, nz, ly, lx);
    ghost_x = decltype(ghost_x)("kba::ghost_x", 8, nz, ly);
    ghost_y = decltype(ghost_y)("kba::ghost_y", 8, nz, lx);
    columns = decltype(columns)("kba::columns", cs.size());
    auto h = Kokkos::create_mirror_view(columns);
    for (std::size_t i = 0; i < cs.size(); ++i) h(i) = cs[i];
    Kokkos::deep_copy(columns, h);
  }

  /// Upwind value of cell (i, j, k) (global) in direction `axis`.
  KOKKOS_INLINE_FUNCTION double upwind(int o, int i, int j, int k, int axis) const {
    const int ui = axis == 0 ? i - dir(o, 0) : i, uj = axis == 1 ? j - dir(o, 1) : j,
              uk = axis == 2 ? k - dir(o, 2) : k;
    if (ui < 0 || ui >= nx || uj < 0 || uj >= ny || uk < 0 || uk >= nz) return inflow(o);
    const int il = ui - mine.bx0 * bs, jl = uj - mine.by0 * bs;
    if (il < 0 || il >= mine.lbx * bs) return ghost_x(o, uk, j - mine.by0 * bs);
    if (jl < 0 || jl >= mine.lby * bs) return ghost_y(o, uk, i - mine.bx0 * bs);
    return psi(o, uk, jl, il);
  }

  /// Sweeps one block plane by plane (cells of a plane are independent).
  KOKKOS_INLINE_FUNCTION void sweep_block(const team_member& team, const Block& b) const {
    const int n = bs, o = b.o;
    for (int p = 0; p <= 3 * (n - 1); ++p) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * n), [&](const int ab) {
        const int di = ab % n, dj = ab / n, dk = p - di - dj;
        if (dk < 0 || dk >= n) return;
        // block-local offsets counted along the sweep direction
        const int i = b.bx * bs + (dir(o, 0) > 0 ? di : n - 1 - di);
        const int j = b.by * bs + (dir(o, 1) > 0 ? dj : n - 1 - dj);
        const int k = b.bz * bs + (dir(o, 2) > 0 ? dk : n - 1 - dk);
        psi(o, k, j - mine.by0 * bs, i - mine.bx0 * bs) =
            cell_value(i, j, k, upwind(o, i, j, k, 0), upwind(o, i, j, k, 1), upwind(o, i, j, k, 2));
      });
      team.team_barrier();
    }
  }

  /// The downwind face of block `from` toward block `to` (x or y neighbour) as bs*bs doubles.
  KOKKOS_INLINE_FUNCTION void pack_face(const Block& from, const Block& to, double* face) const {
    const int n = bs;
    const bool x = from.bx != to.bx;
    const int edge = x ? (dir(from.o, 0) > 0 ? from.bx * n + n - 1 : from.bx * n)
                       : (dir(from.o, 1) > 0 ? from.by * n + n - 1 : from.by * n);
    for (int dk = 0; dk < n; ++dk)
      for (int d = 0; d < n; ++d) {
        const int k = from.bz * n + dk;
        face[dk * n + d] = x ? psi(from.o, k, from.by * n + d - mine.by0 * n, edge - mine.bx0 * n)
                             : psi(from.o, k, edge - mine.by0 * n, from.bx * n + d - mine.bx0 * n);
      }
  }
  /// The inflow face of block `to` from block `from`, into the ghost faces.
  KOKKOS_INLINE_FUNCTION void unpack_face(const Block& from, const Block& to, const double* face) const {
    const int n = bs;
    const bool x = from.bx != to.bx;
    for (int dk = 0; dk < n; ++dk)
      for (int d = 0; d < n; ++d) {
        const int k = to.bz * n + dk;
        if (x) ghost_x(to.o, k, to.by * n + d - mine.by0 * n) = face[dk * n + d];
        else ghost_y(to.o, k, to.bx * n + d - mine.bx0 * n) = face[dk * n + d];
      }
  }
};

/// The wave functor: global wave id -> its block, swept by the team.
struct SweepWave {
  RankData d;
  KOKKOS_FUNCTION strata::TaskState operator()(const team_member& team, const Ordinal w) const {
    d.sweep_block(team, block_of(d.columns, d.ranks, d.nbz, w));
    return strata::TaskState::Completed;
  }
};

/// The message hook: a cross-rank dependency carries the upstream block's downwind face.
struct FaceMessages {
  RankData d;
  KOKKOS_FUNCTION void pack(Ordinal before, Ordinal after, char* slot) const {
    d.pack_face(block_of(d.columns, d.ranks, d.nbz, before), block_of(d.columns, d.ranks, d.nbz, after),
                reinterpret_cast<double*>(slot));
  }
  KOKKOS_FUNCTION void unpack(Ordinal before, Ordinal after, const char* slot) const {
    d.unpack_face(block_of(d.columns, d.ranks, d.nbz, before), block_of(d.columns, d.ranks, d.nbz, after),
                  reinterpret_cast<const double*>(slot));
  }
};

/// The serial sweep of the whole mesh, every octant, in one thread of `space`
/// (the same cell arithmetic): psi(o, k, j, i).
inline Kokkos::View<double****, Kokkos::LayoutRight, Memory> serial_sweep(const Space& space,
                                                                          const Grid& g) {
  const int nx = g.nx(), ny = g.ny(), nz = g.nz();
  Kokkos::View<double****, Kokkos::LayoutRight, Memory> psi("kba::serial_psi", 8, nz, ny, nx);
  Kokkos::parallel_for(
      "kba::serial_sweep", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) {
        for (int o = 0; o < 8; ++o)
          for (int a = 0; a < nz; ++a)
            for (int b = 0; b < ny; ++b)
              for (int c = 0; c < nx; ++c) {
                const int k = dir(o, 2) > 0 ? a : nz - 1 - a;
                const int j = dir(o, 1) > 0 ? b : ny - 1 - b;
                const int i = dir(o, 0) > 0 ? c : nx - 1 - c;
                const int ui = i - dir(o, 0), uj = j - dir(o, 1), uk = k - dir(o, 2);
                const double west = ui >= 0 && ui < nx ? psi(o, k, j, ui) : inflow(o);
                const double south = uj >= 0 && uj < ny ? psi(o, k, uj, i) : inflow(o);
                const double below = uk >= 0 && uk < nz ? psi(o, uk, j, i) : inflow(o);
                psi(o, k, j, i) = cell_value(i, j, k, west, south, below);
              }
      });
  space.fence();
  return psi;
}

}  // namespace kba
