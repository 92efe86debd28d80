#pragma once
// Group offsets from per-wave levels alone (after a fused tail, whose layers
// the host never saw, and in layout_from_levels): the group count from the
// deepest level, the offsets from the sorted layout.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>

namespace strata::plan::detail {

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

/// offsets (size groups + 1) from the waves already laid out in (level, wave
/// id) order: group g starts where the sorted levels step up to g. One
/// thread per boundary between consecutive waves writes the starts of the
/// groups it steps over (none of the atomics of a histogram, whose one
/// atomic per wave onto a few counters serialises on a GPU). Every level
/// must be below `groups`; a level no wave has gets an empty group.
template <class ExecSpace, class LevelView, class WavesView, class OffsetsView>
void group_offsets_from_sorted_levels(const ExecSpace& space, std::uint64_t groups,
                                      const LevelView& level, const WavesView& sorted_waves,
                                      const OffsetsView& offsets) {
  using Ordinal = typename OffsetsView::non_const_value_type;
  const std::size_t n = sorted_waves.extent(0);
  Kokkos::parallel_for(
      "strata::plan::level_offsets", Kokkos::RangePolicy<ExecSpace>(space, 0, n + 1),
      KOKKOS_LAMBDA(const std::size_t k) {
        // the groups that start at position k: past the level before k, up to k's
        const std::uint64_t first = k == 0 ? 0 : std::uint64_t(level(sorted_waves(k - 1))) + 1;
        const std::uint64_t last = k < n ? std::uint64_t(level(sorted_waves(k))) : groups;
        for (std::uint64_t g = first; g <= last; ++g) offsets(g) = Ordinal(k);
      });
}

}  // namespace strata::plan::detail
