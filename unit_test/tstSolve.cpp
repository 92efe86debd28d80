// strata::solve::TriangularSolve on TEST_EXECSPACE: every mode forced and the
// policy's own choice, lower and upper triangles, unit and non-unit
// diagonals, the diagonal first, in the middle or last in its row, one and
// several right-hand sides, matrices from the generators and from small
// Matrix Market texts — each x against a plain host substitution. On a host
// backend every mode gives bitwise the same x. Bad matrices are typed errors
// naming row and column, and a failed solve leaves x untouched.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/solve/triangular_solve.hpp>

#include "sptrsv_matrices.hpp"
#include "test_backend.hpp"
#include "test_helpers.hpp"

namespace strata::test {
namespace {

using strata_sptrsv_test::HostCsr;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using Solve = strata::TriangularSolve<Space, int, int, double>;
using solve::Diagonal;
using solve::SolveMode;
using solve::Triangle;

constexpr bool host_backend =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;

/// Plain host substitution: rows in order (lower) or from the bottom
/// (upper), the diagonal wherever it sits in the row.
std::vector<double> host_solve(const HostCsr& a, const std::vector<double>& b, bool lower,
                               bool unit) {
  std::vector<double> x(b.size(), 0.0);
  for (int k = 0; k < a.rows; ++k) {
    const int i = lower ? k : a.rows - 1 - k;
    double sum = b[i], diagonal = 1.0;
    for (int p = a.row_map[i]; p < a.row_map[i + 1]; ++p) {
      if (a.entries[p] == i) {
        if (!unit) diagonal = a.values[p];
      } else {
        sum -= a.values[p] * x[a.entries[p]];
      }
    }
    x[i] = sum / diagonal;
  }
  return x;
}

double relative_error(const std::vector<double>& x, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::abs(x[i] - ref[i]));
    norm = std::max(norm, std::abs(ref[i]));
  }
  return norm == 0 ? diff : diff / norm;
}

struct DeviceCsr {
  Kokkos::View<int*, Mem> row_map, entries;
  Kokkos::View<double*, Mem> values;
};
DeviceCsr to_device(const HostCsr& a) {
  return {strata::test::to_device(a.row_map, "row_map"),
          strata::test::to_device(a.entries, "entries"),
          strata::test::to_device(a.values, "values")};
}

