#pragma once
// strata::solve::TriangularSolve (also strata::TriangularSolve): a sparse
// triangular solve T x = b with a handle that owns its workspace, in the
// style of Kokkos Kernels' sptrsv handle.
//
//   strata::TriangularSolve<Space, int, std::size_t, double> ts;
//   ts.symbolic(space, row_map, entries, strata::solve::Triangle::Lower);  // structure only
//   ts.solve(space, values, b, x);   // as often as the values or b change
//
// symbolic() checks the structure (see Errors) and plans the rows with
// Strata's planner (strata::plan_in_edges: a row waits for the rows its
// off-diagonal entries name; an upper triangle is levelled from the bottom).
// It keeps the rows in level order (every level a contiguous range of
// positions), each position's entry range and diagonal offset (so the solve
// streams them in level order; 12 bytes a row with 32-bit ordinals and
// offsets, detail/row_layout.hpp) and the schedule the solve policy
// (policy.hpp) picks from the level profile, and only the workspace that
// schedule's kernels read: a one-byte ready flag per row where a dataflow
// stretch may wait on flags (on a device only a solve in place or of a
// Scalar other than float and double does: rule V), two counters per
// stretch, on a device the level and slice offsets where a layered stretch
// runs in one launch, and on a host a progress counter per block where rule
// P pipelines the rows (set_mode() re-sizes it). It keeps shallow copies of row_map and entries:
// they must stay unchanged until the next symbolic().
//
// solve() reads `values` (the CSR's values, in the entries' order) and one
// right-hand side (rank-1 b and x) or several (rank-2 LayoutLeft b and x,
// one column per right-hand side). It first checks the diagonal (NonUnit:
// none zero) and only then writes x, so a failed solve leaves x untouched.
// x may be b (in place). On a host backend x is bitwise the same in every
// mode and for every thread count: every row sums its entries in their
// stored order, after the rows it reads are final. A device sums a row over
// vector lanes (a tree), so its x may differ from the host's in the last
// bits.
//
// Errors (strata::PlanError, kind InvalidArgument, message naming the row
// and column, with a Fix: hint; the handle is left as it was):
//  * symbolic: row_map empty; a row whose offsets descend or leave entries;
//    a column outside 0..rows-1; an entry on the wrong side of the diagonal
//    (not triangular as declared); NonUnit: a row without its diagonal, or
//    with it twice. From the planner: CountOverflow, StorageReserveFailed.
//  * solve: no symbolic() yet; extents that do not match the rows, the
//    entries or each other; NonUnit: a zero diagonal (singular).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/device_limits.hpp>
#include <strata/core/error.hpp>
#include <strata/core/one_thread_policy.hpp>
#include <strata/core/profiling_region.hpp>
#include <strata/core/resident_teams.hpp>
#include <strata/core/storage.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/plan_in_edges.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/solve/detail/check_rows.hpp>
#include <strata/solve/detail/pipeline_shape.hpp>
#include <strata/solve/detail/row_dependencies.hpp>
#include <strata/solve/detail/row_kernels.hpp>
#include <strata/solve/detail/row_layout.hpp>
#include <strata/solve/policy.hpp>
#include <strata/solve/solve_mode.hpp>
#include <strata/solve/triangle.hpp>

namespace strata::solve {

template <class ExecSpace, class Ordinal = int, class Offset = std::size_t, class Scalar = double>
class TriangularSolve {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using scalar_type = Scalar;
  using row_map_type = Kokkos::View<const Offset*, memory_space>;
  using entries_type = Kokkos::View<const Ordinal*, memory_space>;
  using values_type = Kokkos::View<const Scalar*, memory_space>;
  /// The planner's unsigned types.
  using plan_ordinal = std::make_unsigned_t<Ordinal>;
  using plan_offset = std::make_unsigned_t<Offset>;

  static_assert(std::is_integral_v<Ordinal> && std::is_integral_v<Offset>,
                "TriangularSolve: Ordinal and Offset are integer types");

  TriangularSolve() = default;
  explicit TriangularSolve(SolveMode mode, SolvePolicy policy = SolvePolicy::standard())
      : mode_(mode), policy_(policy) {}

  /// Checks and plans the structure; see the header comment.
  template <class RowMap, class Entries>
  void symbolic(const ExecSpace& space, const RowMap& row_map, const Entries& entries,
                Triangle triangle, Diagonal diagonal = Diagonal::NonUnit);

  /// The symbolic phase from a level schedule the caller already holds
  /// instead of the planner's: `order` (rank-1, its memory space) lists the
  /// rows level by level, level l at positions level_offsets[l] ..
  /// level_offsets[l+1]-1 (the Kokkos Kernels drop-in passes a handle's
  /// nodes_grouped_by_level and nodes_per_level). Checked like symbolic(),
  /// and the schedule too: every row listed once, after every row it reads
  /// (else InvalidArgument naming the row and the column).
  template <class RowMap, class Entries, class Order>
  void symbolic_from_levels(const ExecSpace& space, const RowMap& row_map, const Entries& entries,
                            Triangle triangle, Diagonal diagonal, const Order& order,
                            std::vector<std::uint64_t> level_offsets);

