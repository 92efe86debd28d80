#pragma once
// Plans the rows of a triangular matrix — waves given by their in-edges in a
// topological numbering — without a dependency list, a CSR build or a
// validation pass of the planner's own:
//
//   std::optional<BarrierPlan<ExecSpace, Ordinal>> plan =
//       strata::plan_in_edges(space, row_map, entries, mirrored, scratch);
//
// Wave w is row w (mirrored: row rows-1-w, an upper triangular matrix
// levelled bottom-up); its predecessors are the row's entries other than its
// diagonal, each column c being wave c (mirrored: rows-1-c). Every
// predecessor must be a lower wave (every entry inside 0..rows-1 and on the
// declared side of the diagonal): this is the seam for callers that hold a
// triangular matrix (kokkos_kernels/sptrsv_symbolic.hpp).
//
// The levels come from one pass in id order: on a host backend one thread
// (level(i) = 1 + max level(pred), Kokkos Kernels' one-pass level set, as
// rule T of the planner policy does for the planner), on a device the
// ticket-ordered pass (plan/detail/ticket_levels.hpp). The device pass gives
// up on a graph deeper than PlanPolicy::ticket_depth_budget(): then nothing
// is returned (std::nullopt) and the caller plans the rows as a dependency
// list (plan_barriers). The plan is plan_barriers' for the same
// dependencies, bit for bit.
//
// Who checks the rows: the host pass checks them as it reads them (offsets,
// range, side, and the diagonal where InEdgeCheck::require_diagonal asks for
// it) and returns std::nullopt with InEdgeCheck::valid false on the first
// row that fails — a caller checking first would read the matrix twice. The
// device pass trusts its caller (plan_in_edges_checks_rows<ExecSpace>() is
// false there: a row waiting on a higher row would wait forever), so the
// caller checks before it.
#include <cstdint>
#include <optional>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/profiling_region.hpp>
#include <strata/core/storage.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/detail/ticket_levels.hpp>
#include <strata/plan/detail/topological_levels.hpp>
#include <strata/plan/layout_from_levels.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/plan/policy/plan_policy.hpp>

namespace strata {

/// What plan_in_edges checks of the rows, and what it found.
struct InEdgeCheck {
  bool require_diagonal = false;  ///< in: every row must hold its own index (a diagonal)
  bool checked = false;           ///< out: the pass checked the rows (host backends)
  bool valid = true;              ///< out: where checked, whether every row passed
};

/// Whether plan_in_edges checks the rows itself on this execution space (its
/// host pass does; a device caller checks before calling).
template <class ExecSpace>
constexpr bool plan_in_edges_checks_rows() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                    typename ExecSpace::memory_space>::accessible;
}

/// The host pass of plan_in_edges on its own, for a caller that lays the
/// levels out itself (kokkos_kernels/sptrsv_symbolic.hpp writes a Kokkos
/// Kernels handle straight from them, as Kokkos Kernels' own phase does):
/// level(w) for every wave w (row w; mirrored, row rows-1-w) — with
/// `by_row`, level(r) for every row r instead (the same unless mirrored) —
/// and count(l) = the waves of level l for every l below the returned level
/// count. `level` has one entry per row, `count` at least as many; both are
/// overwritten.
/// The rows are checked as plan_in_edges checks them (the diagonal where
/// `require_diagonal`); std::nullopt on the first that fails. Host backends
/// only (one thread in row order; a device levels its rows by tickets).
template <class ExecSpace, class RowMap, class Entries, class LevelView, class CountView>
std::optional<std::uint64_t> levels_from_in_edges(const ExecSpace& space, const RowMap& row_map,
                                                  const Entries& entries, bool mirrored,
                                                  bool require_diagonal, const LevelView& level,
                                                  const CountView& count, bool by_row = false) {
  static_assert(plan_in_edges_checks_rows<ExecSpace>(),
                "strata::levels_from_in_edges runs on host backends (a device levels its rows "
                "with plan_in_edges' ticket-ordered pass)");
  plan::detail::InEdgeLevelOptions options;
  options.mirrored = mirrored;
  options.require_diagonal = require_diagonal;
  options.by_row = by_row;
  const plan::detail::CheckedLevels pass =
      plan::detail::in_edge_levels(space, row_map, entries, level, count, options);
  if (!pass.valid) return std::nullopt;
  return pass.levels.groups;
}

