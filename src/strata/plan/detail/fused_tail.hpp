#pragma once
// FusedStep: every remaining layer in one launch, with no host fence per
// layer. A persistent kernel of `workers` threads shares a device-side ready
// queue (the `order` array: slots are claimed with an atomic head, filled
// with an atomic tail) and a `pending` count of queued-but-unfinished waves:
//
//   worker: claim slot i; wait until it is filled (or pending == 0: no wave
//           will ever fill it: done, or a cycle); for each target t of the
//           wave w found there: level(t) = max(level(t), level(w) + 1); the
//           decrement that brings t's in-degree to zero queues t.
//
// Levels do not depend on the order waves are processed in: level(t) is the
// maximum over its predecessors, complete when its last predecessor releases
// it. So the plan is the layer-synchronous one, on any number of workers.
// The queue starts from the current frontier, so the fused kernel can finish
// a plan that other modes began.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/plan_state.hpp>

namespace strata::plan::detail {

/// Workers of a fused walk: one per hardware thread on host backends, and as
/// many as can be resident on a GPU (the queue is spin-waited on).
template <class ExecSpace>
std::size_t fused_worker_count(const ExecSpace& space, std::uint64_t waves) {
  std::uint64_t workers = static_cast<std::uint64_t>(space.concurrency());
  if (workers > waves) workers = waves;
  return workers == 0 ? 1 : static_cast<std::size_t>(workers);
}

/// Processes the current frontier and everything behind it with `workers`
/// threads; `counters` holds 4 words (head, tail, pending, processed).
/// Returns how many waves were scheduled in total (begin + processed).
///
/// `contracted` (chain_contraction.hpp): the walk runs over the heads of a
/// contracted graph: a head w releases the targets of its tail
/// chain_link(w) with weight chain_distance(tail) + 1, and the count returned
/// covers heads only.
template <class ExecSpace, class Ordinal, class Offset>
std::uint64_t fused_walk(const ExecSpace& space, const PlanState<ExecSpace, Ordinal, Offset>& s,
                         std::size_t workers, bool contracted) {
  const std::size_t waves = s.wave_count();
  const auto row_map = s.graph.row_map;
  const auto entries = s.graph.entries;
  const auto rule = s.release_rule();
  const auto level = s.level;
  const auto order = s.order;
  const auto counters = s.counters;
  const auto chain_link = s.chain_link;
  const auto chain_distance = s.chain_distance;
  const std::size_t first = s.begin, frontier = s.frontier;
  constexpr Ordinal unreached = unreached_level<Ordinal>;
  constexpr Ordinal empty = std::numeric_limits<Ordinal>::max();
  const std::size_t filled = first + frontier;

  // Unscheduled waves start at level 0 (their final level is a max), and the
  // queue slots behind the frontier start empty.
  Kokkos::parallel_for(
      "strata::plan::fused_init", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t i) {
        if (level(i) == unreached) level(i) = 0;
        if (i >= filled) order(i) = empty;
      });
  Kokkos::parallel_for(
      "strata::plan::fused_counters", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(const int) {
        counters(0) = first;     // head: next slot to claim
        counters(1) = filled;    // tail: next slot to fill
        counters(2) = frontier;  // pending: queued waves not yet finished
        counters(3) = 0;         // waves processed
      });

  Kokkos::parallel_for(
      "strata::plan::fused_workers", Kokkos::RangePolicy<ExecSpace>(space, 0, workers),
      KOKKOS_LAMBDA(const std::size_t) {
        std::uint64_t* head = &counters(0);
        std::uint64_t* tail = &counters(1);
        std::uint64_t* pending = &counters(2);
        std::uint64_t done = 0;
        for (;;) {
          const std::uint64_t i = strata::fetch_add<ExecSpace>(head, std::uint64_t(1));
          if (i >= waves) break;
          volatile Ordinal* slot = &order(i);
          bool quit = false;
          while (*slot == empty) {
            if (*static_cast<volatile std::uint64_t*>(pending) == 0) {
              quit = true;
              break;
            }
          }
          if (quit) break;
          strata::memory_fence<ExecSpace>();  // see the level written before the wave was queued
          Ordinal w = *slot;
          // Continuation: the first target a wave releases is processed next by
          // the same worker instead of going through the queue, so a chain runs
          // on one worker without touching the shared counters.
          for (;;) {
            const Ordinal source = contracted ? chain_link(w) : w;  // w's tail, or w
            const Ordinal weight = source == w ? Ordinal(1) : Ordinal(chain_distance(source) + 1);
            const Ordinal next_level = level(w) + weight;
            Ordinal continuation = empty;
            for (Offset e = row_map(source); e < row_map(source + 1); ++e) {
              const Ordinal t = entries(e);
              strata::fetch_max<ExecSpace>(&level(t), next_level);
              strata::memory_fence<ExecSpace>();  // the max lands before the decrement
              if (rule.last_in_edge(t)) {
                if (continuation == empty) {
                  continuation = t;
                } else {
                  strata::fetch_add<ExecSpace>(pending, std::uint64_t(1));
                  const std::uint64_t j = strata::fetch_add<ExecSpace>(tail, std::uint64_t(1));
                  strata::memory_fence<ExecSpace>();
                  *static_cast<volatile Ordinal*>(&order(j)) = t;
                }
              }
            }
            ++done;
            if (continuation == empty) break;
            strata::memory_fence<ExecSpace>();  // every predecessor's max is visible
            w = continuation;
          }
          strata::memory_fence<ExecSpace>();
          strata::fetch_sub<ExecSpace>(pending, std::uint64_t(1));
        }
        strata::fetch_add<ExecSpace>(&counters(3), done);
      });
  std::uint64_t processed = 0;
  Kokkos::deep_copy(space, Kokkos::View<std::uint64_t, Kokkos::HostSpace>(&processed),
                    Kokkos::subview(counters, 3));
  space.fence();
  return first + processed;
}

struct FusedStep {
  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    s.pay_owed_edges(space);
    s.stats.fused = true;
    s.stats.fused_from_layer = s.layer;
    s.stats.fused_workers = fused_worker_count(space, s.wave_count());
    s.finish(fused_walk(space, s, s.stats.fused_workers, /*contracted=*/false), /*on_device=*/true);
  }
};

}  // namespace strata::plan::detail
