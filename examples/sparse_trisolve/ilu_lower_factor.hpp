#pragma once
// The test matrix of the sparse lower-triangular solve, shared by the example
// (examples/sparse_trisolve) and the benchmark (perf_test/strata_execute_bench):
//
//   L = the lower factor of ILU(0) of the 7-point Laplacian on an n x n x n grid
//       under the random symmetric permutation of `strata gen ilu3d n n n SEED`
//       (strata::generate::ilu3d): L's strictly lower pattern is that graph's
//       dependencies (row i lists every column j < i it waits for, ascending),
//       plus the diagonal, stored LAST in each row (Kokkos Kernels' sorted
//       convention).
//   values: deterministic; off-diagonals in [-0.2, -0.1) from a hash of (i, j),
//       diagonal 1 + sum |off-diagonals| of the row: strictly diagonally
//       dominant, so L is well conditioned (|x|_inf <= |b|_inf).
//
// Rows are grouped into waves of `rows_per_wave` consecutive rows (the pattern's
// ids are a topological order, so the rows of one wave are solved in order by
// one thread); wave B waits for wave A != B whenever a row of B reads a column
// of A. A header, not library code: Strata itself knows nothing of matrices.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/generate/graph_generators.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata_example {

/// Host CSR of L (int offsets and columns: Kokkos Kernels' handle types).
struct LowerFactor {
  std::int64_t rows = 0;
  std::vector<int> row_map;   ///< rows + 1
  std::vector<int> entries;   ///< ascending per row, diagonal last
  std::vector<double> values;
  std::int64_t nonzeros() const { return static_cast<std::int64_t>(entries.size()); }
};

inline double hashed_unit(std::uint64_t i, std::uint64_t j) {
  strata::generate::SplitMix64 rng(i * 0x9e3779b97f4a7c15ull ^ (j + 0x632be59bd9b4e019ull));
  return static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
}

/// L of the ilu3d n x n x n pattern (seed as `strata gen ilu3d`).
inline LowerFactor ilu3d_lower_factor(std::uint64_t n, std::uint64_t seed = 1) {
  const strata::generate::GeneratedGraph pattern = strata::generate::ilu3d(n, n, n, seed);
  if (pattern.wave_count + pattern.dependencies.size() > 0x7fffffffull)
    throw std::invalid_argument("ilu3d_lower_factor: n = " + std::to_string(n) +
                                " gives more than 2^31 - 1 nonzeros for int offsets");
  LowerFactor L;
  L.rows = static_cast<std::int64_t>(pattern.wave_count);
  L.row_map.assign(static_cast<std::size_t>(L.rows) + 1, 0);
  L.entries.reserve(pattern.wave_count + pattern.dependencies.size());
  L.values.reserve(L.entries.capacity());
  // The generator lists the dependencies row by row, columns ascending.
  std::size_t d = 0;
  for (std::int64_t row = 0; row < L.rows; ++row) {
    double off_sum = 0.0;
    for (; d < pattern.dependencies.size() &&
           pattern.dependencies[d].after == static_cast<std::uint64_t>(row);
         ++d) {
      const std::uint64_t col = pattern.dependencies[d].before;
      const double v = -(0.1 + 0.1 * hashed_unit(static_cast<std::uint64_t>(row), col));
      L.entries.push_back(static_cast<int>(col));
      L.values.push_back(v);
      off_sum += -v;
    }
    L.entries.push_back(static_cast<int>(row));
    L.values.push_back(1.0 + off_sum);
    L.row_map[static_cast<std::size_t>(row) + 1] = static_cast<int>(L.entries.size());
  }
  if (d != pattern.dependencies.size())
    throw std::logic_error("ilu3d_lower_factor: the pattern is not listed row by row");
  return L;
}

/// A deterministic right-hand side in [1, 2).
inline std::vector<double> rhs_of(const LowerFactor& L) {
  std::vector<double> b(static_cast<std::size_t>(L.rows));
  for (std::int64_t i = 0; i < L.rows; ++i) b[static_cast<std::size_t>(i)] = 1.0 + hashed_unit(static_cast<std::uint64_t>(i), 0x5eedu);
  return b;
}

/// The reference: serial forward substitution, row by row, each row's sum in
/// entry order (the order every solver below uses).
inline std::vector<double> forward_substitution(const LowerFactor& L, const std::vector<double>& b) {
  std::vector<double> x(static_cast<std::size_t>(L.rows));
  for (std::int64_t i = 0; i < L.rows; ++i) {
    double sum = b[static_cast<std::size_t>(i)];
    const int end = L.row_map[static_cast<std::size_t>(i) + 1] - 1;  // the diagonal
    for (int p = L.row_map[static_cast<std::size_t>(i)]; p < end; ++p)
      sum -= L.values[static_cast<std::size_t>(p)] * x[static_cast<std::size_t>(L.entries[static_cast<std::size_t>(p)])];
    x[static_cast<std::size_t>(i)] = sum / L.values[static_cast<std::size_t>(end)];
  }
  return x;
}

/// max_i |x_i - ref_i| / max_i |ref_i| (NaN if any x_i is NaN).
template <class X>
double relative_error(const X& x, const std::vector<double>& ref) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = std::fabs(x[i] - ref[i]);
    if (d != d) return d;
    diff = std::max(diff, d);
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

/// Waves of `rows_per_wave` consecutive rows: wave count and the dependencies
/// between them (each pair once, listed wave by wave, `before` ascending).
inline std::uint64_t wave_count_of(const LowerFactor& L, std::uint64_t rows_per_wave) {
  return (static_cast<std::uint64_t>(L.rows) + rows_per_wave - 1) / rows_per_wave;
}