template <class ExecSpace, class Ordinal, class Offset, class RowMap, class Entries>
std::optional<BarrierPlan<ExecSpace, Ordinal>> plan_in_edges(
    const ExecSpace& space, const RowMap& row_map, const Entries& entries, bool mirrored,
    PlannerScratch<ExecSpace, Ordinal, Offset>& scratch, InEdgeCheck* check = nullptr) {
  using Plan = BarrierPlan<ExecSpace, Ordinal>;
  const std::uint64_t waves = row_map.extent(0) == 0 ? 0 : row_map.extent(0) - 1;
  const ProfilingRegion region("strata::plan_in_edges");
  Plan plan;
  plan.level = allocate_view<typename Plan::view_type>(waves, plan_view_field::level);
  plan.waves = allocate_view<typename Plan::view_type>(waves, plan_view_field::waves);
  if constexpr (plan_in_edges_checks_rows<ExecSpace>()) {
    // rule T: one thread in id order, checking the rows and counting the
    // waves per level on the way
    reserve_capacity(scratch.order, waves, "waves per level");
    const auto count = prefix(scratch.order, waves);
    const bool require_diagonal = check != nullptr && check->require_diagonal;
    // The pass's narrow levels (one byte per wave, where it takes them) in
    // the remaining in-degrees' words, which this path leaves unused: a
    // reused scratch plans the same shape again without allocating.
    const std::size_t narrow_bytes = plan::detail::narrow_levels_bytes(waves, sizeof(Ordinal));
    if (narrow_bytes != 0)
      reserve_capacity(scratch.remaining, (narrow_bytes + sizeof(Offset) - 1) / sizeof(Offset),
                       "remaining in-degree");
    plan::detail::InEdgeLevelOptions options;
    options.mirrored = mirrored;
    options.require_diagonal = require_diagonal;
    if (narrow_bytes != 0)
      options.narrow_storage = reinterpret_cast<std::uint8_t*>(scratch.remaining.data());
    const plan::detail::CheckedLevels pass =
        plan::detail::in_edge_levels(space, row_map, entries, plan.level, count, options);
    const std::optional<std::uint64_t> groups =
        pass.valid ? std::optional<std::uint64_t>(pass.levels.groups) : std::nullopt;
    if (check != nullptr) {
      check->checked = true;
      check->valid = groups.has_value();
    }
    if (!groups) {
      if (check != nullptr) return std::nullopt;
      throw PlanError::invalid_argument(
          "plan_in_edges: a row of the " + std::to_string(waves) +
              "-row CSR has offsets outside its entries, or an entry outside 0.." +
              std::to_string(waves == 0 ? 0 : waves - 1) + " or on the " +
              (mirrored ? "lower" : "upper") + " side of the diagonal",
          std::string("give the in-edges of a ") + (mirrored ? "upper" : "lower") +
              " triangular matrix (pass an InEdgeCheck to learn of a bad matrix without an "
              "exception)");
    }
    plan.group_offsets = allocate_view<typename Plan::view_type>(
        *groups + 1, plan_view_field::group_offsets);
    plan::detail::layout_from_level_counts(space, *groups, plan.level, count, plan.group_offsets,
                                     plan.waves);
  } else {  // the ticket-ordered pass, then the layout from the levels
    if (check != nullptr) check->checked = false;
    const plan::detail::TicketLevelsResult levels =
        plan::detail::pull_ticket_levels(space, row_map, entries, mirrored, plan.level,
                                   PlanPolicy::standard().ticket_depth_budget());
    if (!levels.finished) return std::nullopt;
    plan.group_offsets =
        allocate_view<typename Plan::view_type>(levels.groups + 1, plan_view_field::group_offsets);
    reserve_layout(space, waves, scratch, levels.groups);
    layout_from_levels(space, levels.groups, plan, scratch);
  }
  space.fence();
  return plan;
}

}  // namespace strata