std::vector<double> host_vector(const Kokkos::View<double*, Mem>& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// Moves every row's diagonal to `where` (0 first, 1 middle, 2 last).
HostCsr with_diagonal_at(HostCsr a, int where) {
  for (int i = 0; i < a.rows; ++i) {
    const int begin = a.row_map[i], end = a.row_map[i + 1];
    int d = begin;
    while (d < end && a.entries[d] != i) ++d;
    if (d == end) continue;
    const int target = where == 0 ? begin : where == 2 ? end - 1 : begin + (end - begin) / 2;
    std::swap(a.entries[d], a.entries[target]);
    std::swap(a.values[d], a.values[target]);
  }
  return a;
}

/// Solves `a` in every mode and checks x against the host substitution;
/// returns the x of each mode.
std::vector<std::vector<double>> solve_every_mode(const HostCsr& a, bool lower, bool unit,
                                                  const std::string& name) {
  const DeviceCsr d = to_device(a);
  const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  const auto bd = strata::test::to_device(b, "b");
  const std::vector<double> ref = host_solve(a, b, lower, unit);
  std::vector<std::vector<double>> xs;
  // Every mode, and two policies beside the standard one: dataflow on every
  // worker whatever the widths (rule C off; on a device a whole resident
  // league in flight, rule A off), and auto with a low width for rule W
  // (mixed stretches on small matrices).
  solve::SolvePolicy all_workers;
  all_workers.serial_width_per_thread = 0;
  all_workers.device_lookahead_levels = 0;
  solve::SolvePolicy mixed;
  mixed.layered_min_width_host_per_thread = 4;
  mixed.layered_min_width_device = 8;
  mixed.min_dataflow_levels = 2;
  // Mixed stretches whose dataflow stretches run on every worker: they read
  // the ready flags the layered stretches before them set (on a device wide
  // levels run dataflow too, a row per lane: rule W).
  solve::SolvePolicy mixed_all_workers = mixed;
  mixed_all_workers.serial_width_per_thread = 0;
  // The device launch knobs (no effect on a host): layered stretches in one
  // launch (rule D), few rows in flight (rule A), a warp per ticket.
  solve::SolvePolicy one_launch = mixed;
  one_launch.device_wide_dataflow = false;  // wide levels layered on a device too
  one_launch.device_layered_one_launch = true;
  one_launch.device_lookahead_levels = 2;
  one_launch.device_dataflow_warps_per_team = 1;
  solve::SolvePolicy narrow_flight;
  narrow_flight.device_layered_one_launch = true;
  narrow_flight.device_lookahead_levels = 1;
  // Rule V off (no effect on a host): device dataflow rows wait on ready
  // flags, which the layered stretches before them set.
  solve::SolvePolicy flags_only = all_workers;
  flags_only.device_value_ready = false;
  solve::SolvePolicy mixed_flags = mixed_all_workers;
  mixed_flags.device_value_ready = false;
  mixed_flags.device_wide_dataflow = false;  // the layered stretches set the flags
  // Rule R's dataflow lanes forced (no effect on a host): a lane per row,
  // so up to a warp of rows that wait on each other share one warp (where
  // its lanes progress independently; a whole warp per row elsewhere), and
  // a whole warp per row, with the flags and with rule V.
  solve::SolvePolicy lane_rows = all_workers;
  lane_rows.device_dataflow_lanes = 1;
  solve::SolvePolicy lane_rows_flags = mixed_flags;
  lane_rows_flags.device_dataflow_lanes = 1;
  solve::SolvePolicy warp_rows = mixed_all_workers;
  warp_rows.device_dataflow_lanes = 64;
  // Rule P wherever it can run (no effect on a device or on one thread):
  // the rows in index order in blocks as small as the farthest read allows
  // (many blocks, many waits across them), and in blocks of at least 64.
  solve::SolvePolicy pipelined;
  pipelined.host_pipeline = true;
  pipelined.host_pipeline_min_depth_per_thread = 0;
  pipelined.host_pipeline_min_block_rows = 1;
  solve::SolvePolicy pipelined_64 = pipelined;
  pipelined_64.host_pipeline_min_block_rows = 64;
  const std::vector<std::pair<SolveMode, solve::SolvePolicy>> configs = {
      {SolveMode::Automatic, solve::SolvePolicy::standard()},
      {SolveMode::Layered, solve::SolvePolicy::standard()},
      {SolveMode::Dataflow, solve::SolvePolicy::standard()},
      {SolveMode::Dataflow, all_workers},
      {SolveMode::Automatic, mixed},
      {SolveMode::Automatic, mixed_all_workers},
      {SolveMode::Automatic, one_launch},
      {SolveMode::Layered, narrow_flight},
      {SolveMode::Dataflow, narrow_flight},
      {SolveMode::Dataflow, flags_only},
      {SolveMode::Automatic, mixed_flags},
      {SolveMode::Dataflow, lane_rows},
      {SolveMode::Automatic, lane_rows_flags},
      {SolveMode::Automatic, warp_rows},
      {SolveMode::Automatic, pipelined},
      {SolveMode::Automatic, pipelined_64}};
  for (const auto& [mode, policy] : configs) {
    Solve ts(mode, policy);
    const Space space;
    ts.symbolic(space, d.row_map, d.entries, lower ? Triangle::Lower : Triangle::Upper,
                unit ? Diagonal::Unit : Diagonal::NonUnit);
    if (host_backend && space.concurrency() > 1 && policy.host_pipeline_min_depth_per_thread == 0)
      EXPECT_NE(ts.schedule().stretches.at(0).block_rows, 0u) << name << ": rule P did not apply";
    Kokkos::View<double*, Mem> x("x", a.rows);
    for (int repeat = 0; repeat < 2; ++repeat) {  // the epoch steps; flags are not cleared
      Kokkos::deep_copy(x, std::nan(""));
      ts.solve(space, d.values, bd, x);
      space.fence();
      const std::vector<double> got = host_vector(x);
      EXPECT_LE(relative_error(got, ref), 1e-12)
          << name << " mode " << solve::solve_mode_name(mode) << " repeat " << repeat;
      if (repeat == 1) xs.push_back(got);
    }
  }
  if (host_backend) {
    for (std::size_t m = 1; m < xs.size(); ++m)
      EXPECT_EQ(xs[m], xs[0]) << name << ": mode " << m << " is not bitwise the auto mode's";
  }
  return xs;
}

std::vector<std::pair<std::string, HostCsr>> generated_lower() {
  namespace g = strata::generate;
  std::vector<std::pair<std::string, HostCsr>> m;
  m.emplace_back("sweep2d 23x17", strata_sptrsv_test::lower_from_pattern(g::sweep2d(23, 17)));
  m.emplace_back("sweep3d 7x6x5", strata_sptrsv_test::lower_from_pattern(g::sweep3d(7, 6, 5)));
  m.emplace_back("chain 300", strata_sptrsv_test::lower_from_pattern(g::chain(300)));
  m.emplace_back("random 700", strata_sptrsv_test::random_lower(700, 5, 41));
  m.emplace_back("one row", strata_sptrsv_test::random_lower(1, 1, 3));
  return m;
}

TEST(Solve, LowerAndUpperNonUnitEveryModeMatchesHostSubstitution) {
  for (const auto& [name, lower] : generated_lower()) {
    solve_every_mode(lower, true, false, name + " lower");
    solve_every_mode(strata_sptrsv_test::transpose(lower), false, false, name + " upper");
  }
}

TEST(Solve, UnitDiagonalIgnoresTheStoredDiagonalAndNeedsNone) {
  for (const auto& [name, lower] : generated_lower()) {
    solve_every_mode(lower, true, true, name + " lower unit");
    solve_every_mode(strata_sptrsv_test::transpose(lower), false, true, name + " upper unit");
  }
  // No diagonal stored at all.
  HostCsr a = strata_sptrsv_test::random_lower(200, 3, 7);
  HostCsr stripped;
  stripped.rows = a.rows;
  for (int i = 0; i < a.rows; ++i) {
    for (int p = a.row_map[i]; p < a.row_map[i + 1]; ++p)
      if (a.entries[p] != i) {
        stripped.entries.push_back(a.entries[p]);
        stripped.values.push_back(a.values[p]);
      }
    stripped.row_map.push_back(static_cast<int>(stripped.entries.size()));
  }
  solve_every_mode(stripped, true, true, "random lower without diagonal, unit");
}

TEST(Solve, DiagonalFirstMiddleOrLast) {
  const HostCsr lower = strata_sptrsv_test::random_lower(400, 6, 5);
  const HostCsr upper = strata_sptrsv_test::transpose(lower);
  for (int where = 0; where < 3; ++where) {
    solve_every_mode(with_diagonal_at(lower, where), true, false,
                     "lower, diagonal at " + std::to_string(where));
    solve_every_mode(with_diagonal_at(upper, where), false, false,
                     "upper, diagonal at " + std::to_string(where));
  }
}

TEST(Solve, SeveralRightHandSidesInLayoutLeft) {
  const HostCsr a = strata_sptrsv_test::lower_from_pattern(strata::generate::sweep2d(20, 20));
  const DeviceCsr d = to_device(a);
  const int k = 3;
  using Multi = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
  Multi b("b", a.rows, k), x("x", a.rows, k);
  auto bh = Kokkos::create_mirror_view(b);
  std::vector<std::vector<double>> ref(k);
  for (int j = 0; j < k; ++j) {
    std::vector<double> bj(a.rows);
    for (int i = 0; i < a.rows; ++i) bj[i] = bh(i, j) = 1.0 + 0.5 * j + 0.001 * i;
    ref[j] = host_solve(a, bj, true, false);
  }
  Kokkos::deep_copy(b, bh);
  for (const SolveMode mode : {SolveMode::Automatic, SolveMode::Layered, SolveMode::Dataflow}) {
    Solve ts(mode);
    ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
    Kokkos::deep_copy(x, 0.0);
    ts.solve(Space(), d.values, b, x);
    const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    for (int j = 0; j < k; ++j) {
      std::vector<double> xj(a.rows);
      for (int i = 0; i < a.rows; ++i) xj[i] = xh(i, j);
      EXPECT_LE(relative_error(xj, ref[j]), 1e-12) << "column " << j << " mode "
                                                  << solve::solve_mode_name(mode);
    }
  }
}

TEST(Solve, InPlaceEveryModeMatchesHostSubstitution) {
  // x may be b: on a device the dataflow rows then wait on ready flags
  // (rule V would read a row's b as its x), on one and several columns.
  const HostCsr a = strata_sptrsv_test::lower_from_pattern(strata::generate::sweep2d(30, 20));
  const DeviceCsr d = to_device(a);
  const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  const std::vector<double> ref = host_solve(a, b, true, false);
  solve::SolvePolicy mixed;
  mixed.layered_min_width_host_per_thread = 4;
  mixed.layered_min_width_device = 8;
  mixed.min_dataflow_levels = 2;
  mixed.serial_width_per_thread = 0;
  for (const auto& [mode, policy] : std::vector<std::pair<SolveMode, solve::SolvePolicy>>{
           {SolveMode::Automatic, solve::SolvePolicy::standard()},
           {SolveMode::Layered, solve::SolvePolicy::standard()},
           {SolveMode::Dataflow, solve::SolvePolicy::standard()},
           {SolveMode::Automatic, mixed}}) {
    Solve ts(mode, policy);
    ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
    for (int repeat = 0; repeat < 2; ++repeat) {
      const auto xb = strata::test::to_device(b, "x_is_b");
      ts.solve(Space(), d.values, xb, xb);
      EXPECT_LE(relative_error(host_vector(xb), ref), 1e-12)
          << "mode " << solve::solve_mode_name(mode) << " repeat " << repeat;
    }
    using Multi = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
    Multi xb2("x_is_b2", a.rows, 2);
    auto h = Kokkos::create_mirror_view(xb2);
    for (int i = 0; i < a.rows; ++i) h(i, 0) = h(i, 1) = b[i];
    Kokkos::deep_copy(xb2, h);
    ts.solve(Space(), d.values, xb2, xb2);
    Kokkos::deep_copy(h, xb2);
    for (int j = 0; j < 2; ++j) {
      std::vector<double> xj(a.rows);
      for (int i = 0; i < a.rows; ++i) xj[i] = h(i, j);
      EXPECT_LE(relative_error(xj, ref), 1e-12) << "column " << j;
    }
  }
}

TEST(Solve, RightHandSideHoldingEveryNaNPatternEndsWithNaN) {
  // Rule V marks an x not yet stored with one signalling NaN's bits; a b
  // that holds those very bits (or any NaN) must give NaN, in every mode,
  // and never be taken for "not stored yet" (a hang).
  const HostCsr a = strata_sptrsv_test::lower_from_pattern(strata::generate::chain(200));
  const DeviceCsr d = to_device(a);
  std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  double unset = 0, signalling = 0;
  const std::uint64_t unset_bits = 0x7ff4535452415441ull, signalling_bits = 0x7ff0000000000001ull;
  std::memcpy(&unset, &unset_bits, 8);
  std::memcpy(&signalling, &signalling_bits, 8);
  b[0] = unset;
  b[100] = signalling;
  const auto bd = strata::test::to_device(b, "b");
  for (const SolveMode mode : {SolveMode::Automatic, SolveMode::Layered, SolveMode::Dataflow}) {
    Solve ts(mode);
    ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower, Diagonal::Unit);
    Kokkos::View<double*, Mem> x("x", a.rows);
    ts.solve(Space(), d.values, bd, x);
    const std::vector<double> got = host_vector(x);
    for (int i = 0; i < a.rows; ++i)
      ASSERT_TRUE(std::isnan(got[i])) << "row " << i << " mode " << solve::solve_mode_name(mode);
  }
}

