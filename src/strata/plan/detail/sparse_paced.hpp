#pragma once
// PacedStep: up to `batch` top-down layers launched back to back with no host
// round trip between them (the batch size is the planner policy's, rule P6).
// On a GPU the per-layer cost of the two-phase sparse step (release, scan,
// read the next frontier's size on the host) is launch and fence latency,
// which dominates deep graphs whose layers cannot
// fill the device. Here a layer's bounds live on the device and its two
// kernels are queued without a fence:
//
//   starts(j), counts(j)   layer j of the batch is order[starts(j), starts(j) + counts(j))
//   release j              teams grid-stride over layer j; the release rule
//                          (release.hpp) gives a released target level
//                          layer + j + 1 and parks the releasing edge
//   append j               each thread walks the same edges again and counts the
//                          targets parked on them; a team scan with one atomic
//                          on counts(j + 1) gives it its slots behind the layer,
//                          where it writes them; one thread writes starts(j + 1)
//
// The parking needs the kernel boundary: within one kernel another team could
// read a target's level before its parked edge is written.
// A wave with more edges than a team has threads is walked by the whole team
// (edge e by thread e mod team size) in both kernels, so a hub (a fan-out
// source, a power-law hub) is not one thread's loop. In a layer of one
// chunk (no more waves than a team has threads: a fan-out's source alone)
// such a wave is walked by the whole league instead, and the league is
// sized for the heaviest wave too (paced_grid): a 1M-edge fan-out source
// walked by one team took most of that graph's plan.
//
// A layer that comes out empty leaves every later kernel of the batch without
// work (they return at once). The host reads the batch's layer sizes once.
//
// The order of the waves inside one layer of `order` depends on the atomics'
// interleaving; nothing reads it as ordered (the plan is laid out from the
// levels by the stable level sort), so the plan stays bit-identical.
#include <cstdint>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/detail/plan_state.hpp>
#include <strata/plan/detail/release.hpp>
#include <strata/plan/policy/plan_step.hpp>

namespace strata::plan::detail {

/// Team size of the layer kernels: a block of 256 on GPUs, where the team
/// scan turns a layer's appends into one atomic per team; 1 on host backends.
template <class ExecSpace>
constexpr std::size_t paced_team_size() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                    typename ExecSpace::memory_space>::accessible
             ? 1
             : 256;
}

/// Edges of a heavy wave per thread that paced_grid sizes the league for.
inline constexpr std::uint64_t paced_edges_per_thread = 16;

/// Threads of each layer kernel: enough for twice the widest frontier seen so
/// far (a layer may grow inside a batch; the kernels grid-stride) and for
/// paced_edges_per_thread edges of the heaviest wave each, at least one
/// warp-friendly block of 256 and at most what the device runs at once.
template <class ExecSpace>
std::size_t paced_grid(const ExecSpace& space, std::uint64_t widest_frontier,
                       std::uint64_t heaviest_wave = 0) {
  const std::uint64_t cap = static_cast<std::uint64_t>(space.concurrency());
  std::uint64_t grid = 256;
  // bounded by the cap (the doubling stops there), so it cannot wrap
  while (grid < cap && (grid < 2 * widest_frontier ||
                        grid * paced_edges_per_thread < heaviest_wave))
    grid *= 2;
  if (grid > cap) grid = cap;
  return static_cast<std::size_t>(grid == 0 ? 1 : grid);
}

/// One layer of a batch, as a team functor: `append` false releases, true appends.
template <class ExecSpace, class Ordinal, class Offset, class Rule, class OrderView,
          class CounterView>
struct PacedLayer {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  typename DependencyGraph<ExecSpace, Ordinal, Offset>::row_map_type row_map;
  typename DependencyGraph<ExecSpace, Ordinal, Offset>::entries_type entries;
  Rule rule;
  OrderView order;
  CounterView starts, counts;
  std::size_t j;
  Ordinal next_level;
  bool append;

