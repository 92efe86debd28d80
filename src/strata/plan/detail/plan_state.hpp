#pragma once
// PlanState: everything a planner step reads and writes, each buffer named
// once with one meaning. Every step (the headers beside this one) has the
// shape `Step{...}.advance(space, PlanState&)`; which step runs next is the
// planner policy's decision (PlanPolicy::choose_step), and the host loop
// that asks it is plan/detail/layer_driver.hpp.
//
//   graph            out-edges (CSR)
//   reverse          in-edges, built on the first bottom-up step (else empty)
//   remaining        per wave: in-edges not yet released; once released, the
//                    releasing edge (release.hpp)
//   level            per wave: its level, unreached_level until scheduled
//                    (the returned plan's `level`)
//   order            the scheduled waves, layer after layer: the frontier is
//                    order[begin, begin + frontier) (the returned plan's
//                    `waves`, handed over: the layout sorts it in place)
//   released         per frontier slot: targets a top-down step released
//   in_cursor        per wave: in-edges a bottom-up step knows are scheduled
//   chain_link       chained wave: its head; head: its chain's tail (in the
//                    fill cursor's bytes: the chain step reads no `released`)
//   chain_distance   chained wave: edges from its head, in `remaining`'s
//                    words (a chained wave's in-degree is 1 and never read
//                    again; a head keeps its in-degree there)
//   counters         device words of the running step (paced layer bounds,
//                    the fused queue's head/tail/pending/processed, the
//                    persistent layer words)
//   level_counts     the one-pass steps (Levels, HostLayers): waves per
//                    level, from which the plan is laid out in one counting
//                    pass (the scratch's spare ordinals)
//   (outboxes)       HostLayers: targets on their way to their owning
//                    thread, in the fill cursor's bytes, which that step
//                    never reads (lend_cursor_as_ordinals)
//
// Storage: the plan's two Views (level, order) and the scratch's buffers;
// `released` and `chain_link` are never live at once and share the
// scratch's spare wave-sized offsets (the CSR build's fill cursor), and
// `chain_distance` shares `remaining` (chain_contraction.hpp says why each
// word is read only in its one meaning).
// `remaining` and `released` are bound (and grown) by bind_buffers_for()
// before the first step that reads them: the one-pass steps need fewer.
//
// The host side is the frontier cursor (begin, frontier, layer) and the
// layer offsets; close_layer() is the one per-layer bookkeeping.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/release.hpp>
#include <strata/plan/frontier_sources.hpp>
#include <strata/plan/plan_options.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/plan/policy/plan_step.hpp>

namespace strata::plan::detail {

template <class ExecSpace, class Ordinal, class Offset>
struct PlanState {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using Graph = DependencyGraph<ExecSpace, Ordinal, Offset>;
  using OrdinalView = Kokkos::View<Ordinal*, memory_space>;
  using OffsetView = Kokkos::View<Offset*, memory_space>;
  using CounterView = Kokkos::View<std::uint64_t*, memory_space>;
  using UnmanagedOrdinalView =
      Kokkos::View<Ordinal*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Scratch = PlannerScratch<ExecSpace, Ordinal, Offset>;

  PlanState(const Graph& g, Scratch& scratch, const OrdinalView& plan_level,
            const OrdinalView& plan_waves)
      : graph(g), level(plan_level), order(plan_waves), storage_(&scratch) {
    const std::size_t waves = g.wave_count();
    // Bound now where the scratch holds them already (the CSR build counted
    // the in-degrees, a reused scratch), else by bind_buffers_for() before
    // the first step that reads them.
    if (scratch.remaining.extent(0) >= waves) remaining = prefix(scratch.remaining, waves);
    if (scratch.graph.cursor.extent(0) >= waves) released = prefix(scratch.graph.cursor, waves);
    remaining_bound_ = scratch.remaining.extent(0) >= waves;
    released_bound_ = scratch.graph.cursor.extent(0) >= waves;
    counters = scratch.step_counters;
    scratch.layer_begin.clear();
    layer_begin_ = &scratch.layer_begin;
  }