TEST(Solve, MixedScheduleWideLevelsThenANarrowTail) {
  // 2000 independent rows (one wide level), then a chain of 300 rows.
  HostCsr a;
  a.rows = 2300;
  for (int i = 0; i < a.rows; ++i) {
    if (i >= 2000) a.entries.push_back(i == 2000 ? 1999 : i - 1);
    if (i >= 2000 && i % 7 == 0) a.entries.push_back(i - 1000);
    std::sort(a.entries.begin() + a.row_map.back(), a.entries.end());
    a.entries.push_back(i);
    a.row_map.push_back(static_cast<int>(a.entries.size()));
  }
  strata_sptrsv_test::assign_values(a);
  solve::SolvePolicy policy;
  policy.layered_min_width_host_per_thread = 1;
  policy.layered_min_width_device = 1000;
  const Space space;
  policy.layered_min_width_host_per_thread = 1000 / std::max(1, int(space.concurrency()));
  const DeviceCsr d = to_device(a);
  const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  // The wide level layered then a dataflow tail (on a device too with wide
  // dataflow off); with it on, on a device whose lanes progress
  // independently, a dataflow stretch a row per lane then one a warp per row.
  for (const bool wide_dataflow : {false, true}) {
    policy.device_wide_dataflow = wide_dataflow;
    Solve ts(SolveMode::Automatic, policy);
    ts.symbolic(space, d.row_map, d.entries, Triangle::Lower);
    ASSERT_EQ(ts.level_count(), 301u);
    ASSERT_EQ(ts.schedule().stretches.size(), 2u) << ts.schedule().reason;
    const bool wide_is_dataflow = wide_dataflow && !host_backend &&
                                  strata::DeviceLimits::query(space).independent_lanes;
    EXPECT_EQ(ts.schedule().stretches[0].mode,
              wide_is_dataflow ? SolveMode::Dataflow : SolveMode::Layered);
    EXPECT_EQ(ts.schedule().stretches[1].mode, SolveMode::Dataflow);
    EXPECT_EQ(ts.schedule().layered_levels, wide_is_dataflow ? 0u : 1u);
    if (wide_is_dataflow) {
      EXPECT_EQ(ts.schedule().stretches[0].lanes, 1);
      EXPECT_GT(ts.schedule().stretches[1].lanes, 1);
    }
    Kokkos::View<double*, Mem> x("x", a.rows);
    ts.solve(space, d.values, strata::test::to_device(b, "b"), x);
    EXPECT_LE(relative_error(host_vector(x), host_solve(a, b, true, false)), 1e-12)
        << "wide dataflow " << wide_dataflow;
  }
}