inline std::vector<strata::WaveDependency<std::uint32_t>> wave_dependencies(
    const LowerFactor& L, std::uint64_t rows_per_wave) {
  std::vector<strata::WaveDependency<std::uint32_t>> deps;
  std::vector<std::uint32_t> before;
  const std::uint64_t waves = wave_count_of(L, rows_per_wave);
  for (std::uint64_t w = 0; w < waves; ++w) {
    before.clear();
    const std::uint64_t r1 = std::min<std::uint64_t>((w + 1) * rows_per_wave, static_cast<std::uint64_t>(L.rows));
    for (std::uint64_t r = w * rows_per_wave; r < r1; ++r)
      for (int p = L.row_map[r]; p < L.row_map[r + 1] - 1; ++p) {
        const std::uint64_t src = static_cast<std::uint64_t>(L.entries[static_cast<std::size_t>(p)]) / rows_per_wave;
        if (src != w) before.push_back(static_cast<std::uint32_t>(src));
      }
    std::sort(before.begin(), before.end());
    before.erase(std::unique(before.begin(), before.end()), before.end());
    for (const std::uint32_t s : before) deps.push_back({s, static_cast<std::uint32_t>(w)});
  }
  return deps;
}

/// L, b and x in the memory of MemorySpace.
template <class MemorySpace>
struct DeviceFactor {
  Kokkos::View<const int*, MemorySpace> row_map, entries;
  Kokkos::View<const double*, MemorySpace> values, b;
  Kokkos::View<double*, MemorySpace> x;
};

template <class MemorySpace>
DeviceFactor<MemorySpace> to_device(const LowerFactor& L, const std::vector<double>& b) {
  auto copy = [](const auto& v, const char* label) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    Kokkos::View<T*, MemorySpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
    Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()));
    return d;
  };
  DeviceFactor<MemorySpace> f;
  f.row_map = copy(L.row_map, "L row_map");
  f.entries = copy(L.entries, "L entries");
  f.values = copy(L.values, "L values");
  f.b = copy(b, "b");
  f.x = Kokkos::View<double*, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("x")), b.size());
  return f;
}

/// Solves row r of the factor: x(r) = (b(r) - sum of L(r, j) x(j)) / L(r, r).
template <class MemorySpace>
KOKKOS_INLINE_FUNCTION void solve_row(const DeviceFactor<MemorySpace>& f, const std::int64_t r) {
  double sum = f.b(r);
  const std::int64_t end = f.row_map(r + 1) - 1;  // the diagonal
  for (std::int64_t p = f.row_map(r); p < end; ++p) sum -= f.values(p) * f.x(f.entries(p));
  f.x(r) = sum / f.values(end);
}

/// The wave body: solves the rows of one wave in order (one thread).
template <class MemorySpace>
struct SolveRows {
  DeviceFactor<MemorySpace> f;
  std::int64_t rows_per_wave;
  std::int64_t rows;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint32_t wave) const {
    const std::int64_t r0 = static_cast<std::int64_t>(wave) * rows_per_wave;
    const std::int64_t r1 = r0 + rows_per_wave < rows ? r0 + rows_per_wave : rows;
    for (std::int64_t r = r0; r < r1; ++r) solve_row(f, r);
  }
};

/// What a staged wave (strata::Executor's staged form) reads of its first
/// row before the row's columns are solved: nothing a wave writes, so the
/// persistent mode loads it while the barrier before the row's group is
/// crossed, and after the barrier only x is left to load.
struct PreparedRow {
  static constexpr int cached = 3;  ///< off-diagonal entries kept (the 7-point factor has 3)
  double b = 0, diagonal = 1;
  std::int64_t first = 0, end = 0;  ///< the off-diagonal entries [first, end)
  int column[cached] = {};
  double value[cached] = {};
};

/// SolveRows in the staged form: the same arithmetic in the same order
/// (bitwise the same x), the first row's data from prepare().
template <class MemorySpace>
struct SolveRowsStaged {
  DeviceFactor<MemorySpace> f;
  std::int64_t rows_per_wave;
  std::int64_t rows;
  KOKKOS_INLINE_FUNCTION PreparedRow prepare(const std::uint32_t wave) const {
    PreparedRow p;
    const std::int64_t r = static_cast<std::int64_t>(wave) * rows_per_wave;
    p.first = f.row_map(r);
    p.end = f.row_map(r + 1) - 1;  // the diagonal
    p.b = f.b(r);
    p.diagonal = f.values(p.end);
    for (int k = 0; k < PreparedRow::cached; ++k)
      if (p.first + k < p.end) {
        p.column[k] = f.entries(p.first + k);
        p.value[k] = f.values(p.first + k);
      }
    return p;
  }
  /// The unstaged form: both halves back to back.
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint32_t wave) const { (*this)(wave, prepare(wave)); }
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint32_t wave, const PreparedRow& p) const {
    const std::int64_t r0 = static_cast<std::int64_t>(wave) * rows_per_wave;
    const std::int64_t r1 = r0 + rows_per_wave < rows ? r0 + rows_per_wave : rows;
    double sum = p.b;
    for (int k = 0; k < PreparedRow::cached; ++k)
      if (p.first + k < p.end) sum -= p.value[k] * f.x(p.column[k]);
    for (std::int64_t q = p.first + PreparedRow::cached; q < p.end; ++q)
      sum -= f.values(q) * f.x(f.entries(q));
    f.x(r0) = sum / p.diagonal;
    for (std::int64_t r = r0 + 1; r < r1; ++r) solve_row(f, r);
  }
};

}  // namespace strata_example
