#pragma once
// The levels of a triangular matrix's rows written into a Kokkos Kernels
// sptrsv handle as the level schedule its solve reads, field for field as
// Kokkos Kernels' own symbolic phase leaves it (schedule_layout.hpp):
// nodes_grouped_by_level, nodes_per_level (device, zero past the last level)
// and its host copy, the host copy of nodes_grouped_by_level, level_list, the
// level count, the stored diagonal offsets where that version records them,
// then the TP1CHAIN chain (Kokkos Kernels' own host pass over the level
// sizes) and the symbolic-complete flag. The three arrays come from a
// BarrierPlan of the rows on a device (write_schedule_from_plan) and straight
// from the rows' levels on a host backend (write_schedule_from_levels);
// finish_level_schedule writes the rest. The handle has been through
// new_init_handle(rows): its Views are allocated, the host level counts zero.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_sptrsv_symbolic_impl.hpp>

#include <strata/core/error.hpp>
#include <strata/kokkos_kernels/detail/schedule_layout.hpp>
#include <strata/kokkos_kernels/detail/row_position.hpp>
#include <strata/plan/barrier_plan.hpp>
#include <strata/plan/counting_sort_by_level.hpp>

namespace strata::kokkos_kernels::detail {

/// Throws when TP1CHAIN's chain offsets would not fit the handle: Kokkos
/// Kernels' chain pointer holds `rows` entries (new_init_handle), but a
/// schedule of one row per level that chains nothing (threshold < 1) needs
/// rows + 1. Reads the threshold as new_init_handle will set it.
template <class SptrsvHandle>
void check_chain_fits(const SptrsvHandle& sh, std::uint64_t rows, std::uint64_t levels) {
  if (!sh.algm_requires_symb_chain() || rows == 0 || levels != rows) return;
  long long threshold = static_cast<long long>(sh.get_chain_threshold());
  if (threshold == -1) threshold = sh.get_team_size() == -1 ? 0 : sh.get_team_size();
  if (threshold >= 1) return;
  throw PlanError::invalid_argument(
      "sptrsv_symbolic: the " + std::to_string(rows) + " rows form " + std::to_string(levels) +
          " levels of one row each, and with chain threshold " + std::to_string(threshold) +
          " SEQLVLSCHD_TP1CHAIN needs " + std::to_string(rows + 1) +
          " chain offsets, one more than Kokkos Kernels' handle holds",
      "set a chain threshold >= 1 (reset_chain_threshold) or use SEQLVLSCHD_TP1 or "
      "SEQLVLSCHD_RP for a matrix whose rows form one chain");
}

/// Writes nodes_grouped_by_level, nodes_per_level and level_list of `sh`
/// from `plan` (waves = row positions), in parallel (the device path).
template <class ExecSpace, class SptrsvHandle, class Plan>
void write_schedule_from_plan(const ExecSpace& space, SptrsvHandle& sh, const Plan& plan,
                              bool lower) {
  using lno_t = typename SptrsvHandle::nnz_lno_t;
  using signed_t = typename SptrsvHandle::signed_integral_t;
  const std::uint64_t rows = plan.wave_count();
  const std::uint64_t levels = plan.group_count();
  const auto waves = plan.waves;
  const auto level = plan.level;
  const auto offsets = plan.group_offsets;

  // nodes_grouped_by_level: the plan's waves as rows. Upper triangular rows
  // come from the bottom (wave w is row rows-1-w), so a level's waves in
  // ascending order are its rows in descending order; the one-pass layout
  // lists them ascending, i.e. the level's waves read backwards.
  const auto grouped = sh.get_nodes_grouped_by_level();
  const bool ascending_upper = upper_levels_ascending;
  Kokkos::parallel_for(
      "strata::kokkos_kernels::nodes_grouped_by_level",
      Kokkos::RangePolicy<ExecSpace>(space, 0, rows), KOKKOS_LAMBDA(const std::size_t k) {
        if (lower) {
          grouped(k) = lno_t(waves(k));
        } else if (!ascending_upper) {
          grouped(k) = lno_t(rows - 1 - waves(k));
        } else {
          const std::uint64_t g = level(waves(k));
          const std::uint64_t mirrored = std::uint64_t(offsets(g)) + offsets(g + 1) - 1 - k;
          grouped(k) = lno_t(rows - 1 - waves(mirrored));
        }
      });

  // nodes_per_level: every entry (Kokkos Kernels copies its whole host array).
  const auto per_level = sh.get_nodes_per_level();
  Kokkos::parallel_for(
      "strata::kokkos_kernels::nodes_per_level",
      Kokkos::RangePolicy<ExecSpace>(space, 0, per_level.extent(0)),
      KOKKOS_LAMBDA(const std::size_t l) {
        per_level(l) = l < levels ? lno_t(offsets(l + 1) - offsets(l)) : lno_t(0);
      });

  // level_list(row): the row's level, in the version's base.
  const auto level_list = sh.get_level_list();
  const long long base = level_list_base;
  Kokkos::parallel_for(
      "strata::kokkos_kernels::level_list", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const std::size_t i) {
        level_list(i) = signed_t(level(row_position(i, rows, lower))) + signed_t(base);
      });
}

