#pragma once
// Triangular test matrices for the Kokkos Kernels sptrsv interop
// (unit_test/tstKokkosKernels.cpp, perf_test/strata_sptrsv_bench.cpp): host
// CSR with int offsets and columns (Kokkos Kernels' usual handle types),
// columns ascending in every row (so a lower factor stores its diagonal last
// and an upper one first, Kokkos Kernels' sorted convention), deterministic
// values: off-diagonals in [-0.2, -0.1) from a hash of (row, column), the
// diagonal 1 + the sum of the row's |off-diagonals| (strictly diagonally
// dominant, so every solve is well conditioned).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <strata/generate/graph_generators.hpp>

namespace strata_sptrsv_test {

struct HostCsr {
  int rows = 0;
  std::vector<int> row_map{0};  ///< rows + 1
  std::vector<int> entries;     ///< ascending per row where generated here
  std::vector<double> values;
};

inline double hashed_unit(std::uint64_t i, std::uint64_t j) {
  strata::generate::SplitMix64 rng(i * 0x9e3779b97f4a7c15ull ^ (j + 0x632be59bd9b4e019ull));
  return static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
}

/// Sets the values of a pattern (diagonal included) as described above.
inline void assign_values(HostCsr& a) {
  a.values.assign(a.entries.size(), 0.0);
  for (int i = 0; i < a.rows; ++i) {
    double off = 0.0;
    int diagonal = -1;
    for (int p = a.row_map[i]; p < a.row_map[i + 1]; ++p) {
      const int j = a.entries[p];
      if (j == i) {
        diagonal = p;
        continue;
      }
      a.values[p] = -(0.1 + 0.1 * hashed_unit(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j)));
      off -= a.values[p];
    }
    if (diagonal >= 0) a.values[diagonal] = 1.0 + off;
  }
}

/// L: row i holds the `before` of every dependency into wave i (the ids must
/// be a topological order), plus the diagonal. Duplicates are merged.
inline HostCsr lower_from_pattern(const strata::generate::GeneratedGraph& g) {
  if (g.wave_count + g.dependencies.size() > 0x7fffffffull)
    throw std::invalid_argument("lower_from_pattern: too large for int offsets");
  std::vector<std::vector<int>> rows(g.wave_count);
  for (const auto& d : g.dependencies) {
    if (d.before >= d.after) throw std::invalid_argument("lower_from_pattern: ids not topological");
    rows[d.after].push_back(static_cast<int>(d.before));
  }
  HostCsr a;
  a.rows = static_cast<int>(g.wave_count);
  for (int i = 0; i < a.rows; ++i) {
    auto& r = rows[i];
    r.push_back(i);
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    a.entries.insert(a.entries.end(), r.begin(), r.end());
    a.row_map.push_back(static_cast<int>(a.entries.size()));
    std::vector<int>().swap(r);
  }
  assign_values(a);
  return a;
}

/// The transpose of a lower factor: an upper factor (values reassigned).
inline HostCsr transpose(const HostCsr& a) {
  HostCsr t;
  t.rows = a.rows;
  t.row_map.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (int j : a.entries) ++t.row_map[static_cast<std::size_t>(j) + 1];
  for (int i = 0; i < a.rows; ++i) t.row_map[i + 1] += t.row_map[i];
  t.entries.resize(a.entries.size());
  std::vector<int> cursor(t.row_map.begin(), t.row_map.end() - 1);
  for (int i = 0; i < a.rows; ++i)  // rows in order: every column of t ends up ascending
    for (int p = a.row_map[i]; p < a.row_map[i + 1]; ++p) t.entries[cursor[a.entries[p]]++] = i;
  assign_values(t);
  return t;
}

/// A random lower factor: row i waits for up to `per_row` random rows < i.
inline HostCsr random_lower(int rows, int per_row, std::uint64_t seed) {
  strata::generate::GeneratedGraph g;
  g.wave_count = static_cast<std::uint64_t>(rows);
  strata::generate::SplitMix64 rng(seed);
  for (int i = 1; i < rows; ++i) {
    const std::uint64_t k = rng.below(static_cast<std::uint64_t>(per_row) + 1);
    for (std::uint64_t e = 0; e < k; ++e)
      g.dependencies.push_back({rng.below(static_cast<std::uint64_t>(i)), static_cast<std::uint64_t>(i)});
  }
  return lower_from_pattern(g);
}

/// A deterministic right-hand side in [1, 2).
inline std::vector<double> rhs_of(int rows) {
  std::vector<double> b(static_cast<std::size_t>(rows));
  for (int i = 0; i < rows; ++i) b[static_cast<std::size_t>(i)] = 1.0 + hashed_unit(static_cast<std::uint64_t>(i), 0x5eedu);
  return b;
}

/// The plain host reference: every row's level (longest path from a row
/// that waits for nothing; lower rows top-down, upper rows bottom-up) and
/// the number of rows per level.
inline std::vector<int> host_levels(const HostCsr& a, bool lower, std::vector<int>* per_level = nullptr) {
  std::vector<int> level(static_cast<std::size_t>(a.rows), 0);
  int depth = 0;
  for (int k = 0; k < a.rows; ++k) {
    const int i = lower ? k : a.rows - 1 - k;
    int l = 0;
    for (int p = a.row_map[i]; p < a.row_map[i + 1]; ++p)
      if (a.entries[p] != i) l = std::max(l, level[a.entries[p]] + 1);
    level[i] = l;
    depth = std::max(depth, l + 1);
  }
  if (per_level) {
    per_level->assign(static_cast<std::size_t>(depth), 0);
    for (int l : level) ++(*per_level)[static_cast<std::size_t>(l)];
  }
  return level;
}

}  // namespace strata_sptrsv_test
