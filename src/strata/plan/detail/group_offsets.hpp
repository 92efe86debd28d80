#pragma once
// Group offsets from per-wave levels alone (after a fused tail, whose layers
// the host never saw): histogram of the levels, then an inclusive scan.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/core/scan.hpp>

namespace strata::detail {

/// Number of groups: the deepest level + 1 (0 for no waves).
template <class ExecSpace, class LevelView>
std::uint64_t group_count_of(const ExecSpace& space, const LevelView& level) {
  using Ordinal = typename LevelView::non_const_value_type;
  if (level.extent(0) == 0) return 0;
  scan_value_t<Ordinal> deepest = 0;
  Kokkos::parallel_reduce(
      "strata::plan::deepest_level", Kokkos::RangePolicy<ExecSpace>(space, 0, level.extent(0)),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& m) {
        if (level(w) > m) m = level(w);
      },
      Kokkos::Max<scan_value_t<Ordinal>>(deepest));
  return std::uint64_t(deepest) + 1;
}

/// offsets (size groups + 1) from the levels.
template <class ExecSpace, class LevelView, class OffsetsView>
void group_offsets_from_levels(const ExecSpace& space, const LevelView& level,
                               const OffsetsView& offsets) {
  using Ordinal = typename OffsetsView::non_const_value_type;
  Kokkos::deep_copy(space, offsets, Ordinal(0));
  Kokkos::parallel_for(
      "strata::plan::level_histogram", Kokkos::RangePolicy<ExecSpace>(space, 0, level.extent(0)),
      KOKKOS_LAMBDA(const std::size_t w) {
        Kokkos::atomic_fetch_add(&offsets(level(w) + 1), Ordinal(1));
      });
  strata::inclusive_scan_in_place(space, offsets, "strata::plan::level_offsets");
}

}  // namespace strata::detail
