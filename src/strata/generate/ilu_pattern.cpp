// ILU(0) lower-triangular patterns of the 2-D / 3-D Laplacian under a random
// symmetric permutation (see graph_generators.hpp).
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <strata/generate/graph_generators.hpp>

namespace strata::generate {

namespace {

/// Edge j -> i for every off-diagonal L(i,j) of P·A·Pᵀ, A the 5-point (nz == 1)
/// or 7-point stencil on nx x ny x nz. ILU(0) fills nothing outside A's
/// pattern, so L's strictly lower part is A's, renumbered by the permutation.
GeneratedGraph ilu_pattern(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz,
                           std::uint64_t seed, std::string description) {
  GeneratedGraph g;
  g.wave_count = nx * ny * nz;
  g.description = std::move(description);
  const std::uint64_t n = g.wave_count;
  // new_id[cell], cell_of[new id]: a random permutation (Fisher-Yates on splitmix64)
  std::vector<std::uint64_t> cell_of(n), new_id(n);
  std::iota(cell_of.begin(), cell_of.end(), std::uint64_t(0));
  SplitMix64 rng(seed);
  for (std::uint64_t i = n; i > 1; --i) std::swap(cell_of[i - 1], cell_of[rng.below(i)]);
  for (std::uint64_t i = 0; i < n; ++i) new_id[cell_of[i]] = i;

  g.dependencies.reserve(nz > 1 ? 3 * n : 2 * n);  // at most one edge per grid edge
  std::uint64_t lower[6];
  for (std::uint64_t row = 0; row < n; ++row) {  // row by row of P·A·Pᵀ
    const std::uint64_t c = cell_of[row];
    const std::uint64_t x = c % nx, y = (c / nx) % ny, z = c / (nx * ny);
    int count = 0;
    auto add = [&](std::uint64_t cell) {
      const std::uint64_t col = new_id[cell];
      if (col < row) lower[count++] = col;
    };
    if (x > 0) add(c - 1);
    if (x + 1 < nx) add(c + 1);
    if (y > 0) add(c - nx);
    if (y + 1 < ny) add(c + nx);
    if (z > 0) add(c - nx * ny);
    if (z + 1 < nz) add(c + nx * ny);
    std::sort(lower, lower + count);
    for (int k = 0; k < count; ++k) g.dependencies.push_back({lower[k], row});
  }
  return g;
}

}  // namespace

GeneratedGraph ilu2d(std::uint64_t nx, std::uint64_t ny, std::uint64_t seed) {
  return ilu_pattern(nx, ny, 1, seed,
                     "ilu2d " + std::to_string(nx) + "x" + std::to_string(ny) + " seed " +
                         std::to_string(seed));
}

GeneratedGraph ilu3d(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz, std::uint64_t seed) {
  return ilu_pattern(nx, ny, nz, seed,
                     "ilu3d " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                         std::to_string(nz) + " seed " + std::to_string(seed));
}

}  // namespace strata::generate