  // --- device buffers (see the table above) ---
  Graph graph;
  Graph reverse;
  OffsetView remaining;
  OrdinalView level;
  OrdinalView order;
  OffsetView released;
  OffsetView in_cursor;
  UnmanagedOrdinalView chain_link;
  OffsetView chain_distance;
  CounterView counters;

  // --- the frontier cursor (host) ---
  std::uint64_t begin = 0;     ///< order index of the current frontier
  std::uint64_t frontier = 0;  ///< its size
  std::uint64_t previous = 0;  ///< the size of the one before
  std::uint64_t widest = 0;    ///< the widest frontier so far
  std::uint64_t heaviest = 0;  ///< the largest in- or out-degree, where measured (else 0)
  Ordinal layer = 0;           ///< its level

  // --- the start ---
  bool in_degrees_ready = false;  ///< `remaining` already holds the in-degrees (the CSR build)
  bool started = false;           ///< the Start step ran (in-degrees, layer 0)

  // --- what earlier steps left for later ones ---
  bool owes_edges = false;        ///< bottom-up layers' out-edges not yet taken from `remaining`
  std::uint64_t owed_from = 0;    ///< order index of the first such layer
  std::uint64_t bottom_up_scanned = 0;  ///< waves visited by bottom-up steps
  bool persistent_refused = false;      ///< the device could not hold a persistent league
  bool ids_not_topological = false;     ///< a checking Levels step found a backward edge

  // --- the end of the walk ---
  bool finished = false;          ///< a terminal step scheduled every reachable wave
  bool groups_on_device = false;  ///< layers after layer_begin().back() were never seen by the host
  std::uint64_t scheduled = 0;    ///< waves given a level (when finished)
  OrdinalView level_counts;       ///< set by a one-pass step: waves per level
  std::uint64_t counted_groups = 0;  ///< levels in level_counts (when set)

  PlanStatistics stats;

  std::uint64_t wave_count() const { return graph.wave_count(); }
  std::uint64_t dependency_count() const { return graph.dependency_count(); }
  /// Host: where each layer starts in `order` (the group offsets when the
  /// host saw every layer).
  const std::vector<Ordinal>& layer_begin() const { return *layer_begin_; }
  /// The release rule for kernels on `RunSpace` (the state's space, or a
  /// one-thread space beside it: plain decrements there, step_space.hpp).
  template <class RunSpace = ExecSpace>
  auto release_rule() const { return detail::release_rule<RunSpace>(remaining, level); }

  /// The per-layer bookkeeping: the current frontier becomes a closed layer
  /// and the next one (`next` waves, right behind it in `order`) is current.
  void close_layer(std::uint64_t next) {
    begin += frontier;
    layer_begin_->push_back(static_cast<Ordinal>(begin));
    ++layer;
    previous = frontier;
    frontier = next;
    if (next > widest) widest = next;
  }

  /// A terminal step ends the walk with `total` waves scheduled.
  void finish(std::uint64_t total, bool on_device) {
    finished = true;
    scheduled = total;
    groups_on_device = on_device;
  }

  /// Takes the owed out-edges of bottom-up layers from `remaining` (no wave is
  /// released by this); every step that reads `remaining` calls it first,
  /// on the space it runs on (`RunSpace`: the state's, or one thread).
  template <class RunSpace>
  void pay_owed_edges(const RunSpace& space) {
    if (!owes_edges) return;
    owes_edges = false;
    const auto row_map = graph.row_map;
    const auto entries = graph.entries;
    const auto rem = remaining;
    const auto ord = order;
    Kokkos::parallel_for(
        "strata::plan::catch_up", Kokkos::RangePolicy<RunSpace>(space, owed_from, begin),
        KOKKOS_LAMBDA(const std::size_t i) {
          const Ordinal w = ord(i);
          for (Offset e = row_map(w); e < row_map(w + 1); ++e)
            strata::fetch_sub<RunSpace>(&rem(entries(e)), Offset(1));
        });
  }