  /// One right-hand side (rank-1 b, x) or several (rank-2 LayoutLeft b, x).
  template <class Values, class B, class X>
  void solve(const ExecSpace& space, const Values& values, const B& b, const X& x);

  /// The mode of the next solves (Automatic: the policy's schedule).
  void set_mode(SolveMode mode) {
    if (symbolic_complete_) {
      SolveSchedule schedule = policy_.schedule(shape_, mode);
      Workspace workspace = workspace_for(ExecSpace(), schedule, level_offsets_, slices_, rows_,
                                          ready_);
      ExecSpace().fence();
      schedule_ = std::move(schedule);
      take(std::move(workspace));
    }
    mode_ = mode;
  }
  SolveMode mode() const { return mode_; }

  bool is_symbolic_complete() const { return symbolic_complete_; }
  std::uint64_t row_count() const { return rows_; }
  std::uint64_t level_count() const { return shape_.level_widths.size(); }
  /// Rows of each level, in level order (the profile the policy reads).
  const std::vector<std::uint64_t>& level_widths() const { return shape_.level_widths; }
  /// The stretches and kernels of the next solve, and why.
  const SolveSchedule& schedule() const { return schedule_; }
  Triangle triangle() const { return triangle_; }
  Diagonal diagonal() const { return diagonal_; }
  /// Bytes of device memory the handle holds (its own Views, not the matrix):
  /// the row layout, and the workspace of the current schedule.
  std::uint64_t workspace_bytes() const {
    return layout_.order.span() * sizeof(plan_ordinal) +
           layout_.first.span() * sizeof(plan_offset) +
           layout_.shape.span() * sizeof(std::uint32_t) +
           layout_.wide.span() * sizeof(plan_offset) + ready_.span() * sizeof(detail::ready_flag) +
           counters_.span() * sizeof(std::uint64_t) +
           device_level_offsets_.span() * sizeof(std::uint64_t) +
           slice_offsets_.span() * sizeof(std::uint64_t) + progress_.span() * sizeof(std::uint64_t);
  }
  /// Bytes of host memory the handle holds beside: the level offsets, the
  /// level profile and (device backends) the slice offsets, 8 bytes each.
  std::uint64_t host_bytes() const {
    return (level_offsets_.capacity() + slices_.capacity() + shape_.level_widths.capacity()) *
           sizeof(std::uint64_t);
  }

 private:
  using Layout = detail::RowLayout<memory_space, plan_ordinal, plan_offset>;
  using ReadyFlags = Kokkos::View<detail::ready_flag*, memory_space>;
  using Counters = Kokkos::View<std::uint64_t*, memory_space>;
  /// What a schedule's kernels need beside the row layout.
  struct Workspace {
    ReadyFlags ready;
    Counters counters;
    Kokkos::View<std::uint64_t*, memory_space> device_level_offsets;
    Kokkos::View<std::uint64_t*, memory_space> slice_offsets;
    Counters progress;  ///< rule P: a progress counter per block
  };
  /// Whether a kernel of `schedule` reads the ready flags: a dataflow
  /// stretch of several workers not pipelined (on a device every dataflow
  /// stretch).
  static bool reads_flags(const SolveSchedule& schedule) {
    bool flags = false;
    for (const SolveStretch& st : schedule.stretches)
      flags = flags || (st.mode == SolveMode::Dataflow &&
                        (!is_host_backend_v<ExecSpace> ||
                         (st.workers != 1 && st.block_rows == 0)));
    return flags;
  }
  /// Allocates the workspace of `schedule` (keeps `ready` where it needs
  /// flags and `ready` has them).
  Workspace workspace_for(const ExecSpace& space, const SolveSchedule& schedule,
                          const std::vector<std::uint64_t>& level_offsets,
                          const std::vector<std::uint64_t>& slices, std::uint64_t rows,
                          const ReadyFlags& ready) const;
  void take(Workspace workspace) {
    ready_ = workspace.ready;
    counters_ = workspace.counters;
    device_level_offsets_ = workspace.device_level_offsets;
    slice_offsets_ = workspace.slice_offsets;
    progress_ = workspace.progress;
  }
  template <class System>
  void run_stretches(const ExecSpace& space, const System& system);
  /// f(layout) with the row layout's type for rows of 65,535 entries or more
  /// where it has some (their kernels carry the wide offsets), else without.
  template <class F>
  auto with_layout(F&& f) const {
    return layout_.wide.extent(0) != 0 ? f(layout_.template as<true>())
                                       : f(layout_.template as<false>());
  }
  /// Whether b and x share memory (a solve in place).
  template <class B, class X>
  static bool overlaps(const B& b, const X& x) {
    const auto* b0 = reinterpret_cast<const char*>(b.data());
    const auto* x0 = reinterpret_cast<const char*>(x.data());
    return b0 < x0 + x.span() * sizeof(Scalar) && x0 < b0 + b.span() * sizeof(Scalar);
  }
  /// The checks common to both symbolic phases; returns the diagonal offsets.
  template <class RowMap, class Entries>
  Kokkos::View<plan_offset*, memory_space> check_structure(const ExecSpace& space,
                                                           const RowMap& row_map,
                                                           const Entries& entries,
                                                           Triangle triangle, Diagonal diagonal,
                                                           std::uint64_t& nonzeros) const;
  /// Takes the new state (nothing below throws but allocation).
  void commit(const ExecSpace& space, row_map_type rm, entries_type en, Triangle triangle,
              Diagonal diagonal, std::uint64_t nonzeros,
              Kokkos::View<plan_ordinal*, memory_space> order,
              Kokkos::View<plan_offset*, memory_space> diagonal_offset,
              std::vector<std::uint64_t> level_offsets);
  /// Threads of a device layered team (its rows: this over rule R's lanes).
  static constexpr int device_team_threads = 128;
  /// The level offsets on the device (the host layered kernel reads them).
  static Kokkos::View<std::uint64_t*, memory_space> device_copy(
      const ExecSpace& space, const std::vector<std::uint64_t>& level_offsets);

