// Kokkos Kernels' sparse triangular solve run by Strata: the two changed lines
// are strata::kokkos_kernels::sptrsv_symbolic and ::sptrsv_solve in place of
// KokkosSparse's (Kokkos Kernels' own solve would run unchanged on the handle
// Strata's symbolic phase filled).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_sptrsv.hpp>

#include <strata/kokkos_kernels/sptrsv_solve.hpp>
#include <strata/kokkos_kernels/sptrsv_symbolic.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  using Mem = Space::memory_space;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, double, Space, Mem, Mem>;

  // L: the lower triangle of the 5-point Laplacian on a g x g grid, diagonal last.
  const int g = argc > 1 ? std::atoi(argv[1]) : 64, n = g * g;
  std::vector<int> row_map{0}, entries;
  std::vector<double> values, b(n, 1.0);
  for (int i = 0; i < n; ++i) {
    if (i >= g) entries.push_back(i - g), values.push_back(-1.0);
    if (i % g) entries.push_back(i - 1), values.push_back(-1.0);
    entries.push_back(i), values.push_back(4.0);
    row_map.push_back(static_cast<int>(entries.size()));
  }
  auto device = [](auto& v) {
    Kokkos::View<typename std::decay_t<decltype(v)>::value_type*, Mem> d("L", v.size());
    Kokkos::deep_copy(d, Kokkos::View<decltype(v.data()), Kokkos::HostSpace>(v.data(), v.size()));
    return d;
  };
  auto d_row_map = device(row_map), d_entries = device(entries);
  auto d_values = device(values), d_b = device(b);
  Kokkos::View<double*, Mem> d_x("x", n);

  Handle kh;
  kh.create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n, true);
  // Was: KokkosSparse::sptrsv_symbolic(&kh, d_row_map, d_entries);
  strata::kokkos_kernels::sptrsv_symbolic(&kh, d_row_map, d_entries);
  // Was: KokkosSparse::sptrsv_solve(&kh, d_row_map, d_entries, d_values, d_b, d_x);
  strata::kokkos_kernels::sptrsv_solve(&kh, d_row_map, d_entries, d_values, d_b, d_x);

  // Check against forward substitution on the host.
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d_x);
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double r = b[i];
    for (int p = row_map[i]; p < row_map[i + 1]; ++p) r -= values[p] * x(entries[p]);
    worst = std::fmax(worst, std::fabs(r));
  }
  std::printf("%d rows in %d levels (Strata's schedule and solve), max residual %.1e\n", n,
              static_cast<int>(kh.get_sptrsv_handle()->get_num_levels()), worst);
  return worst < 1e-12 ? 0 : 1;
}