TEST(Solve, PolicyRulesPickLayeredForWideAndDataflowForDeep) {
  solve::SolvePolicy policy;
  solve::SolveShape shape;
  shape.host_backend = false;
  shape.independent_lanes = false;  // wide levels run layered (rule W; rule R below)
  shape.level_widths = std::vector<std::uint64_t>(20, 100000);  // few, wide
  auto s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Layered);
  shape.level_widths = std::vector<std::uint64_t>(5000, 300);  // many, narrow
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Dataflow);
  // A short narrow stretch between wide ones joins them (rule S).
  shape.level_widths = {100000, 10, 100000, 100000};
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Layered);
  shape.independent_lanes = true;  // ... in the dataflow stretch a row per lane
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Dataflow);
  EXPECT_EQ(s.stretches[0].lanes, 1);
  // Narrow levels on a host backend run on one worker (rule C); wide ones
  // forced to dataflow on all.
  shape.host_backend = true;
  shape.concurrency = 4;
  shape.level_widths = std::vector<std::uint64_t>(1000, 1);
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].workers, 1u);
  EXPECT_NE(s.reason.find("rule C"), std::string::npos);
  // ... and, being the whole solve, in the rows' own order (rule O).
  EXPECT_TRUE(s.stretches[0].row_order);
  EXPECT_NE(s.reason.find("rule O"), std::string::npos) << s.reason;
  solve::SolvePolicy level_order = policy;
  level_order.host_row_order = false;
  EXPECT_FALSE(level_order.schedule(shape).stretches[0].row_order);
  // A one-worker stretch beside others keeps level order.
  shape.level_widths = std::vector<std::uint64_t>(1000, 1);
  shape.level_widths.insert(shape.level_widths.end(), 10, 100000);
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 2u);
  EXPECT_EQ(s.stretches[0].workers, 1u);
  EXPECT_FALSE(s.stretches[0].row_order);
  EXPECT_EQ(s.reason.find("rule O"), std::string::npos) << s.reason;
  shape.level_widths = std::vector<std::uint64_t>(10, 100000);
  s = policy.schedule(shape, SolveMode::Dataflow);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].workers, 0u);
  EXPECT_FALSE(s.stretches[0].row_order);
}

