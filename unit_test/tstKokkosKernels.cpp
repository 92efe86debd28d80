// strata::kokkos_kernels::sptrsv_symbolic against Kokkos Kernels' own
// symbolic phase, on TEST_EXECSPACE: for generated lower and upper triangular
// matrices and every level-set algorithm, every field the symbolic phase
// writes equals Kokkos Kernels' (device and host copies), the level counts
// equal a plain host reference, and Kokkos Kernels' sptrsv_solve gives
// bitwise the same x with either schedule. Bad matrices and handles are typed
// errors that leave the handle as it was.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/error.hpp>
#include <strata/kokkos_kernels/sptrsv_symbolic.hpp>

#include "kokkos_kernels_sptrsv.hpp"
#include "test_backend.hpp"
#include "test_helpers.hpp"

namespace strata::test {
namespace {

using strata_sptrsv_test::HostCsr;
using Space = TEST_EXECSPACE;
using Mem = Kokkos::Device<Space, Space::memory_space>;  // the Views' execution space is the handle's
using Handle = strata_sptrsv_test::KkHandle<Space>;
using Algorithm = strata_sptrsv_test::KkAlgorithm;
using DeviceCsr = strata_sptrsv_test::DeviceCsr<Mem>;

template <class View>
std::vector<typename View::non_const_value_type> host_vector(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

/// x of Kokkos Kernels' solve with the handle's schedule.
std::vector<double> kk_solve(Handle& kh, const DeviceCsr& a, const std::vector<double>& b) {
  const auto bd = strata::test::to_device<Mem>(b, "b");
  Kokkos::View<double*, Mem> x("x", b.size());
  strata_sptrsv_test::kk_solve(kh, a.row_map, a.entries, a.values, bd, x);
  Kokkos::fence();
  return host_vector(x);
}

struct Setup {
  Algorithm algorithm;
  int chain_threshold;  ///< -1: leave the handle's default
  const char* name;
};

const Setup setups[] = {{Algorithm::SEQLVLSCHD_RP, -1, "SEQLVLSCHD_RP"},
                        {Algorithm::SEQLVLSCHD_TP1, -1, "SEQLVLSCHD_TP1"},
                        {Algorithm::SEQLVLSCHD_TP1CHAIN, -1, "SEQLVLSCHD_TP1CHAIN"},
                        {Algorithm::SEQLVLSCHD_TP1CHAIN, 1, "SEQLVLSCHD_TP1CHAIN threshold 1"}};

void create(Handle& kh, const Setup& s, int rows, bool lower) {
  kh.create_sptrsv_handle(s.algorithm, rows, lower);
  if (s.chain_threshold >= 0) {
    kh.get_sptrsv_handle()->set_team_size(1);  // a team of 1 runs on every backend
    kh.get_sptrsv_handle()->reset_chain_threshold(s.chain_threshold);
  }
}

/// Every field Kokkos Kernels' symbolic phase writes, and the solve.
void expect_same_schedule(const HostCsr& a, bool lower, const std::string& what) {
  const DeviceCsr d(a);
  const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  std::vector<int> per_level;
  strata_sptrsv_test::host_levels(a, lower, &per_level);
  for (const Setup& s : setups) {
    SCOPED_TRACE(what + (lower ? " lower " : " upper ") + s.name);
    Handle theirs, ours;
    create(theirs, s, a.rows, lower);
    create(ours, s, a.rows, lower);
    strata_sptrsv_test::kk_symbolic(theirs, d.row_map, d.entries);
    kokkos_kernels::sptrsv_symbolic(&ours, d.row_map, d.entries);
    auto* t = theirs.get_sptrsv_handle();
    auto* o = ours.get_sptrsv_handle();
    ASSERT_TRUE(o->is_symbolic_complete());
    ASSERT_EQ(o->get_num_levels(), t->get_num_levels());
    ASSERT_EQ(o->get_num_levels(), per_level.size());  // the host reference
    EXPECT_EQ(host_vector(o->get_nodes_per_level()), host_vector(t->get_nodes_per_level()));
    EXPECT_EQ(host_vector(o->get_host_nodes_per_level()), host_vector(t->get_host_nodes_per_level()));
    const auto counts = host_vector(o->get_host_nodes_per_level());
    EXPECT_EQ(std::vector<int>(counts.begin(), counts.begin() + per_level.size()), per_level);
    EXPECT_EQ(host_vector(o->get_nodes_grouped_by_level()),
              host_vector(t->get_nodes_grouped_by_level()));
    EXPECT_EQ(host_vector(o->get_host_nodes_grouped_by_level()),
              host_vector(t->get_host_nodes_grouped_by_level()));
    EXPECT_EQ(host_vector(o->get_level_list()), host_vector(t->get_level_list()));
    EXPECT_EQ(o->get_chain_threshold(), t->get_chain_threshold());
    EXPECT_EQ(o->get_team_size(), t->get_team_size());
    if (s.algorithm == Algorithm::SEQLVLSCHD_TP1CHAIN) {
      ASSERT_EQ(o->get_num_chain_entries(), t->get_num_chain_entries());
      const auto oc = o->get_host_chain_ptr();
      const auto tc = t->get_host_chain_ptr();
      ASSERT_EQ(oc.extent(0), tc.extent(0));
      for (int c = 0; a.rows > 0 && c <= o->get_num_chain_entries(); ++c)
        EXPECT_EQ(oc(c), tc(c)) << "chain offset " << c;
    }
    const std::vector<double> x_theirs = kk_solve(theirs, d, b);
    const std::vector<double> x_ours = kk_solve(ours, d, b);
    ASSERT_EQ(x_ours.size(), x_theirs.size());
    EXPECT_EQ(0, std::memcmp(x_ours.data(), x_theirs.data(), x_ours.size() * sizeof(double)))
        << "the solve with Strata's schedule is not bitwise Kokkos Kernels'";
  }
}

void expect_both_triangles(const HostCsr& lower, const std::string& what) {
  expect_same_schedule(lower, true, what);
  expect_same_schedule(strata_sptrsv_test::transpose(lower), false, what);
}

HostCsr csr(int rows, const std::vector<std::vector<int>>& cols) {
  HostCsr a;
  a.rows = rows;
  for (const auto& r : cols) {
    a.entries.insert(a.entries.end(), r.begin(), r.end());
    a.row_map.push_back(static_cast<int>(a.entries.size()));
  }
  strata_sptrsv_test::assign_values(a);
  return a;
}

TEST(KokkosKernelsSptrsv, Ilu2dPatternsMatchKokkosKernels) {
  expect_both_triangles(strata_sptrsv_test::lower_from_pattern(generate::ilu2d(12, 10, 3)), "ilu2d 12x10");
  expect_both_triangles(strata_sptrsv_test::lower_from_pattern(generate::ilu2d(1, 9, 5)), "ilu2d 1x9");
}

TEST(KokkosKernelsSptrsv, Ilu3dPatternsMatchKokkosKernels) {
  expect_both_triangles(strata_sptrsv_test::lower_from_pattern(generate::ilu3d(6, 5, 4, 7)), "ilu3d 6x5x4");
}

TEST(KokkosKernelsSptrsv, RandomLowerTriangularMatchesKokkosKernels) {
  for (std::uint64_t seed : {11u, 12u, 13u})
    expect_both_triangles(strata_sptrsv_test::random_lower(300, 4, seed),
                          "random lower 300 seed " + std::to_string(seed));
  expect_both_triangles(strata_sptrsv_test::random_lower(64, 1, 5), "random lower 64 (sparse)");
}

/// `a` with every row's entries in reverse order (values assigned again).
HostCsr reversed_rows(HostCsr a) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(a.rows); ++i)
    std::reverse(a.entries.begin() + a.row_map[i], a.entries.begin() + a.row_map[i + 1]);
  strata_sptrsv_test::assign_values(a);
  return a;
}

TEST(KokkosKernelsSptrsv, UnsortedRowsMatchKokkosKernels) {
  // Rows sorted by column keep the diagonal last (lower) or first (upper);
  // the host pass reads such rows on a shorter path. Reversed, every row
  // keeps it at the other end and takes the general one. Lower triangular
  // only: Kokkos Kernels' upper phase takes each row's first entry for its
  // diagonal and skips it (the planner tests cover unsorted upper rows).
  for (std::uint64_t seed : {21u, 22u})
    expect_same_schedule(reversed_rows(strata_sptrsv_test::random_lower(300, 4, seed)), true,
                         "reversed rows, seed " + std::to_string(seed));
}

TEST(KokkosKernelsSptrsv, DeepMatrixMatchesKokkosKernels) {
  // 100 levels of 2 rows (row i waits for row i - 2), deeper than the device
  // pass's depth budget (PlanPolicy::ticket_depth_budget()): on a device
  // the rows are planned as a dependency list instead, with the same result.
  HostCsr a;
  a.rows = 200;
  for (int i = 0; i < a.rows; ++i) {
    if (i >= 2) a.entries.push_back(i - 2);
    a.entries.push_back(i);
    a.row_map.push_back(static_cast<int>(a.entries.size()));
  }
  strata_sptrsv_test::assign_values(a);
  ASSERT_GT(100u, PlanPolicy::standard().ticket_depth_budget() + 1);
  expect_both_triangles(a, "two interleaved chains of 100 rows");
}

TEST(KokkosKernelsSptrsv, DiagonalMatrixIsOneLevel) {
  HostCsr a;
  a.rows = 7;
  for (int i = 0; i < a.rows; ++i) {
    a.entries.push_back(i);
    a.row_map.push_back(i + 1);
  }
  strata_sptrsv_test::assign_values(a);
  expect_both_triangles(a, "diagonal 7");
}

// ---- errors -----------------------------------------------------------------

/// The error sptrsv_symbolic throws, checking that the handle stayed as it was.
PlanError error_of(const HostCsr& a, bool lower, Algorithm algorithm = Algorithm::SEQLVLSCHD_TP1) {
  const DeviceCsr d(a);
  Handle kh;
  kh.create_sptrsv_handle(algorithm, a.rows, lower);
  try {
    kokkos_kernels::sptrsv_symbolic(&kh, d.row_map, d.entries);
  } catch (const PlanError& e) {
    EXPECT_FALSE(kh.get_sptrsv_handle()->is_symbolic_complete());
    EXPECT_EQ(kh.get_sptrsv_handle()->get_num_levels(), 0u);
    return e;
  }
  ADD_FAILURE() << "no error";
  return PlanError::invalid_argument("none", "none");
}

void expect_error(const PlanError& e, const std::string& part) {
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  const std::string what = e.what();
  EXPECT_NE(what.find(part), std::string::npos) << what;
  EXPECT_NE(what.find(". Fix: "), std::string::npos) << what;
}

TEST(KokkosKernelsSptrsv, RepeatedDiagonalMatchesKokkosKernels) {
  // Row 3 stores its diagonal twice: the dependency list is recounted.
  expect_both_triangles(csr(6, {{0}, {1}, {0, 2}, {0, 1, 3, 3}, {2, 4}, {1, 5}}), "repeated diagonal");
}

TEST(KokkosKernelsSptrsv, NotTriangularIsTypedError) {
  // Row 2 holds column 3 (above the diagonal); row 3 also holds one: the first is named.
  const HostCsr a = csr(4, {{0}, {0, 1}, {1, 2, 3}, {2, 3, 0}});
  expect_error(error_of(a, true),
               "sptrsv_symbolic: row 2 of the lower triangular matrix (4 rows) holds column 3, "
               "above the diagonal: the matrix is not lower triangular. Fix: give only the lower "
               "triangle and the diagonal, or create the sptrsv handle with lower_tri = false");
  expect_error(error_of(a, false), "row 1 of the upper triangular matrix (4 rows) holds column 0, below the diagonal");
}

TEST(KokkosKernelsSptrsv, MissingDiagonalIsTypedError) {
  expect_error(error_of(csr(3, {{0}, {0}, {1, 2}}), true),
               "sptrsv_symbolic: row 1 of the lower triangular matrix (3 rows) has no diagonal "
               "entry. Fix: store the diagonal of every row");
  expect_error(error_of(csr(3, {{0, 2}, {1}, {}}), false), "row 2 of the upper triangular matrix (3 rows) has no diagonal entry");
}

TEST(KokkosKernelsSptrsv, ColumnOutOfRangeIsTypedError) {
  expect_error(error_of(csr(3, {{0}, {1}, {-1, 2}}), true), "row 2 of the lower triangular matrix (3 rows) holds column -1, outside 0..2");
  expect_error(error_of(csr(3, {{0, 7}, {1}, {2}}), false), "row 0 of the upper triangular matrix (3 rows) holds column 7, outside 0..2");
}

TEST(KokkosKernelsSptrsv, BadOffsetsAreTypedErrors) {
  HostCsr descending;
  descending.rows = 3;
  descending.row_map = {0, 2, 1, 3};
  descending.entries = {0, 0, 2};
  descending.values = {1.0, 1.0, 1.0};
  expect_error(error_of(descending, true),
               "row 1 of the lower triangular matrix (3 rows) spans offsets 2..1, which descend or "
               "leave entries (3 entries)");
  HostCsr past_the_end = descending;
  past_the_end.row_map = {0, 1, 5};
  past_the_end.rows = 2;
  expect_error(error_of(past_the_end, true), "sptrsv_symbolic: row_map runs from 0 to 5 but entries holds 3");
  HostCsr middle_past_the_end = descending;
  middle_past_the_end.row_map = {0, 9, 3, 3};
  expect_error(error_of(middle_past_the_end, false),
               "row 0 of the upper triangular matrix (3 rows) spans offsets 0..9, which descend or leave entries");
}

TEST(KokkosKernelsSptrsv, BadHandleIsTypedError) {
  const DeviceCsr d(csr(2, {{0}, {0, 1}}));
  Handle kh;
  try {
    kokkos_kernels::sptrsv_symbolic(&kh, d.row_map, d.entries);
    ADD_FAILURE() << "no error without an sptrsv handle";
  } catch (const PlanError& e) {
    expect_error(e, "has no sptrsv handle. Fix: call create_sptrsv_handle");
  }
  try {
    kokkos_kernels::sptrsv_symbolic(static_cast<Handle*>(nullptr), d.row_map, d.entries);
    ADD_FAILURE() << "no error for a null handle";
  } catch (const PlanError& e) {
    expect_error(e, "the KokkosKernelsHandle is null");
  }
  expect_error(error_of(csr(2, {{0}, {0, 1}}), true, Algorithm::SUPERNODAL_NAIVE),
               "is not a level-set algorithm. Fix: create the sptrsv handle with SEQLVLSCHD_RP");
}

TEST(KokkosKernelsSptrsv, ChainThatOverflowsKokkosKernelsChainPointerIsTypedError) {
  // One row per level and chain threshold 0: Kokkos Kernels' own phase would
  // write one chain offset past its n-entry chain pointer.
  expect_error(error_of(csr(3, {{0}, {0, 1}, {1, 2}}), true, Algorithm::SEQLVLSCHD_TP1CHAIN),
               "the 3 rows form 3 levels of one row each, and with chain threshold 0 "
               "SEQLVLSCHD_TP1CHAIN needs 4 chain offsets");
}

TEST(KokkosKernelsSptrsv, EmptyMatrixHasNoLevels) {
  const DeviceCsr d{HostCsr{}};
  Handle kh;
  kh.create_sptrsv_handle(Algorithm::SEQLVLSCHD_TP1, 0, true);
  kokkos_kernels::sptrsv_symbolic(&kh, d.row_map, d.entries);
  EXPECT_TRUE(kh.get_sptrsv_handle()->is_symbolic_complete());
  EXPECT_EQ(kh.get_sptrsv_handle()->get_num_levels(), 0u);
}

}  // namespace
}  // namespace strata::test
