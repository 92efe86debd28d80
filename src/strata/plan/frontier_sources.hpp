#pragma once
// Layer 0 of a planner's walk: the waves nobody waits for, compacted in
// ascending order by a scan, every other wave marked unreached. The start of
// every mode of plan_barriers (detail/frontier_start.hpp) and of each rank's
// walk in distributed planning, which reuses it rather than a twin.
#include <cstddef>
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>

namespace strata {

/// Level of waves no layer has reached yet.
template <class Ordinal>
inline constexpr Ordinal unreached_level = std::numeric_limits<Ordinal>::max();

/// Layer 0 of waves 0..count-1: those with no remaining in-degree get level 0
/// and are compacted, ascending, into `order`; every other wave gets the
/// unreached level. Returns how many there are.
template <class ExecSpace, class RemainingView, class OrderView, class LevelView>
std::uint64_t compact_sources(const ExecSpace& space, std::size_t count,
                              const RemainingView& remaining, const OrderView& order,
                              const LevelView& level) {
  using Ordinal = typename LevelView::non_const_value_type;
  constexpr Ordinal unreached = unreached_level<Ordinal>;
  scan_value_t<Ordinal> sources = 0;
  Kokkos::parallel_scan(
      "strata::plan::sources", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const std::size_t w, scan_value_t<Ordinal>& position, const bool final) {
        const bool source = remaining(w) == 0;
        if (final) {
          level(w) = source ? Ordinal(0) : unreached;
          if (source) order(position) = Ordinal(w);
        }
        if (source) ++position;
      },
      sources);
  return sources;
}

}  // namespace strata