TEST(Solve, PolicyDeviceLookaheadSizesTheLeagueFromTheMeanWidth) {
  solve::SolvePolicy policy;
  solve::SolveShape shape;
  shape.host_backend = false;
  shape.level_widths = {10, 30, 50, 70};  // mean width 40
  const solve::SolveStretch all{0, 4, SolveMode::Dataflow, 0};
  EXPECT_EQ(policy.device_lookahead_levels, 2u);  // the standard policy: two levels in flight
  EXPECT_EQ(policy.device_teams_in_flight(shape, all, 4), 64u);  // 80 rows, floored at 256
  policy.device_lookahead_levels = 0;
  EXPECT_EQ(policy.device_teams_in_flight(shape, all, 4), 0u);  // rule A off: the whole league
  policy.device_lookahead_levels = 8;  // 320 rows in flight
  EXPECT_EQ(policy.device_teams_in_flight(shape, all, 4), 80u);
  EXPECT_EQ(policy.device_teams_in_flight(shape, all, 3), 107u);
  EXPECT_EQ(policy.device_teams_in_flight(shape, solve::SolveStretch{3, 4, SolveMode::Dataflow, 0}, 1),
            560u);
  policy.device_layered_one_launch = true;
  shape.level_widths = std::vector<std::uint64_t>(20, 100000);
  shape.independent_lanes = false;  // wide levels run layered (rule W)
  const auto s = policy.schedule(shape);
  EXPECT_NE(s.reason.find("rule D"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("rule A: at most 8 levels"), std::string::npos) << s.reason;
  shape.host_backend = true;  // both are device rules
  const auto h = policy.schedule(shape);
  EXPECT_EQ(h.reason.find("rule D"), std::string::npos) << h.reason;
  EXPECT_EQ(h.reason.find("rule A"), std::string::npos) << h.reason;
}

TEST(Solve, PolicyDeviceLanesPerRowFollowRowLengthAndLevelWidth) {
  solve::SolvePolicy policy;
  solve::SolveShape shape;
  shape.host_backend = false;
  shape.warp_width = 32;
  shape.rows = 1000;
  shape.entries = 3970;  // ILU(0) of a 7-point stencil: 4 entries a row
  shape.level_widths = {400, 300, 200, 100};
  // Layered: as many lanes as the rows average entries, rounded up, at
  // most a warp.
  EXPECT_EQ(policy.layered_row_lanes(shape), 4);
  shape.entries = 8300;
  EXPECT_EQ(policy.layered_row_lanes(shape), 16);
  shape.entries = 1000000;
  EXPECT_EQ(policy.layered_row_lanes(shape), 32);
  shape.warp_width = 64;  // a HIP wavefront
  EXPECT_EQ(policy.layered_row_lanes(shape), 64);
  shape.warp_width = 32;
  shape.entries = 3970;
  // Dataflow: a warp per row of narrow levels, a lane per row of wide ones.
  const solve::SolveStretch narrow{0, 4, SolveMode::Dataflow, 0};
  EXPECT_EQ(policy.dataflow_row_lanes(shape, narrow), 32);
  shape.level_widths = {20000, 20000, 1000, 30000};  // mean 17,750
  EXPECT_EQ(policy.dataflow_row_lanes(shape, narrow), 1);
  EXPECT_EQ(policy.dataflow_row_lanes(shape, solve::SolveStretch{2, 3, SolveMode::Dataflow, 0}), 32);
  policy.device_dataflow_lanes = 3;  // the knob, rounded down to a power of two
  EXPECT_EQ(policy.dataflow_row_lanes(shape, narrow), 2);
  policy.device_dataflow_lanes = 1000;
  EXPECT_EQ(policy.dataflow_row_lanes(shape, narrow), 32);
  // Lanes that do not progress independently: a dataflow row takes the
  // whole warp (a waiting lane could stall the lane it waits on).
  shape.independent_lanes = false;
  policy.device_dataflow_lanes = 1;
  EXPECT_EQ(policy.dataflow_row_lanes(shape, narrow), 32);
}

TEST(Solve, PolicyDeviceWideLevelsRunDataflowARowPerLane) {
  solve::SolvePolicy policy;
  solve::SolveShape shape;
  shape.host_backend = false;
  shape.warp_width = 32;
  shape.rows = 200000;
  shape.entries = 800000;
  // Wide levels, then a narrow tail: two dataflow stretches, a lane per row
  // then a warp per row.
  shape.level_widths = {50000, 60000, 70000, 100, 50, 10, 5, 1};
  auto s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 2u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Dataflow);
  EXPECT_EQ(s.stretches[0].end_level, 3u);
  EXPECT_EQ(s.stretches[0].lanes, 1);
  EXPECT_EQ(s.stretches[1].mode, SolveMode::Dataflow);
  EXPECT_EQ(s.stretches[1].lanes, 32);
  EXPECT_NE(s.reason.find("rows run dataflow, a row per lane"), std::string::npos) << s.reason;
  EXPECT_NE(s.reason.find("rule R: 4 lanes per layered row, 1 per dataflow row of levels 0..2, "
                          "32 per dataflow row of levels 3..7"),
            std::string::npos)
      << s.reason;
  // Without independent lanes (HIP) or with the knob off, wide levels run
  // layered as on a host.
  shape.independent_lanes = false;
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 2u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Layered);
  EXPECT_EQ(s.stretches[1].lanes, 32);
  shape.independent_lanes = true;
  policy.device_wide_dataflow = false;
  EXPECT_EQ(policy.schedule(shape).stretches[0].mode, SolveMode::Layered);
  // Rule A's floor: at least 256 rows in flight on narrow levels.
  shape.level_widths = std::vector<std::uint64_t>(100, 38);
  const solve::SolveStretch all{0, 100, SolveMode::Dataflow, 0};
  EXPECT_EQ(policy.device_teams_in_flight(shape, all, 1), 256u);
  shape.level_widths = std::vector<std::uint64_t>(100, 188);
  EXPECT_EQ(policy.device_teams_in_flight(shape, all, 1), 376u);
}

TEST(Solve, PolicyOnAHostRunsLevelsOf64RowsPerThreadLayeredInOneLaunch) {
  solve::SolvePolicy policy;
  solve::SolveShape shape;
  shape.host_backend = true;
  shape.concurrency = 2;
  // A 2-D sweep's profile: widths 1, 2, ..., 300, ..., 2, 1. Rule W takes
  // the levels of >= 128 rows (64 per thread) layered, rule C runs the
  // narrow ends on one worker, and rule L says the layered stretch is one
  // launch.
  for (std::uint64_t w = 1; w <= 300; ++w) shape.level_widths.push_back(w);
  for (std::uint64_t w = 299; w >= 1; --w) shape.level_widths.push_back(w);
  auto s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 3u) << s.reason;
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Dataflow);
  EXPECT_EQ(s.stretches[0].workers, 1u);
  EXPECT_EQ(s.stretches[0].end_level, 127u);
  EXPECT_EQ(s.stretches[1].mode, SolveMode::Layered);
  EXPECT_EQ(s.stretches[1].end_level - s.stretches[1].first_level, 599u - 2 * 127u);
  EXPECT_EQ(s.stretches[2].workers, 1u);
  EXPECT_NE(s.reason.find("rule L"), std::string::npos);
  // Levels of 100 rows on 2 threads: one worker, no layered stretch.
  shape.level_widths = std::vector<std::uint64_t>(500, 100);
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].workers, 1u);
  EXPECT_EQ(s.reason.find("rule L"), std::string::npos);
  // Rule B: wide levels get more slices per worker, up to 8.
  solve::SolveShape wide;
  wide.concurrency = 2;
  wide.level_widths = std::vector<std::uint64_t>(19, 6000);
  EXPECT_EQ(policy.slices_per_worker(wide, solve::SolveStretch{0, 19}), 2u);
  wide.level_widths = std::vector<std::uint64_t>(19, 100000);
  EXPECT_EQ(policy.slices_per_worker(wide, solve::SolveStretch{0, 19}), 8u);
  wide.level_widths = std::vector<std::uint64_t>(19, 300);
  EXPECT_EQ(policy.slices_per_worker(wide, solve::SolveStretch{0, 19}), 1u);
  // A device keeps its own width and has no rule L.
  shape.host_backend = false;
  shape.independent_lanes = false;  // wide levels run layered (rule W)
  shape.level_widths = std::vector<std::uint64_t>(50, 20000);
  s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Layered);
  EXPECT_EQ(s.reason.find("rule L"), std::string::npos);
}

