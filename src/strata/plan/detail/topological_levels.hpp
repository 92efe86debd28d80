#pragma once
// Levels in one pass where the ids are a topological order (every dependency
// goes from a lower to a higher id): visiting the waves in id order, a wave's
// level is final when it is reached — all its predecessors have lower ids and
// have pushed `level + 1` along their out-edges already — so
//
//   level(i) = 1 + max level(pred)        (0 for a wave nothing waits for)
//
// is one pass over the CSR, O(waves + dependencies), with no frontier, no
// in-degrees, no atomics and no barrier: Kokkos Kernels' serial level set
// (lower_tri_symbolic, 4.6), here pushed along the out-edges that
// build_dependency_graph made. Where the dependency list itself is in a
// topological order (ids topological and the list sorted by one endpoint,
// learnt in the validation pass), the same push runs along the list and no
// CSR is built at all. The pass also counts the waves of each level, so the
// layout is one counting pass (layout_from_level_counts: the same layout as
// the public seam layout_from_levels, whose radix sort would cost two
// kernels and a scan per 8 bits of depth). Kahn's layers are exactly the
// longest-path levels, so the plan is identical to the layer walk's.
//
// The pass is sequential: one iteration of a kernel on the execution space.
// PlanPolicy::choose_step (rule T) keeps it to host backends, where one
// thread walking the graph in memory order beats a layer walk with a barrier
// per layer: LevelsStep below, in place of the whole walk. The pass over a
// dependency list (no CSR) is decided by the same rule before any CSR is
// built (plan_barriers.hpp).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/one_thread_policy.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/prefetch.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/counting_sort_by_level.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

/// Whether every row's targets lie above the row, i.e. the ids are a
/// topological order (one reduction over the CSR). A built graph is free of
/// self edges, so `>` and `>=` agree on it.
template <class ExecSpace, class Ordinal, class Offset>
bool csr_ids_topological(const ExecSpace& space,
                         const DependencyGraph<ExecSpace, Ordinal, Offset>& graph) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  unsigned backward = 0;
  Kokkos::parallel_reduce(
      "strata::plan::ids_topological", Kokkos::RangePolicy<ExecSpace>(space, 0, graph.wave_count()),
      KOKKOS_LAMBDA(const std::size_t w, unsigned& back) {
        for (std::size_t e = row_map(w); e < std::size_t(row_map(w + 1)); ++e)
          if (std::size_t(entries(e)) <= w) back = 1;
      },
      Kokkos::Max<unsigned>(backward));
  return backward == 0;
}

struct TopologicalLevels {
  std::uint64_t groups = 0;   ///< deepest level + 1 (0 for no waves)
  std::uint64_t sources = 0;  ///< waves of level 0
};

/// The waves per level of a pass on one thread, counted one wave at a time
/// in an order where a level first comes up only after a shallower one has
/// (id order, the ids a topological order): count(l) is zeroed
/// when level l first comes up, and the first wave of a level stores its
/// count without loading it (every wave of a chain is one: loading the count
/// it had just zeroed made a chain's pass several times as long). Once
/// every wave is counted, `levels` is the deepest level + 1.
template <class CountView>
struct LevelCounter {
  using CountType = typename CountView::non_const_value_type;
  CountView count;
  std::uint64_t levels = 0;  ///< count(l) holds its value for l < levels

  KOKKOS_INLINE_FUNCTION void add(std::uint64_t level) {
    if (level >= levels) {
      for (; levels < level; ++levels) count(levels) = CountType(0);
      count(level) = CountType(1);
      levels = level + 1;
    } else {
      ++count(level);
    }
  }
};

/// The levels of a pass that checks its input as it reads it: `valid` false
/// when it stopped at an input it does not take (nothing else defined then).
struct CheckedLevels {
  TopologicalLevels levels;
  bool valid = true;
};

/// After a checking pass: result = {groups, sources, 1} where it passed, 0
/// in result(2) where it stopped (`host`: the result on the host).
template <class HostResultView>
CheckedLevels checked_levels_of(const HostResultView& host) {
  CheckedLevels out;
  out.valid = host(2) == 1;
  if (out.valid) {
    out.levels.groups = host(0);
    out.levels.sources = host(1);
  }
  return out;
}