/// Writes nodes_grouped_by_level, nodes_per_level and level_list of `sh`
/// straight from the rows' levels (strata::levels_from_in_edges by row:
/// level(r) of row r, count(l) = rows of level l for l < groups; `count` is
/// consumed) — the host path, with no plan in between: the rows sorted by
/// level in the order a level lists them, as Kokkos Kernels' own phase does
/// (strata::counting_sort_by_level, in one slice per thread: done by one
/// thread while Kokkos ran two, it took twice as long as alone, because
/// new_init_handle's parallel fills leave half of the handle's arrays in the
/// other core's cache).
template <class ExecSpace, class SptrsvHandle, class LevelView, class CountView>
void write_schedule_from_levels(const ExecSpace& space, SptrsvHandle& sh, const LevelView& level,
                                const CountView& count, std::uint64_t groups, bool lower) {
  using lno_t = typename SptrsvHandle::nnz_lno_t;
  using signed_t = typename SptrsvHandle::signed_integral_t;
  const std::uint64_t rows = level.extent(0);
  const auto grouped = sh.get_nodes_grouped_by_level();
  const auto per_level = sh.get_nodes_per_level();
  const auto level_list = sh.get_level_list();
  const long long base = level_list_base;
  // A level's rows ascend, but descend for an upper matrix where the
  // version lists them so (schedule_layout.hpp): position k is row
  // rows-1-k then.
  const bool descending = !lower && !upper_levels_ascending;
  const auto row_at = KOKKOS_LAMBDA(std::uint64_t k) { return descending ? rows - 1 - k : k; };
  counting_sort_by_level(
      space, rows, groups, count,
      KOKKOS_LAMBDA(std::uint64_t k) { return std::uint64_t(level(row_at(k))); },
      KOKKOS_LAMBDA(std::uint64_t k, std::uint64_t l) {
        level_list(row_at(k)) = signed_t(l) + signed_t(base);
      },
      KOKKOS_LAMBDA(std::uint64_t slot, std::uint64_t k) { grouped(slot) = lno_t(row_at(k)); },
      KOKKOS_LAMBDA(std::uint64_t l, std::uint64_t, std::uint64_t size) {
        if (l < per_level.extent(0)) per_level(l) = lno_t(size);
      },
      LevelSizes::NonEmpty);  // a row of level l > 0 waits for one of level l - 1
  // nodes_per_level past the last level and its sentinel: zero (Kokkos
  // Kernels copies its whole host array)
  if (groups + 1 < per_level.extent(0))
    Kokkos::parallel_for(
        "strata::kokkos_kernels::nodes_per_level",
        Kokkos::RangePolicy<ExecSpace>(space, groups + 1, per_level.extent(0)),
        KOKKOS_LAMBDA(const std::size_t l) { per_level(l) = lno_t(0); });
}

/// What follows the three arrays: the stored diagonal offsets where the
/// version records them, the host copies, the level count, the TP1CHAIN
/// chain and the symbolic-complete flag.
template <class ExecSpace, class SptrsvHandle, class RowMap, class Entries>
void finish_level_schedule(const ExecSpace& space, SptrsvHandle& sh, std::uint64_t levels,
                           const RowMap& row_map, const Entries& entries, bool lower) {
  using lno_t = typename SptrsvHandle::nnz_lno_t;
  const std::uint64_t rows = row_map.extent(0) - 1;
  // Stored diagonal offsets (the sweep layout only): the sweep visits a row's
  // entries forwards (lower) or backwards (upper), so a repeated diagonal
  // leaves its last (lower) or first (upper) offset.
  {
    if (fills_stored_diagonal && sh.is_stored_diagonal()) {
      const auto diagonal = sh.get_diagonal_offsets();
      Kokkos::parallel_for(
          "strata::kokkos_kernels::diagonal_offsets",
          Kokkos::RangePolicy<ExecSpace>(space, 0, rows), KOKKOS_LAMBDA(const std::size_t i) {
            const std::uint64_t begin = row_map(i), end = row_map(i + 1);
            for (std::uint64_t e = begin; e < end; ++e) {
              const std::uint64_t r = lower ? e : begin + end - 1 - e;
              if (static_cast<std::uint64_t>(entries(r)) == i) {
                diagonal(i) = lno_t(r);
                if (!lower) break;
              }
            }
          });
      Kokkos::deep_copy(space, sh.get_host_diagonal_offsets(), diagonal);
    }
  }

  // The host copies: nodes_grouped_by_level whole, nodes_per_level's levels
  // (the rest is zero since new_init_handle).
  Kokkos::deep_copy(space, sh.get_host_nodes_grouped_by_level(), sh.get_nodes_grouped_by_level());
  const auto per_level = sh.get_nodes_per_level();
  const auto host_per_level = sh.get_host_nodes_per_level();
  Kokkos::deep_copy(space, Kokkos::subview(host_per_level, std::make_pair(std::size_t(0), std::size_t(levels))),
                    Kokkos::subview(per_level, std::make_pair(std::size_t(0), std::size_t(levels))));
  space.fence();
  sh.set_num_levels(static_cast<typename SptrsvHandle::size_type>(levels));

  // Kokkos Kernels' host pass over the level sizes (it writes chain offsets
  // 0..chain entries; on 0 rows its first write would fall outside).
  if (sh.algm_requires_symb_chain() && rows != 0)
    KokkosSparse::Impl::Experimental::symbolic_chain_phase(sh, host_per_level);
  sh.set_symbolic_complete();
}

}  // namespace strata::kokkos_kernels::detail
