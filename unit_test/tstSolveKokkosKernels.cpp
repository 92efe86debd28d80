// strata::kokkos_kernels::sptrsv_solve (the drop-in solve on a Kokkos Kernels
// handle) against Kokkos Kernels' own sptrsv_solve on TEST_EXECSPACE: lower
// and upper triangles, every level-set algorithm, the handle filled by
// Strata's symbolic phase or by Kokkos Kernels' own; x the same to 1e-14
// relative. Misuse and bad matrices are typed errors that leave x untouched.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/kokkos_kernels/sptrsv_solve.hpp>
#include <strata/kokkos_kernels/sptrsv_symbolic.hpp>

#include "kokkos_kernels_sptrsv.hpp"
#include "test_backend.hpp"
#include "test_helpers.hpp"

namespace strata::test {
namespace {

using strata_sptrsv_test::HostCsr;
using Space = TEST_EXECSPACE;
using Mem = Kokkos::Device<Space, Space::memory_space>;
using Handle = strata_sptrsv_test::KkHandle<Space>;
using Algorithm = strata_sptrsv_test::KkAlgorithm;
using DeviceCsr = strata_sptrsv_test::DeviceCsr<Mem>;
using strata_sptrsv_test::kk_solve;
using strata_sptrsv_test::kk_symbolic;

std::vector<double> host(const Kokkos::View<double*, Mem>& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

void expect_same_as_kokkos_kernels(const HostCsr& a, bool lower, const std::string& name) {
  const DeviceCsr d(a);
  const auto b = strata::test::to_device<Mem>(strata_sptrsv_test::rhs_of(a.rows), "b");
  for (const Algorithm algorithm :
       {Algorithm::SEQLVLSCHD_RP, Algorithm::SEQLVLSCHD_TP1, Algorithm::SEQLVLSCHD_TP1CHAIN}) {
    for (const bool strata_symbolic : {true, false}) {
      Handle kh;
      kh.create_sptrsv_handle(algorithm, a.rows, lower);
      if (strata_symbolic) strata::kokkos_kernels::sptrsv_symbolic(&kh, d.row_map, d.entries);
      else kk_symbolic(kh, d.row_map, d.entries);
      Kokkos::View<double*, Mem> x_kk("x kk", a.rows), x("x", a.rows);
      kk_solve(kh, d.row_map, d.entries, d.values, b, x_kk);
      strata::kokkos_kernels::sptrsv_solve(&kh, d.row_map, d.entries, d.values, b, x);
      const std::vector<double> want = host(x_kk), got = host(x);
      double diff = 0, norm = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        diff = std::max(diff, std::abs(got[i] - want[i]));
        norm = std::max(norm, std::abs(want[i]));
      }
      EXPECT_LE(diff, 1e-14 * norm) << name << " algorithm " << static_cast<int>(algorithm)
                                    << (strata_symbolic ? " (Strata's symbolic)" : " (KK's symbolic)");
      kh.destroy_sptrsv_handle();
    }
  }
}

TEST(SolveKokkosKernels, DropInSolveMatchesKokkosKernels) {
  namespace g = strata::generate;
  const std::vector<std::pair<std::string, HostCsr>> matrices = {
      {"sweep2d 40x30", strata_sptrsv_test::lower_from_pattern(g::sweep2d(40, 30))},
      {"ilu3d 10", strata_sptrsv_test::lower_from_pattern(g::ilu3d(10, 10, 10, 1))},
      {"random 800", strata_sptrsv_test::random_lower(800, 5, 17)},
      {"sweep2d 3x150 (narrow, deep)", strata_sptrsv_test::lower_from_pattern(g::sweep2d(3, 150))}};
  for (const auto& [name, lower] : matrices) {
    expect_same_as_kokkos_kernels(lower, true, name + " lower");
    expect_same_as_kokkos_kernels(strata_sptrsv_test::transpose(lower), false, name + " upper");
  }
}

TEST(SolveKokkosKernels, MisuseAndBadMatricesAreTypedErrorsLeavingXUntouched) {
  HostCsr a = strata_sptrsv_test::random_lower(100, 3, 5);
  const DeviceCsr d(a);
  const auto b = strata::test::to_device<Mem>(strata_sptrsv_test::rhs_of(a.rows), "b");
  Kokkos::View<double*, Mem> x("x", a.rows);
  Kokkos::deep_copy(x, 7.0);
  Handle kh;
  expect_plan_error(ErrorKind::InvalidArgument, [&] {
    strata::kokkos_kernels::sptrsv_solve(&kh, d.row_map, d.entries, d.values, b, x);
  });
  kh.create_sptrsv_handle(Algorithm::SEQLVLSCHD_TP1, a.rows, true);
  expect_plan_error(ErrorKind::InvalidArgument, [&] {  // no symbolic phase yet
    strata::kokkos_kernels::sptrsv_solve(&kh, d.row_map, d.entries, d.values, b, x);
  });
  strata::kokkos_kernels::sptrsv_symbolic(&kh, d.row_map, d.entries);
  // A zero diagonal in row 42.
  for (int p = a.row_map[42]; p < a.row_map[43]; ++p)
    if (a.entries[p] == 42) a.values[p] = 0.0;
  const auto zero = strata::test::to_device<Mem>(a.values, "values");
  const PlanError e = expect_plan_error(ErrorKind::InvalidArgument, [&] {
    strata::kokkos_kernels::sptrsv_solve(&kh, d.row_map, d.entries, zero, b, x);
  });
  EXPECT_NE(std::string(e.what()).find("row 42 "), std::string::npos) << e.what();
  // Another matrix's schedule: a chain's rows solved with a diagonal matrix's levels.
  const HostCsr chain = strata_sptrsv_test::lower_from_pattern(strata::generate::chain(100));
  const DeviceCsr c(chain);
  expect_plan_error(ErrorKind::InvalidArgument, [&] {
    strata::kokkos_kernels::sptrsv_solve(&kh, c.row_map, c.entries, c.values, b, x);
  });
  for (const double v : host(x)) ASSERT_EQ(v, 7.0);
  kh.destroy_sptrsv_handle();
}

}  // namespace
}  // namespace strata::test