/// checked_levels_of the device's result.
template <class ResultView>
CheckedLevels read_checked_levels_result(const ResultView& result) {
  return checked_levels_of(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result));
}

/// The end of a pass that may level one byte wide first (csr_push_levels,
/// in_edge_levels): reads the pass's result {groups, sources, valid, where}
/// and, where a valid pass ended in `narrow` (where == 1), widens the
/// first `waves` of those levels into `level` in parallel.
template <class ExecSpace, class ResultView, class LevelView, class NarrowView>
CheckedLevels finish_narrow_level_pass(const ExecSpace& space, const char* widen_label,
                                       const ResultView& result, std::size_t waves,
                                       const LevelView& level, const NarrowView& narrow) {
  using LevelType = typename LevelView::non_const_value_type;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result);
  if (host(2) == 1 && host(3) == 1)
    Kokkos::parallel_for(
        widen_label, Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
        KOKKOS_LAMBDA(const std::size_t w) { level(w) = LevelType(narrow(w)); });
  return checked_levels_of(host);
}

/// One pass over a graph whose ids are a topological order, pushing levels
/// along the out-edges in id order: level(w) for every wave, and count(l) =
/// waves of level l for l < groups (`count` holds at least wave_count
/// entries). Both Views are overwritten. Unchecked, the caller knows the ids
/// are topological (csr_ids_topological or the CSR build's validation);
/// Checked, the pass checks every target against its row as it reads it (a
/// compare on a value it loads anyway, free where the scattered level loads
/// set the pace) and stops at the first that is not above its row, with
/// `valid` false (the levels are then partial and the counts unset).
///
/// Where `narrow` holds a byte per wave, the pass pushes one-byte levels
/// into it while they fit one (the scattered read-modify-writes of a
/// shallow graph then touch a quarter of the cache lines, as in_edge_levels
/// does) and, where it ended narrow, copies the levels into `level` in
/// parallel at the end. At the first wave of level 255 with targets it
/// moves to `level`: the levels so far copied over once, or, where fewer
/// than one edge per 16 waves was pushed by then, pushed again at full
/// width from the first wave. The waves per level are counted as each
/// wave's level becomes final (when the pass reaches it), not in a pass of
/// their own: on one thread that pass is as fast as (chain) or faster than
/// (fan-out, ILU) a full-width pass with a counting pass after it.
template <bool Checked, class ExecSpace, class Ordinal, class Offset, class LevelView,
          class CountView, class NarrowView = Kokkos::View<std::uint8_t*, typename ExecSpace::memory_space>>