  /// Grows (and binds) the wave-sized buffers `step` reads, before it runs:
  /// rule T's one pass (Levels) reads neither `remaining` nor `released`;
  /// `released` (the chain links' bytes) is read only by the top-down, chain and
  /// fused steps. A plan thus never holds the wave-sized offsets it does not
  /// use (peak memory, docs/plan.md).
  void bind_buffers_for(PlanStep step) {
    if (step == PlanStep::Levels) return;
    const std::size_t waves = wave_count();
    if (!remaining_bound_) {
      reserve_capacity(storage_->remaining, waves, "remaining in-degree");
      remaining = prefix(storage_->remaining, waves);
      remaining_bound_ = true;
    }
    const bool reads_released = step == PlanStep::TopDown ||
                                step == PlanStep::Chains ||
                                step == PlanStep::Fused;
    if (!reads_released || released_bound_) return;
    reserve_capacity(storage_->graph.cursor, waves, "outgoing target cursor");
    released = prefix(storage_->graph.cursor, waves);
    released_bound_ = true;
  }

  /// Grows the in-edge buffers (reverse, in_cursor); true when they were new.
  bool reserve_reverse() {
    if (reverse.row_map.extent(0) != 0) return false;
    const std::size_t waves = wave_count(), edges = dependency_count();
    storage_->reserve_reverse(waves, edges);
    reverse.row_map = prefix(storage_->reverse_row_map, waves + 1);
    reverse.entries = prefix(storage_->reverse_entries, edges);
    in_cursor = prefix(storage_->in_cursor, waves);
    return true;
  }

  /// Binds the chain step's buffers: the links over the fill cursor's bytes
  /// (the scratch's spare ordinals where an offset is narrower than an
  /// ordinal), the distances in `remaining`'s words.
  void reserve_chain_buffers() {
    const std::uint64_t waves = wave_count();
    const UnmanagedOrdinalView lent = lend_cursor_as_ordinals(waves);
    if (lent.extent(0) >= waves) {
      chain_link = UnmanagedOrdinalView(lent.data(), waves);
    } else {
      reserve_capacity(storage_->order, waves, "chain links");
      chain_link = prefix(storage_->order, waves);
    }
    chain_distance = remaining;
  }

  /// A one-pass step's end: every wave has its level and `counts` holds the
  /// waves per level (`groups` entries).
  void finish_counted(std::uint64_t total, const OrdinalView& counts, std::uint64_t groups) {
    finish(total, /*on_device=*/true);
    level_counts = counts;
    counted_groups = groups;
  }

  /// `count` ordinals (none for 0) over the fill cursor's bytes, for a step
  /// that never reads `released` (rule K's outboxes, host_kahn.hpp; the
  /// chain links, reserve_chain_buffers): the plan
  /// then holds no byte more than planner_storage_bytes' `scratch` counts.
  /// Fewer where the cursor's wave-sized bytes hold fewer, more where the
  /// cursor is already larger; unmanaged, valid while the scratch is and
  /// until the next reserve of the cursor.
  UnmanagedOrdinalView lend_cursor_as_ordinals(std::uint64_t count) {
    const std::uint64_t most = wave_count() * sizeof(Offset) / sizeof(Ordinal);
    if (count > most) count = most;
    if (count == 0) return UnmanagedOrdinalView();
    reserve_capacity(storage_->graph.cursor, (count * sizeof(Ordinal) + sizeof(Offset) - 1) / sizeof(Offset),
                     "outgoing target cursor");
    released_bound_ = false;  // the cursor may have moved; rebind before reading `released`
    const std::size_t lent = storage_->graph.cursor.extent(0) * sizeof(Offset) / sizeof(Ordinal);
    return UnmanagedOrdinalView(reinterpret_cast<Ordinal*>(storage_->graph.cursor.data()), lent);
  }

  /// Wave-sized spare ordinals for the level counts of a one-pass step (not
  /// used by the chain links then: those steps end the plan).
  OrdinalView reserve_level_counts() {
    reserve_capacity(storage_->order, wave_count(), "waves per level");
    return prefix(storage_->order, wave_count());
  }

 private:
  bool remaining_bound_ = false;
  bool released_bound_ = false;
  Scratch* storage_;
  std::vector<Ordinal>* layer_begin_;
};

}  // namespace strata::plan::detail
