#pragma once
// Parallel validation of a dependency list. The first offending dependency in
// input order is found with a min-reduction over offending indices, so the
// reported error is the same on every backend and thread count. A dependency
// is checked for an out-of-range endpoint before it is checked for a self
// edge, as the seed does.

#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata {

/// Index of the first offending dependency in input order, or SIZE_MAX when
/// every dependency is valid (a min-reduction over offending indices).
template <class ExecSpace, class Ordinal, class... P>
std::size_t first_invalid_dependency(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies) {
  const std::size_t count = dependencies.extent(0);
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  if (count == 0) return none;
  std::size_t first = none;
  // Compare in 64 bits: a wave_count larger than the ordinal's range is
  // rejected by the caller, but keep the comparison free of narrowing.
  const std::uint64_t waves = wave_count;
  Kokkos::parallel_reduce(
      "strata::validate_dependencies", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const std::size_t i, std::size_t& lowest) {
        const WaveDependency<Ordinal> d = dependencies(i);
        const bool bad = std::uint64_t(d.before) >= waves || std::uint64_t(d.after) >= waves ||
                         d.before == d.after;
        if (bad && i < lowest) lowest = i;
      },
      Kokkos::Min<std::size_t>(first));
  return first;
}

/// The order of a valid dependency list, learnt in the validation pass.
struct DependencyOrder {
  /// every dependency has before < after: the ids are a topological order
  bool ids_topological = true;
  /// the list is sorted by `before` (nondecreasing), or by `after`: with
  /// topological ids, every dependency then comes after all dependencies
  /// into its `before`, so levels can be pushed along the list in one pass
  bool by_before = true, by_after = true;
  /// the list is sorted by `before` or by `after` nonincreasing: the same
  /// holds for the list read backwards (a list emitted in reverse order)
  bool by_before_descending = true, by_after_descending = true;
  /// levels can be pushed along the list read forwards
  bool forward_in_order() const { return ids_topological && (by_before || by_after); }
  /// ... or, failing that, read backwards
  bool reversed() const {
    return ids_topological && !forward_in_order() && (by_before_descending || by_after_descending);
  }
  bool edges_in_order() const { return forward_in_order() || reversed(); }
};

/// first_invalid_dependency that also learns the list's DependencyOrder in
/// the same pass (one reduction: a min over offending indices and a bitwise
/// or of order flags).
template <class ExecSpace, class Ordinal, class... P>
std::size_t first_invalid_dependency(
    const ExecSpace& space, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
    DependencyOrder& order) {
  const std::size_t count = dependencies.extent(0);
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  order = DependencyOrder{};
  if (count == 0) return none;
  const std::uint64_t waves = wave_count;
  std::size_t first = none;
  // 1: a backward edge, 2 / 4: not sorted by before / after, 8 / 16: not
  // sorted by before / after nonincreasing
  unsigned flags = 0;
  Kokkos::parallel_reduce(
      "strata::validate_dependencies_and_order", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const std::size_t i, std::size_t& lowest, unsigned& f) {
        const WaveDependency<Ordinal> d = dependencies(i);
        const bool bad = std::uint64_t(d.before) >= waves || std::uint64_t(d.after) >= waves ||
                         d.before == d.after;
        if (bad && i < lowest) lowest = i;
        // Branch-free: on a shuffled list these comparisons are coin flips.
        const WaveDependency<Ordinal> prev = dependencies(i == 0 ? 0 : i - 1);
        f |= unsigned(d.before > d.after) | (unsigned(prev.before > d.before) << 1) |
             (unsigned(prev.after > d.after) << 2) | (unsigned(prev.before < d.before) << 3) |
             (unsigned(prev.after < d.after) << 4);
      },
      Kokkos::Min<std::size_t>(first), Kokkos::BOr<unsigned>(flags));
  order.ids_topological = (flags & 1u) == 0;
  order.by_before = (flags & 2u) == 0;
  order.by_after = (flags & 4u) == 0;
  order.by_before_descending = (flags & 8u) == 0;
  order.by_after_descending = (flags & 16u) == 0;
  return first;
}

/// The error an offending dependency is reported with.
template <class Ordinal>
PlanError dependency_error(std::uint64_t wave_count, const WaveDependency<Ordinal>& offender) {
  if (std::uint64_t(offender.before) >= wave_count || std::uint64_t(offender.after) >= wave_count)
    return PlanError::invalid_wave(wave_count, offender.before, offender.after);
  return PlanError::self_dependency(offender.before);
}

/// Throws InvalidWave / SelfDependency for the first offending dependency.
/// With `order`: also learns the list's DependencyOrder (same pass).
template <class ExecSpace, class Ordinal, class... P>
void validate_dependencies(const ExecSpace& space, std::uint64_t wave_count,
                           const Kokkos::View<const WaveDependency<Ordinal>*, P...>& dependencies,
                           DependencyOrder* order = nullptr) {
  const std::size_t first =
      order ? first_invalid_dependency(space, wave_count, dependencies, *order)
            : first_invalid_dependency(space, wave_count, dependencies);
  if (first == std::numeric_limits<std::size_t>::max()) return;
  WaveDependency<Ordinal> offender{};
  Kokkos::deep_copy(space, Kokkos::View<WaveDependency<Ordinal>, Kokkos::HostSpace>(&offender),
                    Kokkos::subview(dependencies, first));
  space.fence();
  throw dependency_error(wave_count, offender);
}

}  // namespace strata