CheckedLevels csr_push_levels(const ExecSpace& space,
                              const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                              const LevelView& level, const CountView& count,
                              const NarrowView& narrow = NarrowView()) {
  const std::size_t waves = graph.wave_count();
  if (waves == 0) return CheckedLevels{};
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  using LevelType = typename LevelView::non_const_value_type;
  using NarrowType = typename NarrowView::non_const_value_type;
  static_assert(sizeof(NarrowType) == 1, "one byte per wave");
  Kokkos::View<std::uint64_t[4], typename ExecSpace::memory_space> result(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::topological levels result"));
  const bool narrow_first = sizeof(LevelType) > 1 && narrow.extent(0) >= waves;
  Kokkos::parallel_for(
      Checked ? "strata::plan::checked_topological_levels" : "strata::plan::topological_levels",
      one_thread_policy(space), KOKKOS_LAMBDA(const std::size_t) {
        result(2) = 0;  // invalid until the last row has passed
        result(3) = 0;  // the levels in `level`
        LevelCounter<CountView> counter{count};
        const std::size_t edges = entries.extent(0);
        constexpr std::size_t bad_row = ~std::size_t(0);
        // Pushes the levels of waves from, from + 1, ... into `levels`;
        // returns `waves` when every wave is done, bad_row at a target that
        // fails the check, or (narrow) the first wave whose targets' level
        // would not fit the element type (none of its targets touched yet).
        const auto run = [&](auto* const levels, std::size_t from) {
          using Element = std::remove_pointer_t<std::remove_const_t<decltype(levels)>>;
          constexpr bool narrow_pass = !std::is_same_v<Element, LevelType>;
          for (std::size_t w = from; w < waves; ++w) {
            const std::size_t begin = row_map(w);
            const std::size_t end = row_map(w + 1);
            if constexpr (narrow_pass) {
              if (levels[w] == Element(~Element(0)) && end > begin) return w;
            }
            // w's level is final (its predecessors are below w): counted now.
            const std::uint64_t mine = std::uint64_t(levels[w]);
            counter.add(mine);
            const Element next = Element(mine + 1);
            for (std::size_t e = begin; e < end; ++e) {
              // The targets' levels are scattered (a power-law graph's
              // hubs): the level of entry e + prefetch_distance is
              // prefetched.
              if (e + prefetch_distance < edges)
                prefetch_write(levels + entries(e + prefetch_distance));
              const Ordinal t = entries(e);
              if constexpr (Checked) {
                if (std::size_t(t) <= w) return bad_row;  // a built graph's targets are ids
              }
              // Every target's level is stored, raised or not: a store only
              // where it rises is a branch on a scattered load that
              // mispredicts about as often as it is taken (on power-law
              // graphs the branch made the loop nearly twice as slow).
              const Element old = levels[t];
              levels[t] = old < next ? next : old;
            }
          }
          return waves;
        };
        std::size_t stopped = 0;
        if (narrow_first) {
          for (std::size_t w = 0; w < waves; ++w) narrow(w) = NarrowType(0);
          stopped = run(narrow.data(), 0);
          if (stopped == waves) {
            result(3) = 1;  // the levels in `narrow`
          } else if (stopped != bad_row &&
                     std::size_t(row_map(stopped)) - std::size_t(row_map(0)) > waves / 16) {
            // every wave's level so far: final below `stopped`, partial above
            for (std::size_t w = 0; w < waves; ++w) level(w) = LevelType(narrow(w));
            stopped = run(level.data(), stopped);
          } else if (stopped != bad_row) {
            // Deep early (a chain reaches level 255 at wave 255, sweep3d-200
            // at 11,399 of 8M): the few edges pushed so far are pushed again
            // at full width, cheaper than copying every wave's byte over.
            counter = LevelCounter<CountView>{count};
            for (std::size_t w = 0; w < waves; ++w) level(w) = LevelType(0);
            stopped = run(level.data(), 0);
          }
        } else {
          for (std::size_t w = 0; w < waves; ++w) level(w) = LevelType(0);
          stopped = run(level.data(), 0);
        }
        if (stopped == bad_row) return;
        result(0) = counter.levels;  // every wave was counted
        result(1) = std::uint64_t(count(0));
        result(2) = 1;
      });
  return finish_narrow_level_pass(space, "strata::plan::topological_levels_widen", result,
                                  waves, level, narrow);
}

/// The level pass straight over a dependency list (no CSR is built), on one
/// thread: level(after) = max(level(after), level(before) + 1) in list order,
/// or in reverse list order when `reverse`. Unchecked (ordered_dependency_
/// levels below), the list must be topologically ordered; Checked, it is
/// checked as it is read and the pass stops at the first dependency that
/// fails (checked_ordered_dependency_levels below). The check is a template
/// parameter, so the unchecked loop carries none of it.
template <bool Checked, class ExecSpace, class DependencyView, class LevelView, class CountView>
CheckedLevels dependency_list_levels(const ExecSpace& space, std::uint64_t wave_count,
                                     const DependencyView& dependencies, const LevelView& level,
                                     const CountView& count, bool reverse) {
  const std::size_t waves = wave_count;
  if (waves == 0)
    return CheckedLevels{TopologicalLevels{}, !Checked || dependencies.extent(0) == 0};
  const std::size_t edges = dependencies.extent(0);
  using LevelType = typename LevelView::non_const_value_type;
  Kokkos::View<std::uint64_t[3], typename ExecSpace::memory_space> result(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::list levels result"));
  Kokkos::parallel_for(
      Checked ? "strata::plan::checked_ordered_dependency_levels"
              : "strata::plan::ordered_dependency_levels",
      one_thread_policy(space), KOKKOS_LAMBDA(const std::size_t) {
        result(2) = 0;  // invalid until the last dependency has passed
        for (std::size_t w = 0; w < waves; ++w) level(w) = LevelType(0);
        LevelType* const levels = level.data();
        bool by_before = true, by_after = true;
        std::uint64_t last_before = 0, last_after = 0;
        // The level of the current run of one `after` is kept in a register
        // and stored when the run ends: a list sorted by `after` (a matrix's
        // rows) would otherwise load the store it just made, once per
        // dependency, a store-to-load wait on every step. A run's `before`s
        // lie below its `after`, so no dependency reads the level being held.
        std::uint64_t run_after = waves;  // none yet
        std::uint64_t run_level = 0;
        // The level is stored whether the run raised it or not (only not
        // for "no run yet"): in a list sorted by `before` a run is one
        // dependency, and a store only where the level rose mispredicts
        // about as often as it is taken (on a power-law list sorted by
        // `before` it doubled the loop's time; sorted by `after`, no change).
        const auto end_run = [&]() {
          if (run_after >= waves) return;  // no run yet
          levels[run_after] = LevelType(run_level);
        };
        for (std::size_t k = 0; k < edges; ++k) {
          if (k + prefetch_distance < edges) {  // the levels of dependency k + prefetch_distance
            const std::size_t j = k + prefetch_distance;
            const auto ahead = dependencies(reverse ? edges - 1 - j : j);
            const std::uint64_t b = static_cast<std::uint64_t>(ahead.before);
            const std::uint64_t a = static_cast<std::uint64_t>(ahead.after);
            if (!Checked || (a < waves && b < a)) {
              prefetch_read(levels + b);
              prefetch_write(levels + a);
            }
          }
          const auto d = dependencies(reverse ? edges - 1 - k : k);
          // A negative (signed) id converts to a huge one: outside as well.
          const std::uint64_t before = static_cast<std::uint64_t>(d.before);
          const std::uint64_t after = static_cast<std::uint64_t>(d.after);
          if constexpr (Checked) {
            if (after >= waves || before >= after) return;
            by_before = by_before && before >= last_before;
            by_after = by_after && after >= last_after;
            if (!by_before && !by_after) return;
            last_before = before;
            last_after = after;
          }
          if (after != run_after) {
            end_run();
            run_after = after;
            run_level = levels[after];
          }
          const std::uint64_t next = std::uint64_t(level(before)) + 1;  // final: see above
          run_level = next > run_level ? next : run_level;
        }
        end_run();
        // The waves per level, in a pass of their own, in id order with
        // LevelCounter's lazy zeroing (no pass zeroing the counts first).
        // Counting each wave in the pass above as its level becomes final
        // (at dependency (b, a) the waves up to b are) made that pass much
        // slower: the count's store waits on a level just stored.
        LevelCounter<CountView> counter{count};
        for (std::size_t w = 0; w < waves; ++w) counter.add(std::uint64_t(levels[w]));
        result(0) = counter.levels;  // every wave was counted
        result(1) = std::uint64_t(count(0));
        result(2) = 1;
      });
  return read_checked_levels_result(result);
}

/// The pass over a dependency list whose order is topological
/// (DependencyOrder::edges_in_order(): ids topological and the list sorted by
/// one endpoint, so every dependency comes after all dependencies into its
/// `before`), in list order or, when `reverse`, in reverse list order (a
/// list sorted by one endpoint nonincreasing: DependencyOrder::reversed()).
template <class ExecSpace, class DependencyView, class LevelView, class CountView>
TopologicalLevels ordered_dependency_levels(const ExecSpace& space, std::uint64_t wave_count,
                                            const DependencyView& dependencies,
                                            const LevelView& level, const CountView& count,
                                            bool reverse = false) {
  return dependency_list_levels<false>(space, wave_count, dependencies, level, count, reverse)
      .levels;
}

/// ordered_dependency_levels over a list nobody has validated, forward only
/// (PlanPolicy::check_while_levelling): every dependency is checked as
/// it is read — `after` inside 0..wave_count-1, `before` < `after` (so inside
/// too, and no self dependency), and the list sorted by `before` or by
/// `after` (nondecreasing) up to it — and the pass stops at the first that
/// fails, with `valid` false. A list that passes is valid and
/// DependencyOrder::forward_in_order(), so the levels are the ones
/// ordered_dependency_levels gives after the validation pass.
template <class ExecSpace, class DependencyView, class LevelView, class CountView>
CheckedLevels checked_ordered_dependency_levels(const ExecSpace& space, std::uint64_t wave_count,
                                                const DependencyView& dependencies,
                                                const LevelView& level, const CountView& count) {
  return dependency_list_levels<true>(space, wave_count, dependencies, level, count, false);
}

/// Below this many bytes of levels the one-pass levels keep their own
/// width; above, they level into one byte per wave first (see
/// in_edge_levels, csr_push_levels). Measured on one thread (the lower pass
/// over ILU patterns): levels that fit a core's cache cost the same either
/// way; from about 1 MiB of levels the narrow pass is faster, and more so as
/// the levels grow.
inline constexpr std::size_t narrow_levels_min_bytes = std::size_t(1) << 20;

/// The bytes of one-byte levels a level pass (in_edge_levels,
/// csr_push_levels) takes for `waves` levels of `level_bytes` each: one per
/// wave above the threshold, none below it.
inline std::size_t narrow_levels_bytes(std::size_t waves, std::size_t level_bytes,
                                        std::size_t narrow_min_bytes = narrow_levels_min_bytes) {
  return level_bytes > 1 && waves * level_bytes >= narrow_min_bytes ? waves : 0;
}

/// in_edge_levels' pass, for one side of the diagonal, with or without the
/// prefetch (of the wide levels), the levels by wave or by row (template
/// parameters: the branches on them leave the loop). With a non-empty
/// `narrow` the pass levels into it first and moves to `level` at the first
/// level that does not fit a byte; result(3) says where the levels ended.
template <bool Mirrored, bool Prefetch, bool ByRow, class ExecSpace, class RowMap, class Entries,
          class LevelView, class NarrowView, class CountView, class ResultView>
void in_edge_levels_pass(const ExecSpace& space, const RowMap& row_map, const Entries& entries,
                         bool require_diagonal, const LevelView& level, const NarrowView& narrow,
                         const CountView& count, const ResultView& result) {
  static_assert(!(Mirrored && Prefetch), "the prefetch serves the lower pass only");
  const std::size_t waves = level.extent(0);
  using LevelType = typename LevelView::non_const_value_type;
  using NarrowType = typename NarrowView::non_const_value_type;
  Kokkos::parallel_for(
      "strata::plan::in_edge_levels", one_thread_policy(space),
      KOKKOS_LAMBDA(const std::size_t) {
        const long long stored = static_cast<long long>(entries.extent(0));
        LevelCounter<CountView> counter{count};
        result(2) = 0;  // invalid until the last row has passed
        result(3) = 0;  // the levels in `level`
        // Where row r's level is kept: wave waves-1-r's slot when mirrored,
        // unless the caller asked for the rows' order.
        const auto slot = [&](std::size_t r) { return Mirrored && !ByRow ? waves - 1 - r : r; };
        constexpr std::size_t bad_row = ~std::size_t(0);
        // Levels waves from, from + 1, ... into `levels`; returns `waves`
        // when every wave is levelled, bad_row at a row that fails its
        // check, or the first wave whose level does not fit the element
        // type (nothing of that wave written or counted yet).
        const auto run = [&](auto* const levels, std::size_t from, auto prefetch_pass) {
          using Element = std::remove_pointer_t<std::remove_const_t<decltype(levels)>>;
          constexpr bool narrow_pass = !std::is_same_v<Element, LevelType>;
          constexpr bool prefetch = decltype(prefetch_pass)::value;
          for (std::size_t w = from; w < waves; ++w) {
            const std::size_t row = Mirrored ? waves - 1 - w : w;
            const long long begin = static_cast<long long>(row_map(row));
            const long long end = static_cast<long long>(row_map(row + 1));
            if (begin < 0 || end < begin || end > stored) return bad_row;
            // A column is read as long long first, so that a negative one is
            // huge as size_t. Legal: the diagonal, or 0 <= c < row (lower),
            // row < c < rows (upper).
            const auto prefetch_ahead = [&](long long e) {
              // The columns' levels are scattered (a permuted matrix): the
              // level of the entry prefetch_distance ahead is prefetched,
              // where the levels outgrow a core's L2 (prefetch_min_bytes;
              // lower passes only, see in_edge_levels).
              if constexpr (prefetch) {
                const long long ahead = e + static_cast<long long>(prefetch_distance);
                if (ahead < stored) {
                  const std::size_t a = std::size_t(static_cast<long long>(entries(ahead)));
                  if (a < waves) prefetch_read(levels + slot(a));
                }
              }
            };
            const auto level_after = [&](std::size_t c) {
              return std::uint64_t(levels[slot(c)]) + 1;
            };
            std::uint64_t mine = 0;  // 1 + the deepest predecessor, 0 for none
            // A row sorted by column keeps its diagonal last (lower) or first
            // (upper): that entry is checked once, and the others are read
            // with one unsigned compare, a branch that a valid row never
            // takes (testing every entry for the diagonal mispredicts once
            // per row, a measurable share of the pass). Any other row is read
            // by the general loop below.
            const long long diagonal_at = Mirrored ? begin : end - 1;
            bool sorted = end > begin &&
                          std::size_t(static_cast<long long>(entries(diagonal_at))) == row;
            if (sorted) {
              // legal: c < row (lower); row < c < waves, i.e. c - (row + 1) < waves - (row + 1) (upper)
              const std::size_t span = Mirrored ? waves - (row + 1) : row;
              const std::size_t shift = Mirrored ? row + 1 : 0;
              for (long long e = Mirrored ? begin + 1 : begin; e < (Mirrored ? end : end - 1); ++e) {
                prefetch_ahead(e);
                const std::size_t c = std::size_t(static_cast<long long>(entries(e)));
                if (c - shift >= span) {
                  sorted = false;
                  break;
                }
                const std::uint64_t next = level_after(c);
                mine = next > mine ? next : mine;
              }
            }
            if (!sorted) {
              mine = 0;
              bool diagonal = false;
              for (long long e = begin; e < end; ++e) {
                prefetch_ahead(e);
                // The check is a branch that is never taken on a valid
                // matrix, off the path of the level's load (folding it into
                // the load's address cost a third of the pass).
                const std::size_t c = std::size_t(static_cast<long long>(entries(e)));
                if (c == row) {
                  diagonal = true;
                  continue;
                }
                if (Mirrored ? (c < row || c >= waves) : c > row) return bad_row;
                const std::uint64_t next = level_after(c);
                mine = next > mine ? next : mine;
              }
              if (require_diagonal && !diagonal) return bad_row;
            }
            if constexpr (narrow_pass) {
              if (mine > std::uint64_t(Element(~Element(0)))) return w;
            }
            levels[slot(row)] = Element(mine);
            counter.add(mine);  // the waves per level, counted on the way
          }
          return waves;
        };
        using WidePrefetch = std::integral_constant<bool, Prefetch>;
        std::size_t stopped = 0;
        if (narrow.extent(0) != 0) {
          // Narrow first (no prefetch: a byte per wave mostly stays cached),
          // wide from the first level that does not fit, after moving the
          // levels so far over.
          stopped = run(narrow.data(), 0, std::false_type{});
          if (stopped == waves) {
            result(3) = 1;  // the levels in `narrow`
          } else if (stopped != bad_row) {
            for (std::size_t w = 0; w < stopped; ++w) {
              const std::size_t at = slot(Mirrored ? waves - 1 - w : w);
              level(at) = LevelType(NarrowType(narrow(at)));
            }
            stopped = run(level.data(), stopped, WidePrefetch{});
          }
        } else {
          stopped = run(level.data(), 0, WidePrefetch{});
        }
        if (stopped == bad_row) return;
        result(0) = counter.levels;
        result(1) = std::uint64_t(count(0));
        result(2) = 1;
      });
}

/// The same pass in pull form over an in-edge CSR (a triangular matrix's
/// rows, as Kokkos Kernels' one-pass level set reads them): wave w's
/// predecessors are the entries of row r = (mirrored ? waves-1-w : w) other
/// than r itself, entry c being wave (mirrored ? waves-1-c : c). level(w) =
/// 1 + max level(pred) in id order, with the waves per level in `count` (at
/// least `level.extent(0)` entries). With `by_row`, level(r) is row r's
/// level (wave waves-1-r's when mirrored; the same otherwise): a mirrored
/// pass reads and writes its levels in the rows' order, as Kokkos Kernels'
/// does, and that is 7 % faster than mirrored slots (1M rows).
///
/// The pass checks the rows as it reads them, which costs two compares per
/// entry beside the load it makes anyway (a separate check would be a second
/// pass over the matrix): every row's offsets ascend inside `entries`, every
/// entry lies inside the matrix and on the side of the diagonal that makes it
/// a lower wave (the one-pass levels are final only then), and, with
/// `require_diagonal`, every row holds its diagonal. The first row that
/// breaks one ends the pass with `valid` false and nothing else defined.
///
/// The pass is bound by the scattered loads of the predecessors' levels.
/// Where the levels outgrow `narrow_levels_min_bytes`, it levels into one
/// byte per wave while the levels fit one (a shallow matrix: every ILU
/// factor measured has about 20 levels), four times as many levels per
/// cache line, and copies them into `level` at the end in parallel (a small
/// part of the pass); a deeper matrix moves to `level`
/// at its first level of 256 (the levels so far copied over, once).
/// (`narrow_min_bytes` moves that threshold: the tests take 0.) The narrow
/// levels lie in `narrow_storage` where the caller lends bytes of its own
/// (at least narrow_levels_bytes(...) of them in ExecSpace's memory: a
/// reused PlannerScratch's, plan_in_edges.hpp), else in a View of the call.
struct InEdgeLevelOptions {
  bool mirrored = false;          ///< an upper triangle: row r is wave waves-1-r
  bool require_diagonal = false;  ///< every row must hold its diagonal
  bool by_row = false;            ///< mirrored: the levels by row, not by wave
  std::size_t narrow_min_bytes = narrow_levels_min_bytes;
  std::uint8_t* narrow_storage = nullptr;  ///< the caller's bytes for the narrow levels
};

template <class ExecSpace, class RowMap, class Entries, class LevelView, class CountView>
CheckedLevels in_edge_levels(const ExecSpace& space, const RowMap& row_map,
                             const Entries& entries, const LevelView& level,
                             const CountView& count, const InEdgeLevelOptions& options) {
  const bool mirrored = options.mirrored;
  const bool require_diagonal = options.require_diagonal;
  const bool by_row = options.by_row;
  const std::size_t narrow_min_bytes = options.narrow_min_bytes;
  std::uint8_t* const narrow_storage = options.narrow_storage;
  if (level.extent(0) == 0) return CheckedLevels{};
  using Mem = typename ExecSpace::memory_space;
  Kokkos::View<std::uint64_t[4], Mem> result(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::in-edge levels result"));
  using LevelType = typename LevelView::non_const_value_type;
  using Narrow = Kokkos::View<std::uint8_t*, Mem>;
  const std::size_t waves = level.extent(0);
  const std::size_t narrow_bytes =
      narrow_levels_bytes(waves, sizeof(LevelType), narrow_min_bytes);
  const Narrow narrow = narrow_bytes == 0        ? Narrow()
                        : narrow_storage != nullptr ? Narrow(narrow_storage, narrow_bytes)
                                                    : allocate_view<Narrow>(waves, "narrow levels");
  // The prefetch serves the lower pass only: the mirrored one streams its
  // rows backwards, and was slower with it.
  const bool prefetch = !mirrored && waves * sizeof(LevelType) >= prefetch_min_bytes;
  const auto pass = [&](auto mirrored_pass, auto prefetch_pass, auto by_row_pass) {
    in_edge_levels_pass<decltype(mirrored_pass)::value, decltype(prefetch_pass)::value,
                        decltype(by_row_pass)::value>(space, row_map, entries, require_diagonal,
                                                      level, narrow, count, result);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (mirrored)
    by_row ? pass(Yes{}, No{}, Yes{}) : pass(Yes{}, No{}, No{});
  else  // by row and by wave are one order
    prefetch ? pass(No{}, Yes{}, No{}) : pass(No{}, No{}, No{});
  return finish_narrow_level_pass(space, "strata::plan::in_edge_levels_widen", result, waves,
                                  level, narrow);
}

/// The plan's layout from the levels and the waves per level (a counting
/// sort whose histogram the level pass already made:
/// strata::counting_sort_by_level): offsets (groups + 1 entries) and
/// waves_out in (level, wave id) order, the same layout as
/// layout_from_levels. `count` (groups entries) is consumed.
template <class ExecSpace, class LevelView, class CountView, class OffsetsView, class WavesView>
void layout_from_level_counts(const ExecSpace& space, std::uint64_t groups,
                              const LevelView& level, const CountView& count,
                              const OffsetsView& offsets, const WavesView& waves_out) {
  using T = typename OffsetsView::non_const_value_type;
  using W = typename WavesView::non_const_value_type;
  counting_sort_by_level(
      space, waves_out.extent(0), groups, count,
      KOKKOS_LAMBDA(std::uint64_t w) { return std::uint64_t(level(w)); },
      KOKKOS_LAMBDA(std::uint64_t, std::uint64_t) {},
      KOKKOS_LAMBDA(std::uint64_t slot, std::uint64_t w) { waves_out(slot) = W(w); },
      KOKKOS_LAMBDA(std::uint64_t l, std::uint64_t first, std::uint64_t) { offsets(l) = T(first); },
      LevelSizes::NonEmpty);  // a longest-path level l > 0 holds a successor of level l - 1
}

/// Rule T's step: every level in one pass over the CSR, in id order (the
/// ids are a topological order), with the waves per level; ends the walk.
/// With `check_ids` (rule T's bet: nobody has checked the ids) the pass
/// checks them as it reads them; where they are not topological it leaves
/// the walk unfinished, `ids_not_topological` set, and the walk starts.
struct LevelsStep {
  bool check_ids = false;
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    const auto counts = s.reserve_level_counts();
    // The one-byte levels (where the pass takes them) in the fill cursor's
    // bytes: this step reads no release counts, and a walk after a lost bet
    // writes them before reading them.
    const std::size_t narrow_bytes = narrow_levels_bytes(s.wave_count(), sizeof(Ordinal));
    const auto lent = s.lend_cursor_as_ordinals((narrow_bytes + sizeof(Ordinal) - 1) / sizeof(Ordinal));
    using Narrow = Kokkos::View<std::uint8_t*, typename ExecSpace::memory_space>;
    const Narrow narrow = lent.extent(0) * sizeof(Ordinal) >= narrow_bytes && narrow_bytes != 0
                              ? Narrow(reinterpret_cast<std::uint8_t*>(lent.data()), narrow_bytes)
                              : Narrow();
    const CheckedLevels pass =
        check_ids ? csr_push_levels<true>(space, s.graph, s.level, counts, narrow)
                  : csr_push_levels<false>(space, s.graph, s.level, counts, narrow);
    if (!pass.valid) {
      s.ids_not_topological = true;
      s.stats.first_decision.clear();  // the walk's first step says what it does instead
      return;
    }
    s.stats.sources = pass.levels.sources;
    s.stats.topological = true;
    s.stats.fused = true;  // every layer in one launch; the host saw none of them
    s.stats.fused_from_layer = 0;
    s.stats.fused_workers = 1;
    s.stats.first_decision += check_ids ? "; over the CSR, checking the ids on the way"
                                        : "; over the CSR";
    s.finish_counted(s.wave_count(), counts, pass.levels.groups);
  }
};

}  // namespace strata::plan::detail