TEST(Solve, PolicyPipelinesAHostFactorBandedInItsOwnOrder) {
  solve::SolvePolicy policy;
  EXPECT_FALSE(policy.host_pipeline);  // rule P is off by default
  policy.host_pipeline = true;
  solve::SolveShape shape;
  shape.host_backend = true;
  shape.concurrency = 2;
  // A 350 x 350 sweep in natural order: rows read the row before and the
  // one a grid line before (reach 350); a block of 350 rows (a grid line)
  // spans 350 levels of 699, so 175 blocks can run at once (rule P).
  for (std::uint64_t w = 1; w <= 350; ++w) shape.level_widths.push_back(w);
  for (std::uint64_t w = 349; w >= 1; --w) shape.level_widths.push_back(w);
  shape.row_reach = 350;
  shape.pipeline_block_rows = policy.pipeline_block_rows(shape.row_reach);
  EXPECT_EQ(shape.pipeline_block_rows, 350u);
  shape.pipeline_level_spans = 350 * 350;
  auto s = policy.schedule(shape);
  ASSERT_EQ(s.stretches.size(), 1u) << s.reason;
  EXPECT_EQ(s.stretches[0].block_rows, 350u);
  EXPECT_EQ(s.stretches[0].mode, SolveMode::Dataflow);
  EXPECT_EQ(s.stretches[0].workers, 0u);
  EXPECT_EQ(s.dataflow_levels, 699u);
  EXPECT_NE(s.reason.find("rule P"), std::string::npos) << s.reason;
  shape.concurrency = 16;  // 175 >= 16
  EXPECT_EQ(policy.schedule(shape).stretches[0].block_rows, 350u);
  // A forced mode, rule P off, or a block measured with another size: no pipeline.
  EXPECT_EQ(policy.schedule(shape, SolveMode::Layered).stretches[0].block_rows, 0u);
  solve::SolvePolicy off = policy;
  off.host_pipeline = false;
  EXPECT_EQ(off.schedule(shape).stretches[0].block_rows, 0u);
  solve::SolvePolicy bigger = policy;
  bigger.host_pipeline_min_block_rows = 1000;
  EXPECT_EQ(bigger.schedule(shape).stretches[0].block_rows, 0u);
  // A chain, or a factor stored level by level: each block spans about the
  // levels it advances, one block at a time: no pipeline.
  shape.concurrency = 2;
  shape.level_widths = std::vector<std::uint64_t>(8000, 24);
  shape.row_reach = 47;
  shape.pipeline_block_rows = 47;
  shape.pipeline_level_spans = 3 * (8000 * 24 / 47);
  s = policy.schedule(shape);
  EXPECT_EQ(s.stretches.at(0).block_rows, 0u) << s.reason;
  EXPECT_EQ(s.reason.find("rule P"), std::string::npos);
  // One thread: nothing to pipeline.
  shape.concurrency = 1;
  shape.pipeline_level_spans = 350 * 350;
  s = policy.schedule(shape);
  EXPECT_EQ(s.stretches.at(0).block_rows, 0u);
  EXPECT_EQ(s.reason.find("rule P"), std::string::npos);
}

TEST(Solve, PipelinedRowOrderIsBitwiseTheSubstitutionAtEveryThreadCount) {
  // A 3-D sweep in natural order and its transpose (upper), one and three
  // right-hand sides, solved 3 times per handle (the progress counters are
  // zeroed per solve): rule P on this backend's threads is bitwise the
  // substitution.
  const HostCsr lower = strata_sptrsv_test::lower_from_pattern(strata::generate::sweep3d(17, 13, 11));
  for (const bool is_lower : {true, false}) {
    const HostCsr a = is_lower ? lower : strata_sptrsv_test::transpose(lower);
    const DeviceCsr d = to_device(a);
    const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
    const auto bd = strata::test::to_device(b, "b");
    const Space space;
    solve::SolvePolicy pipelined;
    pipelined.host_pipeline = true;
    Solve ts(SolveMode::Automatic, pipelined);
    ts.symbolic(space, d.row_map, d.entries, is_lower ? Triangle::Lower : Triangle::Upper);
    if (host_backend && space.concurrency() > 1) {
      ASSERT_EQ(ts.schedule().stretches.size(), 1u) << ts.schedule().reason;
      EXPECT_EQ(ts.schedule().stretches[0].block_rows, 17u * 13u) << ts.schedule().reason;
    }
    const std::vector<double> ref = host_solve(a, b, is_lower, false);
    Kokkos::View<double*, Mem> x("x", a.rows);
    for (int repeat = 0; repeat < 3; ++repeat) {
      Kokkos::deep_copy(x, std::nan(""));
      ts.solve(space, d.values, bd, x);
      space.fence();
      if (host_backend)
        ASSERT_EQ(host_vector(x), ref) << "lower " << is_lower << " solve " << repeat;
      else
        ASSERT_LE(relative_error(host_vector(x), ref), 1e-12);
    }
    // Several right-hand sides: each column bitwise its own substitution.
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> b3("b3", a.rows, 3), x3("x3", a.rows, 3);
    auto hb3 = Kokkos::create_mirror_view(b3);
    for (int i = 0; i < a.rows; ++i)
      for (int j = 0; j < 3; ++j) hb3(i, j) = b[i] * (j + 1) - j;
    Kokkos::deep_copy(b3, hb3);
    ts.solve(space, d.values, b3, x3);
    space.fence();
    const auto hx3 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x3);
    for (int j = 0; j < 3; ++j) {
      std::vector<double> bj(a.rows);
      for (int i = 0; i < a.rows; ++i) bj[i] = hb3(i, j);
      const std::vector<double> rj = host_solve(a, bj, is_lower, false);
      for (int i = 0; i < a.rows; ++i) {
        if (host_backend)
          ASSERT_EQ(hx3(i, j), rj[i]) << "row " << i << " column " << j;
        else
          ASSERT_LE(std::abs(hx3(i, j) - rj[i]), 1e-12 * (1 + std::abs(rj[i])));
      }
    }
  }
}

