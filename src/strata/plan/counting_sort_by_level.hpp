#pragma once
// The host backends' layout step, public because two modules share it: a
// stable counting sort of positions 0..n-1 by their level, given the size
// of every level. The planner's one-pass steps lay a plan out with it
// (plan::detail::layout_from_level_counts: waves in (level, id) order and the
// group offsets), and the Kokkos Kernels symbolic phase places a matrix's
// rows into an sptrsv handle with it (nodes_grouped_by_level,
// nodes_per_level and level_list on the way).
//
// The positions run in consecutive slices, one per thread as a static
// schedule gives them: each slice counts its positions per level, one thread
// turns the counts into every slice's places, and each slice places its
// positions. With one slice (one thread, few positions, or more levels than
// a slice table is worth) the given sizes serve and the sort is a single
// pass on one thread — unless every level holds one position (a chain):
// then the sort is the inverse of level_of, one parallel pass. A caller
// whose levels are all non-empty says so (LevelSizes::NonEmpty) and as many
// levels as positions is then enough to know it; otherwise one reduction
// over the sizes checks it. Every slice count gives the same result.
//
//   counting_sort_by_level(space, n, groups, sizes,
//       level_of,     // (k) -> level of position k, below groups
//       counted,      // (k, level): once per position, before it is placed
//       place,        // (slot, k): position k goes to slot (0..n-1)
//       group,        // (l, first, size) for l = 0..groups (l == groups: first = n, size 0)
//       level_sizes); // optional: LevelSizes::Any (default) or NonEmpty
//
// The callbacks run inside host kernels (KOKKOS_LAMBDA or plain lambdas on a
// host backend), `counted` and `place` in parallel and `group` in level
// order on one thread, except where every level holds one position: then
// `group` too runs in parallel, once per level. A device backend has the
// radix sort of layout_from_levels.
#include <algorithm>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/one_thread_policy.hpp>
#include <strata/core/storage.hpp>

namespace strata {

/// The slices counting_sort_by_level uses for n positions in `groups`
/// levels on `space`: one per thread, at least 4,096 positions each, and one
/// only where the slices' table (slices x groups counters) would outgrow the
/// positions (a chain's million levels).
template <class ExecSpace>
std::uint64_t counting_sort_slices(const ExecSpace& space, std::uint64_t n, std::uint64_t groups) {
  const std::uint64_t threads = std::uint64_t(space.concurrency());
  const std::uint64_t parts = std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, n / 4096));
  return parts > 1 && parts * groups <= n ? parts : 1;
}

/// What a caller of counting_sort_by_level knows of its level sizes: Any
/// (a level may be empty), or NonEmpty (every level below `groups` holds a
/// position; the levels of a DAG's longest paths do). NonEmpty spares the
/// one-per-level check; a caller that says it wrongly gets a wrong layout.
enum class LevelSizes { Any, NonEmpty };

namespace plan::detail {

/// Whether sizes(l) == 1 for every level l < n: one reduction, which waits
/// for `space`.
template <class ExecSpace, class SizeView>
bool every_level_holds_one(const ExecSpace& space, std::uint64_t n, const SizeView& sizes) {
  std::uint64_t others = 0;
  Kokkos::parallel_reduce(
      "strata::counting_sort_by_level::one_per_level_check",
      Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t l, std::uint64_t& count) {
        if (sizes(l) != 1) ++count;
      },
      others);
  return others == 0;
}

}  // namespace plan::detail

