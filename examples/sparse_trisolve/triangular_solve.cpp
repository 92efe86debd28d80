// strata::TriangularSolve: the library's sparse triangular solve, on the
// ILU(0) lower factor of the 7-point Laplacian on an N^3 grid (randomly
// permuted, ilu_lower_factor.hpp) and on its transpose (an upper factor):
// symbolic once, then solve for one right-hand side in every mode and for
// three right-hand sides at once. Each x must match the serial substitution
// to a relative error <= 1e-12 (docs/solve.md).
//
//   triangular_solve [N]   (default N = 12)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/solve/triangular_solve.hpp>

#include "ilu_lower_factor.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;

template <class T>
Kokkos::View<T*, Mem> device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*, Mem> d(std::string(label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace>(v.data(), v.size()));
  return d;
}

/// The serial substitution of the lower factor L (upper: of L^T, read by
/// columns of L from the bottom).
std::vector<double> reference(const strata_example::LowerFactor& L, const std::vector<double>& b,
                              bool upper) {
  const auto n = static_cast<std::size_t>(L.rows);
  std::vector<double> x(b);
  if (!upper) {
    for (std::size_t i = 0; i < n; ++i) {
      for (int p = L.row_map[i]; p < L.row_map[i + 1] - 1; ++p) x[i] -= L.values[p] * x[L.entries[p]];
      x[i] /= L.values[L.row_map[i + 1] - 1];
    }
  } else {  // U = L^T: x_i = (b_i - sum_{j > i} L(j, i) x_j) / L(i, i), rows from the bottom
    for (std::size_t k = n; k-- > 0;) {
      x[k] /= L.values[L.row_map[k + 1] - 1];
      for (int p = L.row_map[k]; p < L.row_map[k + 1] - 1; ++p) x[L.entries[p]] -= L.values[p] * x[k];
    }
  }
  return x;
}

double error_of(const Kokkos::View<double*, Mem>& x, const std::vector<double>& want) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::fmax(diff, std::fabs(h(i) - want[i]));
    norm = std::fmax(norm, std::fabs(want[i]));
  }
  return diff / norm;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 12;
  if (n < 1 || n > 200) {
    std::fprintf(stderr, "usage: triangular_solve [N in 1..200]\n");
    return 2;
  }
  const strata_example::LowerFactor L = strata_example::ilu3d_lower_factor(static_cast<std::uint64_t>(n));
  // U = L^T as CSR: row j of U holds column j of L.
  const auto rows = static_cast<std::size_t>(L.rows);
  std::vector<int> u_map(rows + 1, 0), u_entries(L.entries.size());
  std::vector<double> u_values(L.values.size());
  for (int c : L.entries) ++u_map[static_cast<std::size_t>(c) + 1];
  for (std::size_t i = 0; i < rows; ++i) u_map[i + 1] += u_map[i];
  std::vector<int> cursor(u_map.begin(), u_map.end() - 1);
  for (std::size_t i = 0; i < rows; ++i)
    for (int p = L.row_map[i]; p < L.row_map[i + 1]; ++p) {
      const int at = cursor[L.entries[p]]++;
      u_entries[at] = static_cast<int>(i);
      u_values[at] = L.values[p];
    }
  std::vector<double> b(rows);
  for (std::size_t i = 0; i < rows; ++i) b[i] = 1.0 + 0.001 * static_cast<double>(i % 1000);

  int failures = 0;
  const Space space;
  const auto d_b = device(b, "b");
  Kokkos::View<double*, Mem> x("x", rows);
  for (const bool upper : {false, true}) {
    const auto row_map = device(upper ? u_map : L.row_map, "row_map");
    const auto entries = device(upper ? u_entries : L.entries, "entries");
    const auto values = device(upper ? u_values : L.values, "values");
    const std::vector<double> want = reference(L, b, upper);

    // Structure once; the handle keeps the plan and its workspace.
    strata::TriangularSolve<Space, int, int, double> ts;
    ts.symbolic(space, row_map, entries,
                upper ? strata::solve::Triangle::Upper : strata::solve::Triangle::Lower);
    for (const auto mode : {strata::solve::SolveMode::Automatic, strata::solve::SolveMode::Layered,
                            strata::solve::SolveMode::Dataflow}) {
      ts.set_mode(mode);
      ts.solve(space, values, d_b, x);
      const double e = error_of(x, want);
      failures += e > 1e-12;
      std::printf("triangular_solve: %s, %zu rows, %llu levels, %-8s (%s): relative error %.2e%s\n",
                  upper ? "upper" : "lower", rows, static_cast<unsigned long long>(ts.level_count()),
                  strata::solve::solve_mode_name(mode), ts.schedule().reason.substr(0, 60).c_str(), e,
                  e > 1e-12 ? "  FAILED" : "");
    }
    // Three right-hand sides at once: a rank-2 LayoutLeft View, one column each.
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> B("B", rows, 3), X("X", rows, 3);
    for (int j = 0; j < 3; ++j) Kokkos::deep_copy(Kokkos::subview(B, Kokkos::ALL, j), d_b);
    ts.set_mode(strata::solve::SolveMode::Automatic);
    ts.solve(space, values, B, X);
    for (int j = 0; j < 3; ++j) {
      Kokkos::View<double*, Mem> column("column", rows);
      Kokkos::deep_copy(column, Kokkos::subview(X, Kokkos::ALL, j));
      failures += error_of(column, want) > 1e-12;
    }
  }
  std::printf("triangular_solve: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