TEST(Solve, HostLayeredStretchOfManyLevelsIsBitwiseTheSubstitution) {
  // A 2-D sweep forced layered: hundreds of levels in one launch, each level
  // sliced over the workers; the same x bitwise as the one-worker run.
  const HostCsr a = strata_sptrsv_test::lower_from_pattern(strata::generate::sweep2d(90, 70));
  const DeviceCsr d = to_device(a);
  const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  const auto bd = strata::test::to_device(b, "b");
  solve::SolvePolicy one_worker;
  one_worker.layered_min_width_host_per_thread = std::uint64_t(1) << 40;
  solve::SolvePolicy eight_slices;  // rule B: 8 slices per worker per level
  eight_slices.balance_rows_per_slice = 1;
  std::vector<std::vector<double>> xs;
  using Config = std::pair<SolveMode, solve::SolvePolicy>;
  for (const auto& [mode, policy] : {Config{SolveMode::Layered, solve::SolvePolicy::standard()},
                                     Config{SolveMode::Layered, eight_slices},
                                     Config{SolveMode::Automatic, one_worker}}) {
    Solve ts(mode, policy);
    ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
    EXPECT_EQ(ts.level_count(), 159u);
    Kokkos::View<double*, Mem> x("x", a.rows);
    for (int repeat = 0; repeat < 3; ++repeat) {  // the done counters are zeroed per solve
      Kokkos::deep_copy(x, std::nan(""));
      ts.solve(Space(), d.values, bd, x);
      Space().fence();
    }
    xs.push_back(host_vector(x));
    EXPECT_LE(relative_error(xs.back(), host_solve(a, b, true, false)), 1e-12);
  }
  if (host_backend) {
    EXPECT_EQ(xs[0], xs[2]);
    EXPECT_EQ(xs[1], xs[2]);
  }
}

/// A small Matrix Market text (coordinate real general, 1-based) as CSR.
HostCsr from_matrix_market(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // banner
  while (in.peek() == '%') std::getline(in, line);
  int rows = 0, cols = 0, nnz = 0;
  in >> rows >> cols >> nnz;
  std::vector<std::vector<std::pair<int, double>>> r(rows);
  for (int k = 0; k < nnz; ++k) {
    int i = 0, j = 0;
    double v = 0;
    in >> i >> j >> v;
    r[i - 1].push_back({j - 1, v});
  }
  HostCsr a;
  a.rows = rows;
  for (const auto& row : r) {
    for (const auto& [j, v] : row) {
      a.entries.push_back(j);
      a.values.push_back(v);
    }
    a.row_map.push_back(static_cast<int>(a.entries.size()));
  }
  return a;
}

TEST(Solve, MatrixMarketTexts) {
  // Entries in file order (the diagonal first in some rows, last in others).
  const HostCsr lower = from_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n% a 5x5 lower triangle\n5 5 10\n"
      "1 1 2.0\n2 1 -1.0\n2 2 4.0\n3 3 3.0\n3 2 -0.5\n4 1 1.5\n4 4 -2.0\n4 3 0.25\n"
      "5 5 1.0\n5 4 -3.0\n");
  solve_every_mode(lower, true, false, "5x5 lower from Matrix Market");
  const HostCsr upper = from_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n4 4 7\n1 1 1.0\n1 4 2.0\n2 3 -1.0\n"
      "2 2 5.0\n3 3 2.0\n3 4 1.0\n4 4 -4.0\n");
  solve_every_mode(upper, false, false, "4x4 upper from Matrix Market");
}

/// Expects `fn` to throw InvalidArgument naming `row` and `column` text.
template <class Fn>
void expect_named_error(Fn&& fn, const std::string& row, const std::string& column) {
  const PlanError e = expect_plan_error(ErrorKind::InvalidArgument, fn);
  const std::string text = e.what();
  EXPECT_NE(text.find(row), std::string::npos) << text;
  EXPECT_NE(text.find(column), std::string::npos) << text;
}

TEST(Solve, BadMatricesAreTypedErrorsNamingRowAndColumn) {
  const Space space;
  // Row 2 holds column 3: not lower triangular.
  const HostCsr not_lower = from_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n4 4 6\n1 1 1.0\n2 2 1.0\n3 3 1.0\n"
      "3 4 2.0\n4 4 1.0\n4 1 1.0\n");
  Solve ts;
  const DeviceCsr a = to_device(not_lower);
  expect_named_error([&] { ts.symbolic(space, a.row_map, a.entries, Triangle::Lower); },
                     "row 2 ", "column 3");
  EXPECT_FALSE(ts.is_symbolic_complete());
  // As an upper triangle, row 3 holds column 0.
  expect_named_error([&] { ts.symbolic(space, a.row_map, a.entries, Triangle::Upper); },
                     "row 3 ", "column 0");
  // Row 1 lacks its diagonal (fine with a unit diagonal).
  const HostCsr missing = from_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.0\n2 1 1.0\n3 3 1.0\n"
      "3 2 1.0\n");
  const DeviceCsr m = to_device(missing);
  expect_named_error([&] { ts.symbolic(space, m.row_map, m.entries, Triangle::Lower); },
                     "row 1 ", "column 1");
  EXPECT_NO_THROW(ts.symbolic(space, m.row_map, m.entries, Triangle::Lower, Diagonal::Unit));
  // A column outside the matrix.
  HostCsr outside = missing;
  outside.entries[1] = 9;
  const DeviceCsr o = to_device(outside);
  Solve fresh;
  expect_named_error([&] { fresh.symbolic(space, o.row_map, o.entries, Triangle::Lower); },
                     "row 1 ", "column 9");
}

TEST(Solve, ZeroDiagonalLeavesXUntouched) {
  HostCsr a = strata_sptrsv_test::random_lower(300, 4, 9);
  for (int p = a.row_map[157]; p < a.row_map[158]; ++p)
    if (a.entries[p] == 157) a.values[p] = 0.0;
  const DeviceCsr d = to_device(a);
  const auto b = strata::test::to_device(strata_sptrsv_test::rhs_of(a.rows), "b");
  for (const SolveMode mode : {SolveMode::Automatic, SolveMode::Layered, SolveMode::Dataflow}) {
    Solve ts(mode);
    ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
    Kokkos::View<double*, Mem> x("x", a.rows);
    Kokkos::deep_copy(x, 7.0);
    expect_named_error([&] { ts.solve(Space(), d.values, b, x); }, "row 157 ", "column 157");
    for (const double v : host_vector(x)) ASSERT_EQ(v, 7.0);
    // With a unit diagonal the zero is never read.
    ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower, Diagonal::Unit);
    EXPECT_NO_THROW(ts.solve(Space(), d.values, b, x));
  }
}