  SolveMode mode_ = SolveMode::Automatic;
  SolvePolicy policy_ = SolvePolicy::standard();
  bool symbolic_complete_ = false;
  Triangle triangle_ = Triangle::Lower;
  Diagonal diagonal_ = Diagonal::NonUnit;
  std::uint64_t rows_ = 0;
  std::uint64_t nonzeros_ = 0;  ///< row_map(rows): the entries the rows span
  row_map_type row_map_;
  entries_type entries_;
  Layout layout_;     ///< position -> row, its entries and diagonal
  ReadyFlags ready_;  ///< row -> epoch of its x; empty where the schedule reads no flags
  /// A ticket counter per stretch of the schedule, then a done counter per
  /// stretch (layered stretches in one launch); zeroed before each solve.
  Counters counters_;
  std::vector<std::uint64_t> level_offsets_;                   ///< level -> first position
  /// The same on a device where a layered stretch runs in one launch (rule
  /// D); empty otherwise (a host kernel reads level_offsets_).
  Kokkos::View<std::uint64_t*, memory_space> device_level_offsets_;
  /// Device backends: level -> its first slice (device_team_threads / lanes
  /// rows), over all levels (rule D's tickets), where device_level_offsets_
  /// is; empty otherwise.
  Kokkos::View<std::uint64_t*, memory_space> slice_offsets_;
  std::vector<std::uint64_t> slices_;  ///< the same, on the host
  Counters progress_;  ///< rule P: a progress counter per block; empty where no stretch pipelines
  SolveShape shape_;
  SolveSchedule schedule_;
  detail::ready_flag epoch_ = 0;
};

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
template <class RowMap, class Entries>
Kokkos::View<std::make_unsigned_t<Offset>*, typename ExecSpace::memory_space>
TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::check_structure(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, Triangle triangle,
    Diagonal diagonal, std::uint64_t& nonzeros) const {
  static_assert(std::is_same_v<typename RowMap::non_const_value_type, Offset> &&
                    std::is_same_v<typename Entries::non_const_value_type, Ordinal>,
                "TriangularSolve::symbolic: row_map holds Offset and entries Ordinal");
  static_assert(RowMap::rank == 1 && Entries::rank == 1,
                "TriangularSolve::symbolic: row_map and entries are rank-1 Views");
  if (row_map.extent(0) == 0)
    throw PlanError::invalid_argument(
        "TriangularSolve::symbolic: row_map is empty",
        "give row_map with rows + 1 offsets (a matrix of 0 rows has row_map = {0})");
  const std::uint64_t rows = row_map.extent(0) - 1;
  if (rows > std::uint64_t(std::numeric_limits<plan_ordinal>::max()))
    throw PlanError::count_overflow("TriangularSolve rows");
  const row_map_type rm = row_map;
  const entries_type en = entries;
  auto diagonal_offset = allocate_view<Kokkos::View<plan_offset*, memory_space>>(
      rows, "solve::diagonal_offset");
  const std::uint64_t defect = detail::first_structure_defect(
      space, rm, en, triangle, diagonal == Diagonal::Unit, diagonal_offset);
  if (defect != detail::no_defect) throw detail::defect_error(defect, rm, en, triangle);
  Offset last_offset = 0;
  Kokkos::deep_copy(space, last_offset, Kokkos::subview(rm, rows));
  space.fence();
  nonzeros = static_cast<std::uint64_t>(last_offset);
  return diagonal_offset;
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
template <class RowMap, class Entries>
void TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::symbolic(const ExecSpace& space,
                                                                   const RowMap& row_map,
                                                                   const Entries& entries,
                                                                   Triangle triangle,
                                                                   Diagonal diagonal) {
  const ProfilingRegion region("strata::solve::symbolic");
  std::uint64_t nonzeros = 0;
  const auto diagonal_offset =
      check_structure(space, row_map, entries, triangle, diagonal, nonzeros);
  const std::uint64_t rows = row_map.extent(0) - 1;
  const row_map_type rm = row_map;
  const entries_type en = entries;

  // The plan of the rows (on a device too deep for the in-edge pass: the
  // rows as a dependency list).
  const bool mirrored = triangle == Triangle::Upper;
  PlannerScratch<ExecSpace, plan_ordinal, plan_offset> scratch;
  std::optional<BarrierPlan<ExecSpace, plan_ordinal>> planned =
      plan_in_edges(space, rm, en, mirrored, scratch);
  if (!planned) {
    const auto list = detail::row_dependencies<plan_ordinal>(space, rm, en, triangle);
    const Kokkos::View<const WaveDependency<plan_ordinal>*, memory_space> read_only = list;
    planned = plan_barriers(space, rows, read_only, scratch);
  }
  BarrierPlan<ExecSpace, plan_ordinal>& plan = *planned;

  // The rows in level order: the plan's waves, turned back into rows where
  // the triangle was levelled from the bottom.
  Kokkos::View<plan_ordinal*, memory_space> order = plan.waves;
  if (mirrored) {
    Kokkos::parallel_for(
        "strata::solve::rows_in_level_order", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
        KOKKOS_LAMBDA(const std::size_t p) {
          order(p) = static_cast<plan_ordinal>(rows - 1 - order(p));
        });
  }
  const auto offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.group_offsets);
  std::vector<std::uint64_t> level_offsets(offsets.extent(0));
  for (std::size_t g = 0; g < offsets.extent(0); ++g) level_offsets[g] = offsets(g);
  if (level_offsets.empty()) level_offsets.push_back(0);
  commit(space, rm, en, triangle, diagonal, nonzeros, order, diagonal_offset,
         std::move(level_offsets));
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
template <class RowMap, class Entries, class Order>
void TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::symbolic_from_levels(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, Triangle triangle,
    Diagonal diagonal, const Order& given_order, std::vector<std::uint64_t> level_offsets) {
  static_assert(Order::rank == 1, "TriangularSolve::symbolic_from_levels: order is rank-1");
  const ProfilingRegion region("strata::solve::symbolic_from_levels");
  std::uint64_t nonzeros = 0;
  const auto diagonal_offset =
      check_structure(space, row_map, entries, triangle, diagonal, nonzeros);
  const std::uint64_t rows = row_map.extent(0) - 1;
  if (level_offsets.empty()) level_offsets.push_back(0);
  bool offsets_ok = level_offsets.front() == 0 && level_offsets.back() == rows &&
                    given_order.extent(0) >= rows;
  for (std::size_t l = 0; offsets_ok && l + 1 < level_offsets.size(); ++l)
    offsets_ok = level_offsets[l] <= level_offsets[l + 1];
  if (!offsets_ok)
    throw PlanError::invalid_argument(
        "TriangularSolve::symbolic_from_levels: the level offsets do not cover the " +
            std::to_string(rows) + " rows of the order",
        "give ascending level offsets from 0 to the row count, and one order entry per row");
  const row_map_type rm = row_map;
  const entries_type en = entries;
  using Positions = Kokkos::View<plan_ordinal*, memory_space>;
  const Positions order = allocate_view<Positions>(rows, "solve::order");
  // level_of(row): its level + 1 (0: not listed); a row listed twice is a defect.
  const Positions level_of = allocate_view<Positions>(rows, "solve::level_of", true);
  const auto device_offsets = device_copy(space, level_offsets);
  const std::uint64_t levels = level_offsets.size() - 1;
  const plan_ordinal none = std::numeric_limits<plan_ordinal>::max();
  std::uint64_t listed_twice = detail::no_defect;
  Kokkos::parallel_reduce(
      "strata::solve::adopt_levels", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t p, std::uint64_t& first) {
        const std::uint64_t r = static_cast<std::uint64_t>(given_order(p));
        order(p) = r < rows ? static_cast<plan_ordinal>(r) : none;
        std::uint64_t lo = 0, hi = levels;  // the level l with offsets(l) <= p < offsets(l+1)
        while (hi - lo > 1) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          if (device_offsets(mid) <= p) lo = mid; else hi = mid;
        }
        const plan_ordinal old = r < rows ? Kokkos::atomic_compare_exchange(
                                                &level_of(r), plan_ordinal(0), plan_ordinal(lo + 1))
                                          : plan_ordinal(1);
        if (old != 0 && p < first) first = p;
      },
      Kokkos::Min<std::uint64_t>(listed_twice));
  // Every row listed, after every row it reads: the first row (lowest) that
  // is not, keyed with the column it reads too early (or itself: unlisted).
  std::uint64_t bad_row = detail::no_defect;
  Kokkos::parallel_reduce(
      "strata::solve::check_levels", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t r, std::uint64_t& first) {
        const plan_ordinal own = level_of(r);
        bool bad = own == 0;
        for (auto e = rm(r); !bad && e < rm(r + 1); ++e) {
          const std::size_t c = static_cast<std::size_t>(en(e));
          bad = c != r && level_of(c) >= own;
        }
        if (bad && r < first) first = r;
      },
      Kokkos::Min<std::uint64_t>(bad_row));
  space.fence();
  if (listed_twice != detail::no_defect || bad_row != detail::no_defect) {
    std::string what;
    if (listed_twice != detail::no_defect) {
      what = "position " + std::to_string(listed_twice) + " of the order names a row outside the " +
             "matrix or one listed before";
    } else {
      const auto h_level = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level_of);
      const auto h_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rm);
      const auto h_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), en);
      std::uint64_t column = bad_row;
      for (auto e = h_map(bad_row); e < h_map(bad_row + 1); ++e) {
        const std::uint64_t c = static_cast<std::uint64_t>(h_entries(e));
        if (c != bad_row && h_level(c) >= h_level(bad_row)) {
          column = c;
          break;
        }
      }
      what = h_level(bad_row) == 0
                 ? "row " + std::to_string(bad_row) + " is not listed"
                 : "row " + std::to_string(bad_row) + " is listed no later than column " +
                       std::to_string(column) + ", which it reads";
    }
    throw PlanError::invalid_argument(
        "TriangularSolve::symbolic_from_levels: the level schedule is not one of this matrix: " +
            what,
        "give the schedule of this matrix and triangle (run the symbolic phase on it again)");
  }
  commit(space, rm, en, triangle, diagonal, nonzeros, order, diagonal_offset,
         std::move(level_offsets));
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
auto TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::device_copy(
    const ExecSpace& space, const std::vector<std::uint64_t>& level_offsets)
    -> Kokkos::View<std::uint64_t*, memory_space> {
  auto device_offsets = allocate_view<Kokkos::View<std::uint64_t*, memory_space>>(
      level_offsets.size(), "solve::level_offsets");
  Kokkos::deep_copy(space, device_offsets,
                    Kokkos::View<const std::uint64_t*, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(level_offsets.data(),
                                                                          level_offsets.size()));
  return device_offsets;
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
auto TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::workspace_for(
    const ExecSpace& space, const SolveSchedule& schedule,
    const std::vector<std::uint64_t>& level_offsets, const std::vector<std::uint64_t>& slices,
    std::uint64_t rows, const ReadyFlags& ready) const -> Workspace {
  Workspace w;
  if (reads_flags(schedule))
    w.ready = ready.extent(0) == rows
                  ? ready
                  : allocate_view<ReadyFlags>(rows, "solve::ready", true);
  // A ticket counter and a done counter per stretch.
  w.counters = allocate_view<Counters>(2 * schedule.stretches.size(), "solve::counters", true);
  bool layered = false;
  for (const SolveStretch& st : schedule.stretches) layered = layered || st.mode == SolveMode::Layered;
  if (!is_host_backend_v<ExecSpace> && policy_.device_layered_one_launch && layered) {
    w.device_level_offsets = device_copy(space, level_offsets);
    w.slice_offsets = device_copy(space, slices);
  }
  for (const SolveStretch& st : schedule.stretches)
    if (st.block_rows != 0)
      w.progress = allocate_view<Counters>(
          detail::PipelineSlots::for_blocks((rows + st.block_rows - 1) / st.block_rows).size(),
          "solve::block_progress", true);
  return w;
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
void TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::commit(
    const ExecSpace& space, row_map_type rm, entries_type en, Triangle triangle,
    Diagonal diagonal, std::uint64_t nonzeros, Kokkos::View<plan_ordinal*, memory_space> order,
    Kokkos::View<plan_offset*, memory_space> diagonal_offset,
    std::vector<std::uint64_t> level_offsets) {
  const std::uint64_t rows = rm.extent(0) - 1;
  SolveShape shape;
  shape.host_backend = is_host_backend_v<ExecSpace>;
  shape.concurrency = static_cast<std::uint64_t>(space.concurrency());
  shape.rows = rows;
  shape.entries = nonzeros;
  if (!shape.host_backend) {
    shape.warp_width = Kokkos::TeamPolicy<ExecSpace>::vector_length_max();
    shape.independent_lanes = DeviceLimits::query(space).independent_lanes;
  }
  shape.level_widths.resize(level_offsets.size() - 1);
  for (std::size_t g = 0; g + 1 < level_offsets.size(); ++g)
    shape.level_widths[g] = level_offsets[g + 1] - level_offsets[g];
  if constexpr (is_host_backend_v<ExecSpace>) {
    if (policy_.host_pipeline && shape.concurrency > 1) {  // what rule P reads
      shape.row_reach = detail::largest_row_reach(space, rm, en, rows);
      shape.pipeline_block_rows = policy_.pipeline_block_rows(shape.row_reach);
      shape.pipeline_level_spans =
          detail::block_level_spans(space, order, level_offsets, rows,
                                    triangle == Triangle::Lower, shape.pipeline_block_rows);
    }
  }
  SolveSchedule schedule = policy_.schedule(shape, mode_);
  const std::uint64_t levels = shape.level_widths.size();
  // Each position's first entry, length and diagonal, in level order.
  Layout layout;
  layout.order = order;
  const auto first =
      allocate_view<Kokkos::View<plan_offset*, memory_space>>(rows, "solve::row_first");
  const auto packed =
      allocate_view<Kokkos::View<std::uint32_t*, memory_space>>(rows, "solve::row_shape");
  Kokkos::View<plan_offset* [2], memory_space> wide;
  if (detail::has_wide_row(space, rm))
    wide = allocate_view<Kokkos::View<plan_offset* [2], memory_space>>(rows, "solve::wide_rows");
  detail::fill_row_layout(space, order, rm, diagonal_offset, diagonal == Diagonal::Unit, first,
                          packed, wide);
  layout.first = first;
  layout.shape = packed;
  layout.wide = wide;
  // Rule D's slices: ceil(width / rows per slice) per level, as offsets.
  std::vector<std::uint64_t> slices;
  if (!shape.host_backend) {
    const std::uint64_t per =
        std::uint64_t(device_team_threads / policy_.layered_row_lanes(shape));
    slices.assign(levels + 1, 0);
    for (std::uint64_t l = 0; l < levels; ++l)
      slices[l + 1] = slices[l] + (shape.level_widths[l] + per - 1) / per;
  }
  Workspace workspace = workspace_for(space, schedule, level_offsets, slices, rows, ReadyFlags());
  space.fence();

  // Nothing has thrown: the handle takes the new state.
  triangle_ = triangle;
  diagonal_ = diagonal;
  rows_ = rows;
  nonzeros_ = nonzeros;
  row_map_ = rm;
  entries_ = en;
  layout_ = layout;
  take(std::move(workspace));
  level_offsets_ = std::move(level_offsets);
  slices_ = std::move(slices);
  shape_ = std::move(shape);
  schedule_ = std::move(schedule);
  epoch_ = 0;
  symbolic_complete_ = true;
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
template <class Values, class B, class X>
void TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::solve(const ExecSpace& space,
                                                                const Values& values, const B& b,
                                                                const X& x) {
  static_assert(std::is_same_v<typename Values::non_const_value_type, Scalar> &&
                    std::is_same_v<typename B::non_const_value_type, Scalar> &&
                    std::is_same_v<typename X::non_const_value_type, Scalar>,
                "TriangularSolve::solve: values, b and x hold Scalar");
  static_assert(Values::rank == 1, "TriangularSolve::solve: values is a rank-1 View");
  static_assert(B::rank == X::rank && (B::rank == 1 || B::rank == 2),
                "TriangularSolve::solve: b and x are both rank-1 (one right-hand side) or both "
                "rank-2 (several)");
  static_assert(B::rank == 1 || (std::is_same_v<typename B::array_layout, Kokkos::LayoutLeft> &&
                                 std::is_same_v<typename X::array_layout, Kokkos::LayoutLeft>),
                "TriangularSolve::solve: several right-hand sides are rank-2 LayoutLeft Views");
  static_assert(!std::is_const_v<typename X::value_type>,
                "TriangularSolve::solve: x is written");
  const ProfilingRegion region("strata::solve::solve");
  if (!symbolic_complete_)
    throw PlanError::invalid_argument("TriangularSolve::solve: no symbolic phase yet",
                                      "call symbolic(space, row_map, entries, triangle) first");
  const std::size_t rhs = B::rank == 2 ? b.extent(1) : 1;
  if (b.extent(0) != rows_ || x.extent(0) != rows_ || (B::rank == 2 && x.extent(1) != rhs))
    throw PlanError::invalid_argument(
        "TriangularSolve::solve: b is " + std::to_string(b.extent(0)) + " x " +
            std::to_string(rhs) + " and x " + std::to_string(x.extent(0)) + " x " +
            std::to_string(B::rank == 2 ? x.extent(1) : 1) + " for a matrix of " +
            std::to_string(rows_) + " rows",
        "give b and x one row per matrix row and the same number of columns");
  if (values.extent(0) < nonzeros_)
    throw PlanError::invalid_argument(
        "TriangularSolve::solve: values holds " + std::to_string(values.extent(0)) +
            " entries but the rows span " + std::to_string(nonzeros_),
        "give the values of the matrix the symbolic phase was given, in its entries' order");
  const values_type v = values;
  if (diagonal_ == Diagonal::NonUnit) {
    const std::uint64_t zero_pivot = with_layout(
        [&](const auto& layout) { return detail::lowest_zero_diagonal(space, v, layout); });
    if (zero_pivot != detail::no_defect)
      throw detail::defect_error(zero_pivot, row_map_, entries_, triangle_);
  }
  if (rows_ == 0 || rhs == 0) return;
  if (++epoch_ == 0) {  // the epochs wrapped: clear the flags once
    Kokkos::deep_copy(space, ready_, detail::ready_flag(0));
    epoch_ = 1;
  }
  using BConst = Kokkos::View<typename B::const_data_type, typename B::array_layout, memory_space>;
  using XView = Kokkos::View<typename X::non_const_data_type, typename X::array_layout, memory_space>;
  // Rule V where it applies: x starts unset and the dataflow rows poll it.
  // Not in place: a row's b would read as its x before the row ran.
  const bool value_ready = !is_host_backend_v<ExecSpace> && policy_.device_value_ready &&
                           detail::ValueBits<Scalar>::polled && schedule_.dataflow_levels != 0 &&
                           !overlaps(b, x);
  if (value_ready)
    Kokkos::parallel_for("strata::solve::unset_x",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, rows_ * rhs),
                         detail::UnsetX<XView>{x, rows_});
  // Flags are read only by dataflow stretches of several workers (on a
  // device every dataflow stretch not under rule V); ready_ is allocated
  // where they may be.
  const bool flags = reads_flags(schedule_) && !value_ready;
  with_layout([&](const auto& layout) {
    constexpr bool W = std::decay_t<decltype(layout)>::wide_rows;
    using System = detail::RowSystem<memory_space, Ordinal, Offset, Scalar, plan_ordinal,
                                     plan_offset, BConst, XView, W>;
    System system{entries_, v,   layout, ready_, b, x, rhs, epoch_, diagonal_ == Diagonal::Unit,
                  flags,    value_ready};
    run_stretches(space, system);
    return 0;
  });
}

template <class ExecSpace, class Ordinal, class Offset, class Scalar>
template <class System>
void TriangularSolve<ExecSpace, Ordinal, Offset, Scalar>::run_stretches(const ExecSpace& space,
                                                                        const System& system) {
  constexpr bool host = is_host_backend_v<ExecSpace>;
  // The device kernels: a row per team thread, its entries over rule R's
  // vector lanes.
  const int lanes = policy_.layered_row_lanes(shape_);
  const bool one_launch = host || policy_.device_layered_one_launch;  // rules L and D
  bool counted = false;  // a kernel of the schedule takes tickets
  for (const SolveStretch& st : schedule_.stretches)
    counted = counted || st.mode == SolveMode::Dataflow || one_launch;
  if (counted) Kokkos::deep_copy(space, counters_, std::uint64_t(0));
  // Rule A: a device launch's league, capped by the teams its lookahead needs.
  const auto device_league = [&](const SolveStretch& st, std::uint64_t tickets,
                                 std::uint64_t rows_per_team) {
    std::uint64_t league = tickets < 65535 ? tickets : 65535;
    const std::uint64_t wanted = policy_.device_teams_in_flight(shape_, st, rows_per_team);
    if (wanted != 0 && wanted < league) league = wanted;
    return static_cast<int>(league < 1 ? 1 : league);
  };
  // counters_: a ticket per stretch, then a done counter per stretch.
  const std::size_t done_base = schedule_.stretches.size();
  // A host layered kernel reads the host's level offsets in place.
  Kokkos::View<const std::uint64_t*, memory_space> level_offsets = device_level_offsets_;
  if constexpr (host)
    level_offsets = Kokkos::View<const std::uint64_t*, memory_space>(level_offsets_.data(),
                                                                     level_offsets_.size());
  std::size_t ticket = 0;
  for (const SolveStretch& st : schedule_.stretches) {
    const std::size_t first = level_offsets_[st.first_level];
    const std::size_t last = level_offsets_[st.end_level];
    if (st.mode == SolveMode::Layered) {
      if constexpr (host) {
        // Rules L and B (policy.hpp): the stretch in one launch, its levels
        // in slices taken by ticket, synchronised by the stretch's done
        // counter.
        const std::uint64_t workers = static_cast<std::uint64_t>(space.concurrency());
        const std::uint64_t slices = workers * policy_.slices_per_worker(shape_, st);
        Kokkos::parallel_for(
            "strata::solve::layered", Kokkos::RangePolicy<ExecSpace>(space, 0, workers),
            detail::LevelSyncRows<System>{system, level_offsets, counters_, ticket,
                                          done_base + ticket, st.first_level, st.end_level,
                                          slices});
        ++ticket;
      } else if (one_launch) {
        // Rule D: the stretch in one launch, a team per slice of a level.
        const int team = device_team_threads / lanes;
        const std::uint64_t tickets = slices_[st.end_level] - slices_[st.first_level];
        Kokkos::parallel_for(
            "strata::solve::layered_one_launch",
            Kokkos::TeamPolicy<ExecSpace>(space, device_league(st, tickets, std::uint64_t(team)),
                                          team, lanes),
            detail::LevelSyncTeamRows<System, ExecSpace>{system, level_offsets,
                                                         slice_offsets_, counters_, ticket,
                                                         done_base + ticket, st.first_level,
                                                         st.end_level});
        ++ticket;
      } else {
        for (std::uint64_t l = st.first_level; l < st.end_level; ++l) {
          const std::size_t begin = level_offsets_[l], end = level_offsets_[l + 1];
          const int team = device_team_threads / lanes;
          const int league = static_cast<int>((end - begin + team - 1) / team);
          Kokkos::parallel_for("strata::solve::layered",
                               Kokkos::TeamPolicy<ExecSpace>(space, league, team, lanes),
                               detail::LayeredTeamRows<System, ExecSpace>{system, begin, end});
        }
      }
    } else {
      if constexpr (host) {
        const std::uint64_t levels = st.end_level - st.first_level;
        const std::uint64_t workers =
            st.workers != 0 ? st.workers : static_cast<std::uint64_t>(space.concurrency());
        // Chunks small enough that every worker finds one in a level of
        // average width, and at most 64 rows (a ticket per chunk).
        std::uint64_t chunk = (last - first) / (levels * 2 * workers);
        chunk = chunk < 1 ? 1 : chunk > 64 ? 64 : chunk;
        const detail::DataflowRows<System> rows{system,  counters_, ticket,
                                                first,   last,     static_cast<std::size_t>(chunk)};
        if (st.block_rows != 0) {  // rule P: pipelined blocks in row order
          const std::size_t blocks = (rows_ + st.block_rows - 1) / st.block_rows;
          Kokkos::deep_copy(space, progress_, std::uint64_t(0));
          Kokkos::parallel_for(
              "strata::solve::pipelined", Kokkos::RangePolicy<ExecSpace>(space, 0, workers),
              detail::PipelinedRows<System, row_map_type>{
                  system, row_map_, counters_, ticket, progress_,
                  detail::PipelineSlots::for_blocks(blocks), static_cast<std::size_t>(st.block_rows),
                  triangle_ == Triangle::Lower});
          ++ticket;
          continue;
        }
        // One worker (rule C): the stretch's rows in level order, which is a
        // substitution order, so no row waits and none publishes with a
        // fence. On one_thread_space (Kokkos::Serial where the build has it):
        // a launch of a multi-threaded host space would leave its other
        // threads spinning at the launch's end barrier, and on a loaded or
        // oversubscribed machine they take the worker's core.
        if (workers == 1 && st.row_order) {  // rule O: the whole solve in row order
          Kokkos::parallel_for(
              "strata::solve::row_order", one_thread_policy(space),
              detail::RowOrderRows<System, row_map_type>{system, row_map_,
                                                         triangle_ == Triangle::Lower});
          ++ticket;
          continue;
        }
        if (workers == 1) {
          Kokkos::parallel_for("strata::solve::in_order", one_thread_policy(space),
                               detail::InOrderRows<System>{system, first, last});
          ++ticket;
          continue;
        }
        Kokkos::parallel_for("strata::solve::dataflow",
                             Kokkos::RangePolicy<ExecSpace>(space, 0, workers), rows);
      } else {
        // Rule R: a row per st.lanes lanes, a ticket per team of
        // device_dataflow_warps_per_team warps.
        const int row_lanes = st.lanes < 1 ? shape_.warp_width : st.lanes;
        const int warps = policy_.device_dataflow_warps_per_team < 1
                              ? 1
                              : policy_.device_dataflow_warps_per_team;
        const int team = std::max(1, warps * shape_.warp_width / row_lanes);  // rows per ticket
        const std::uint64_t tickets = (last - first + team - 1) / team;
        const int league = device_league(st, tickets, std::uint64_t(team));
        const Kokkos::TeamPolicy<ExecSpace> policy(space, league, team, row_lanes);
        if (system.value_ready)
          Kokkos::parallel_for(
              "strata::solve::dataflow", policy,
              detail::DataflowTeamRows<System, ExecSpace, true>{system, counters_, ticket, first,
                                                                last});
        else
          Kokkos::parallel_for(
              "strata::solve::dataflow", policy,
              detail::DataflowTeamRows<System, ExecSpace, false>{system, counters_, ticket,
                                                                 first, last});
      }
      ++ticket;
    }
  }
}

}  // namespace strata::solve

namespace strata {
using solve::TriangularSolve;
}  // namespace strata