/// Sorts the positions 0..n-1 by level_of(k) (< groups), stably; `sizes(l)`
/// holds level l's positions on entry and is consumed. A level may be empty
/// unless `level_sizes` is NonEmpty. Throws StorageReserveFailed where the
/// slices' table cannot be allocated; asynchronous on `space` otherwise, but
/// for the check of the sizes where there are as many levels as positions
/// and the caller said Any.
template <class ExecSpace, class SizeView, class LevelOf, class Counted, class Place, class Group>
void counting_sort_by_level(const ExecSpace& space, std::uint64_t n, std::uint64_t groups,
                            const SizeView& sizes, LevelOf level_of, Counted counted, Place place,
                            Group group, LevelSizes level_sizes = LevelSizes::Any) {
  using C = typename SizeView::non_const_value_type;
  if (groups == n && n > 1 && space.concurrency() > 1 &&
      (level_sizes == LevelSizes::NonEmpty || plan::detail::every_level_holds_one(space, n, sizes))) {
    // One position per level (n positions in n non-empty levels): position
    // k goes to slot level_of(k), and every level starts where its number
    // says. On one thread the pass below does the same work; where a level
    // is empty and another shared, so does it.
    Kokkos::parallel_for(
        "strata::counting_sort_by_level::one_per_level",
        Kokkos::RangePolicy<ExecSpace>(space, 0, n + 1), KOKKOS_LAMBDA(const std::size_t k) {
          if (k == n) {
            group(n, n, std::uint64_t(0));
            return;
          }
          const std::uint64_t l = level_of(k);
          counted(k, l);
          place(l, k);
          group(l, l, std::uint64_t(1));
        });
    return;
  }
  const std::uint64_t parts = counting_sort_slices(space, n, groups);
  if (parts == 1) {
    Kokkos::parallel_for(
        "strata::counting_sort_by_level::one_slice", one_thread_policy(space),
        KOKKOS_LAMBDA(const std::size_t) {
          std::uint64_t running = 0;
          for (std::uint64_t l = 0; l < groups; ++l) {
            const std::uint64_t size = sizes(l);
            group(l, running, size);
            sizes(l) = C(running);
            running += size;
          }
          group(groups, n, std::uint64_t(0));
          for (std::uint64_t k = 0; k < n; ++k) {
            const std::uint64_t l = level_of(k);
            counted(k, l);
            place(std::uint64_t(sizes(l)++), k);
          }
        });
    return;
  }
  // places(t * stride + l): slice t's count of level l, then its next slot
  // there; every slice's row starts on a cache line of its own (rows
  // sharing a line would make the slices' increments fight over it)
  const std::uint64_t stride = (groups + 7) / 8 * 8;
  using Table = Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>;
  const Table places = allocate_view<Table>(parts * stride, "level counts per slice");
  const std::uint64_t slice = (n + parts - 1) / parts;
  Kokkos::parallel_for(
      "strata::counting_sort_by_level::count", Kokkos::RangePolicy<ExecSpace>(space, 0, parts),
      KOKKOS_LAMBDA(const std::size_t t) {
        for (std::uint64_t l = 0; l < groups; ++l) places(t * stride + l) = 0;
        const std::uint64_t end = (t + 1) * slice < n ? (t + 1) * slice : n;
        for (std::uint64_t k = t * slice; k < end; ++k) {
          const std::uint64_t l = level_of(k);
          counted(k, l);
          ++places(t * stride + l);
        }
      });
  Kokkos::parallel_for(
      "strata::counting_sort_by_level::places", one_thread_policy(space),
      KOKKOS_LAMBDA(const std::size_t) {
        std::uint64_t running = 0;
        for (std::uint64_t l = 0; l < groups; ++l) {
          const std::uint64_t first = running;
          for (std::uint64_t t = 0; t < parts; ++t) {
            const std::uint64_t c = places(t * stride + l);
            places(t * stride + l) = running;
            running += c;
          }
          group(l, first, running - first);
        }
        group(groups, n, std::uint64_t(0));
      });
  Kokkos::parallel_for(
      "strata::counting_sort_by_level::place", Kokkos::RangePolicy<ExecSpace>(space, 0, parts),
      KOKKOS_LAMBDA(const std::size_t t) {
        const std::uint64_t end = (t + 1) * slice < n ? (t + 1) * slice : n;
        for (std::uint64_t k = t * slice; k < end; ++k) place(places(t * stride + level_of(k))++, k);
      });
}

}  // namespace strata