TEST(Solve, RowsOf65535EntriesOrMoreTakeTheWideLayout) {
  // Rows 0 .. n-1 independent; row n reads all of them, with its diagonal in
  // the middle (a row too long for the packed length and diagonal), then a
  // short chain reading it.
  const int n = 70000;
  HostCsr a;
  a.rows = n + 4;
  for (int i = 0; i < a.rows; ++i) {
    if (i == n)
      for (int c = 0; c < n; ++c) a.entries.push_back(c);
    if (i > n) a.entries.push_back(i - 1);
    if (i > n + 1) a.entries.push_back(i % 97);
    a.entries.push_back(i);
    a.row_map.push_back(static_cast<int>(a.entries.size()));
  }
  strata_sptrsv_test::assign_values(a);
  a = with_diagonal_at(a, 1);
  solve_every_mode(a, true, false, "one wide row");
  solve_every_mode(strata_sptrsv_test::transpose(a), false, false, "one wide column, upper");
  // A zero diagonal in the wide row is found and named.
  for (int p = a.row_map[n]; p < a.row_map[n + 1]; ++p)
    if (a.entries[p] == n) a.values[p] = 0.0;
  const DeviceCsr d = to_device(a);
  Solve ts;
  ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
  EXPECT_GE(ts.workspace_bytes(), (12 + 8) * std::uint64_t(a.rows));  // the wide slots
  Kokkos::View<double*, Mem> x("x", a.rows);
  expect_named_error(
      [&] { ts.solve(Space(), d.values, strata::test::to_device(strata_sptrsv_test::rhs_of(a.rows), "b"), x); },
      "row " + std::to_string(n) + " ", "column " + std::to_string(n));
}

TEST(Solve, ReadyFlagsSurviveTheEpochWrapAndAModeChange) {
  // The one-byte ready flags are cleared once every 255 solves: 300 solves
  // of one handle, layered, then dataflow on every worker (set_mode
  // allocates the flags), layered and dataflow again, all bitwise the first
  // solve's x (host backends).
  const HostCsr a = strata_sptrsv_test::random_lower(500, 4, 17);
  const DeviceCsr d = to_device(a);
  const std::vector<double> b = strata_sptrsv_test::rhs_of(a.rows);
  const auto bd = strata::test::to_device(b, "b");
  const std::vector<double> ref = host_solve(a, b, true, false);
  solve::SolvePolicy all_workers;
  all_workers.serial_width_per_thread = 0;
  Solve ts(SolveMode::Layered, all_workers);
  ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
  Kokkos::View<double*, Mem> x("x", a.rows);
  std::vector<double> first;
  for (int k = 0; k < 300; ++k) {
    if (k == 1 || k == 200) ts.set_mode(SolveMode::Dataflow);
    if (k == 150) ts.set_mode(SolveMode::Layered);
    Kokkos::deep_copy(x, std::nan(""));
    ts.solve(Space(), d.values, bd, x);
    Space().fence();
    const std::vector<double> got = host_vector(x);
    if (k == 0) {
      first = got;
      EXPECT_LE(relative_error(got, ref), 1e-12);
    } else if (host_backend) {
      ASSERT_EQ(got, first) << "solve " << k;
    } else {
      ASSERT_LE(relative_error(got, ref), 1e-12) << "solve " << k;
    }
  }
}

TEST(Solve, WorkspaceIsTheRowLayoutAndWhatTheScheduleReads) {
  // 12 bytes a row (row, first entry, packed length and diagonal) with
  // 32-bit ordinals and offsets, two counters per stretch, a one-byte ready
  // flag per row only where a dataflow stretch waits on flags, and on a
  // device the level and slice offsets only for a layered stretch in one
  // launch.
  const HostCsr a = strata_sptrsv_test::lower_from_pattern(strata::generate::sweep2d(40, 30));
  const DeviceCsr d = to_device(a);
  const std::uint64_t rows = std::uint64_t(a.rows);
  solve::SolvePolicy all_workers;
  all_workers.serial_width_per_thread = 0;
  Solve ts(SolveMode::Layered, all_workers);
  ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
  const std::uint64_t counters = 16 * ts.schedule().stretches.size();
  const std::uint64_t level_views =
      host_backend || !all_workers.device_layered_one_launch ? 0 : 16 * (ts.level_count() + 1);
  EXPECT_EQ(ts.workspace_bytes(), 12 * rows + counters + level_views);
  ts.set_mode(SolveMode::Dataflow);
  EXPECT_EQ(ts.workspace_bytes(), 13 * rows + 16 * ts.schedule().stretches.size());
  EXPECT_EQ(ts.host_bytes(), 8 * (2 * ts.level_count() + 1 + (host_backend ? 0 : ts.level_count() + 1)));
}

TEST(Solve, MisusedHandleIsATypedError) {
  Solve ts;
  Kokkos::View<double*, Mem> v("v", 3), b("b", 3), x("x", 3);
  expect_plan_error(ErrorKind::InvalidArgument, [&] { ts.solve(Space(), v, b, x); });
  const HostCsr a = strata_sptrsv_test::random_lower(5, 2, 1);
  const DeviceCsr d = to_device(a);
  ts.symbolic(Space(), d.row_map, d.entries, Triangle::Lower);
  expect_plan_error(ErrorKind::InvalidArgument, [&] { ts.solve(Space(), d.values, b, x); });
  Kokkos::View<int*, Mem> empty("empty", 0);
  expect_plan_error(ErrorKind::InvalidArgument,
                    [&] { ts.symbolic(Space(), empty, empty, Triangle::Lower); });
  EXPECT_TRUE(ts.is_symbolic_complete());  // the failed call left the handle as it was
}

}  // namespace
}  // namespace strata::test
