#pragma once
// Start of every mode: remaining in-degree of each wave (atomic count over
// the CSR entries) and layer 0, the waves nobody waits for, compacted in
// ascending order by a scan. Every other wave gets the unreached level.
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>

namespace strata::detail {

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

template <class ExecSpace, class Ordinal, class Offset, class RemainingView, class OrderView,
          class LevelView>
std::uint64_t frontier_start(const ExecSpace& space,
                             const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                             const RemainingView& remaining, const OrderView& order,
                             const LevelView& level) {
  const std::size_t waves = graph.wave_count();
  const auto entries = graph.entries;
  Kokkos::deep_copy(space, remaining, Offset(0));
  Kokkos::parallel_for(
      "strata::plan::in_degree", Kokkos::RangePolicy<ExecSpace>(space, 0, graph.dependency_count()),
      KOKKOS_LAMBDA(const std::size_t e) {
        detail::fetch_add<ExecSpace>(&remaining(entries(e)), Offset(1));
      });
  return compact_sources(space, waves, remaining, order, level);
}

}  // namespace strata::detail