  /// Calls visit(e) for every edge this thread walks in the chunk at `base`:
  /// its own wave's edges if the wave is light, then its share of each heavy
  /// wave of the chunk — of the team's threads, or where `shared` (a layer
  /// of one chunk, which every team walks) of the league's, and the light
  /// waves by the first team alone. Both kernels walk identical edge sets
  /// per thread.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION void walk(const Member& member, std::uint64_t start, std::uint64_t count,
                                   std::uint64_t base, int heavy, bool shared,
                                   const Visit& visit) const {
    const int size = member.team_size();
    const std::uint64_t k = base + member.team_rank();
    if (k < count && (!shared || member.league_rank() == 0)) {
      const Ordinal w = order(start + k);
      if (size == 1 || row_map(w + 1) - row_map(w) <= Offset(size))
        for (Offset e = row_map(w); e < row_map(w + 1); ++e) visit(e);
    }
    const std::uint64_t first =
        shared ? std::uint64_t(member.league_rank()) * std::uint64_t(size) + member.team_rank()
               : std::uint64_t(member.team_rank());
    const std::uint64_t stride =
        shared ? std::uint64_t(member.league_size()) * std::uint64_t(size) : std::uint64_t(size);
    for (int r = 0; heavy != 0 && r < size && base + r < count; ++r) {
      const Ordinal v = order(start + base + r);
      const Offset end = row_map(v + 1);
      if (end - row_map(v) <= Offset(size)) continue;
      // Strided in 64 bits: an Offset stride would wrap past `end` when it is
      // the type's maximum (65,535 edges with 16-bit offsets never ended).
      for (std::uint64_t e = std::uint64_t(row_map(v)) + first; e < std::uint64_t(end);
           e += stride)
        visit(Offset(e));
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const std::uint64_t start = starts(j);
    const std::uint64_t count = counts(j);
    const std::uint64_t append_at = start + count;
    if (append && member.league_rank() == 0 && member.team_rank() == 0) starts(j + 1) = append_at;
    const int size = member.team_size();
    const std::uint64_t stride = std::uint64_t(member.league_size()) * size;
    // A layer of one chunk is walked by every team (its heavy waves' edges
    // spread over the league); otherwise each team takes its chunks.
    const bool shared = size > 1 && count <= std::uint64_t(size);
    // The bound is the same for the whole team: every member reaches the collectives.
    for (std::uint64_t base = shared ? 0 : std::uint64_t(member.league_rank()) * size;
         base < count; base += stride) {
      int heavy = 0;  // waves of the chunk with more edges than the team has threads
      if (size > 1)
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(member, size),
            [&](const int r, int& h) {
              if (base + r < count) {
                const Ordinal v = order(start + base + r);
                if (row_map(v + 1) - row_map(v) > Offset(size)) ++h;
              }
            },
            heavy);
      if (!append) {
        walk(member, start, count, base, heavy, shared,
             [&](const Offset e) { rule.release(e, entries(e), next_level); });
        continue;
      }
      auto parked = [&](const Offset e) { return rule.parked(e, entries(e), next_level); };
      std::uint64_t released = 0;
      walk(member, start, count, base, heavy, shared, [&](const Offset e) {
        if (parked(e)) ++released;
      });
      // One atomic per team claims the team's slots behind the layer.
      std::uint64_t slot = append_at + member.team_scan(released, &counts(j + 1));
      if (released != 0)
        walk(member, start, count, base, heavy, shared, [&](const Offset e) {
          if (parked(e)) order(slot++) = entries(e);
        });
    }
  }
};

struct PacedStep {
  std::size_t batch = 1;  ///< layers to run at most (1..max_paced_layers)

  template <class ExecSpace, class Ordinal, class Offset>
  void advance(const ExecSpace& space, PlanState<ExecSpace, Ordinal, Offset>& s) const {
    s.pay_owed_edges(space);
    const std::size_t first = s.begin, frontier = s.frontier;
    const auto starts = Kokkos::subview(s.counters, Kokkos::make_pair(std::size_t(0), batch + 1));
    const auto counts =
        Kokkos::subview(s.counters, Kokkos::make_pair(batch + 1, 2 * (batch + 1)));
    Kokkos::parallel_for(
        "strata::plan::paced_counters", Kokkos::RangePolicy<ExecSpace>(space, 0, batch + 1),
        KOKKOS_LAMBDA(const std::size_t j) {
          starts(j) = j == 0 ? std::uint64_t(first) : 0;
          counts(j) = j == 0 ? std::uint64_t(frontier) : 0;
        });
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Rule = decltype(s.release_rule());
    using OrderView = typename PlanState<ExecSpace, Ordinal, Offset>::OrdinalView;
    using Layer =
        PacedLayer<ExecSpace, Ordinal, Offset, Rule, OrderView, std::decay_t<decltype(starts)>>;
    const std::size_t grid = paced_grid(space, s.widest, s.heaviest);
    const int team = static_cast<int>(paced_team_size<ExecSpace>());
    const int league = static_cast<int>((grid + team - 1) / team);
    for (std::size_t j = 0; j < batch; ++j) {
      Layer pass{s.graph.row_map, s.graph.entries, s.release_rule(), s.order, starts, counts, j,
                 static_cast<Ordinal>(s.layer + j + 1), false};
      Kokkos::parallel_for("strata::plan::paced_release", Policy(space, league, team), pass);
      pass.append = true;
      Kokkos::parallel_for("strata::plan::paced_append", Policy(space, league, team), pass);
    }
    std::vector<std::uint64_t> sizes(batch + 1);
    using HostSizes = Kokkos::View<std::uint64_t*, Kokkos::HostSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    Kokkos::deep_copy(space, HostSizes(sizes.data(), batch + 1), counts);
    space.fence();
    ++s.stats.paced_batches;
    // sizes[0] is the frontier the batch started from; sizes[j + 1] the layer after layer j.
    for (std::size_t j = 1; j <= batch; ++j) {
      ++s.stats.sparse_layers;
      s.close_layer(sizes[j]);
      if (sizes[j] == 0) break;
    }
  }
};

}  // namespace strata::plan::detail
