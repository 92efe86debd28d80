#pragma once
// plan_barriers_distributed: the layer-synchronous planner over MPI ranks.
//
//   strata::distributed::Communicator comm(MPI_COMM_WORLD);
//   auto local = strata::distributed::plan_barriers_distributed(space, comm, wave_count, my_deps);
//   auto plan = strata::distributed::gather_plan(space, comm, local);  // whole plan on rank 0
//
// Each rank passes its part of the dependency list (rank r's part follows
// the parts of ranks < r in the global input order). The dependencies are
// sharded first (distribute_dependencies: ShardPlan, balanced block
// partition, per-rank budget); then each rank builds the CSR of its own
// waves' out-edges (targets keep their global ids) and the layers run in
// bulk-synchronous steps:
//
//   local    the frontier's out-edges, on the rank's execution space:
//            a local target is decremented atomically (released at zero:
//            level = layer + 1, appended to the next frontier through an
//            atomic counter); a remote target is counted per owner rank
//   bucket   exclusive scan of those counts, fill of a send buffer grouped
//            by owner with an atomic cursor per rank
//   exchange MPI_Alltoall of the counts, MPI_Alltoallv of the targets
//            (host staging; a no-op copy on host backends)
//   apply    the received decrements, released as above
//   agree    MPI_Allreduce(SUM) of the next frontier: the global group size,
//            and termination when it is 0
//
// The in-degrees are computed the same way (every edge once, an increment).
// Every rank ends with the levels of its own waves and every global group
// size; waves never scheduled (V - sum of group sizes) are a Cycle on every
// rank. Errors are collective (distributed_error.hpp): every rank throws the
// same PlanError. Levels are unique, so gather_plan's plan is bit-identical to
// plan_barriers' for every rank count.
#include <cstdint>
#include <limits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/storage.hpp>
#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distribute_dependencies.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/distributed/shard_plan.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/frontier_sources.hpp>

namespace strata::distributed {

struct DistributedOptions {
  std::uint64_t rank_budget_bytes = 0;  ///< bytes one rank may hold; 0: unbounded
  /// A fixed block partition (ranks + 1 entries: rank r owns [wave_begin[r],
  /// wave_begin[r + 1])), e.g. a mesh decomposition the wave ids follow; empty:
  /// cut by weight under the budget. InvalidArgument when malformed.
  std::vector<std::uint64_t> wave_begin;
};

/// One rank's share of a distributed plan.
template <class ExecSpace, class Ordinal = DefaultOrdinal>
struct DistributedPlan {
  using view_type = Kokkos::View<Ordinal*, typename ExecSpace::memory_space>;
  ShardPlan shard;                         ///< the partition (same on every rank)
  std::uint64_t first_wave = 0;            ///< this rank owns first_wave .. + level.extent(0)
  view_type level;                         ///< level of each owned wave
  std::vector<std::uint64_t> group_sizes;  ///< global size of every group (same on every rank)
  std::uint64_t peak_bytes = 0;            ///< device bytes this rank's planner Views held at most

  std::uint64_t wave_count() const { return shard.wave_count; }
  std::size_t group_count() const { return group_sizes.size(); }
};

namespace detail {

/// One edge into owned wave u, from a local frontier wave or a received
/// decrement. `Release`: decrement; the decrement that reaches zero releases
/// u into the next frontier (level next_level). Otherwise increment (the
/// in-degree count before the first layer).
template <bool Release, class ExecSpace, class Offset, class RemainingView, class LevelView,
          class OrderView, class CountView, class Ordinal>
KOKKOS_INLINE_FUNCTION void touch_owned(const std::size_t u, const RemainingView& remaining,
                                        const LevelView& level, const OrderView& order,
                                        const CountView& next_count, const std::size_t next_first,
                                        const Ordinal next_level) {
  if constexpr (Release) {
    if (strata::fetch_sub<ExecSpace>(&remaining(u), Offset(1)) == Offset(1)) {
      level(u) = next_level;
      order(next_first + Kokkos::atomic_fetch_add(&next_count(), std::uint64_t(1))) = Ordinal(u);
    }
  } else {
    strata::fetch_add<ExecSpace>(&remaining(u), Offset(1));
  }
}

/// One bulk-synchronous step's local part (see the file comment). `Release`:
/// decrement and release (a layer); otherwise increment (the in-degrees).
template <bool Release, class ExecSpace, class Ordinal, class Offset, class Views>
void local_edges(const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                 const Views& v, std::size_t first, std::size_t frontier, std::size_t next_first,
                 Ordinal next_level) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const auto order = v.order;
  const auto remaining = v.remaining;
  const auto level = v.level;
  const auto next_count = v.next_count;
  const auto counts = v.counts;
  const auto begin = v.begin;
  const int ranks = v.ranks;
  const std::uint64_t lo = v.lo, n = v.n;
  Kokkos::parallel_for(
      "strata::distributed::local_edges", Kokkos::RangePolicy<ExecSpace>(space, 0, frontier),
      KOKKOS_LAMBDA(const std::size_t i) {
        const Ordinal w = order(first + i);
        for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
          const std::uint64_t t = entries(e);
          if (t - lo < n) {  // unsigned: t >= lo && t < lo + n
            touch_owned<Release, ExecSpace, Offset>(static_cast<std::size_t>(t - lo), remaining,
                                                    level, order, next_count, next_first,
                                                    next_level);
          } else {
            Kokkos::atomic_fetch_add(&counts(owner_of(begin, ranks, t)), std::uint64_t(1));
          }
        }
      });
}

/// Fills the send buffer with the frontier's remote targets, grouped by owner.
template <class ExecSpace, class Ordinal, class Offset, class Views>
void fill_remote(const ExecSpace& space, const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                 const Views& v, std::size_t first, std::size_t frontier) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const auto order = v.order;
  const auto cursor = v.cursor;
  const auto send = v.send;
  const auto begin = v.begin;
  const int ranks = v.ranks;
  const std::uint64_t lo = v.lo, n = v.n;
  Kokkos::parallel_for(
      "strata::distributed::fill_remote", Kokkos::RangePolicy<ExecSpace>(space, 0, frontier),
      KOKKOS_LAMBDA(const std::size_t i) {
        const Ordinal w = order(first + i);
        for (Offset e = row_map(w); e < row_map(w + 1); ++e) {
          const std::uint64_t t = entries(e);
          if (t - lo >= n) {
            const std::uint64_t slot =
                Kokkos::atomic_fetch_add(&cursor(owner_of(begin, ranks, t)), std::uint64_t(1));
            send(slot) = Ordinal(t);
          }
        }
      });
}

/// Applies received targets (all owned by this rank).
template <bool Release, class ExecSpace, class Ordinal, class Offset, class Views>
void apply_received(const ExecSpace& space, const Views& v, std::size_t count,
                    std::size_t next_first, Ordinal next_level) {
  const auto recv = v.recv;
  const auto order = v.order;
  const auto remaining = v.remaining;
  const auto level = v.level;
  const auto next_count = v.next_count;
  const std::uint64_t lo = v.lo;
  Kokkos::parallel_for(
      "strata::distributed::apply_received", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(const std::size_t i) {
        const std::size_t u = static_cast<std::size_t>(std::uint64_t(recv(i)) - lo);
        touch_owned<Release, ExecSpace, Offset>(u, remaining, level, order, next_count,
                                                next_first, next_level);
      });
}

/// Layer 0: the owned waves with no remaining in-degree, compacted in order.
template <class ExecSpace, class Ordinal, class Views>
std::uint64_t sources(const ExecSpace& space, const Views& v) {
  return compact_sources(space, v.n, v.remaining, v.order, v.level);
}

/// Remote out-edges of the owned waves.
template <class ExecSpace, class Ordinal, class Offset>
std::uint64_t remote_edge_count(const ExecSpace& space,
                                const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                                std::uint64_t lo, std::uint64_t n) {
  const auto entries = graph.entries;
  std::uint64_t remote = 0;
  Kokkos::parallel_reduce(
      "strata::distributed::remote_edges",
      Kokkos::RangePolicy<ExecSpace>(space, 0, entries.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e, std::uint64_t& sum) {
        if (std::uint64_t(entries(e)) - lo >= n) ++sum;
      },
      remote);
  return remote;
}

/// The CSR of the owned waves' out-edges: rows are local (before - lo),
/// entries keep the global target ids.
template <class ExecSpace, class Ordinal, class Offset, class OwnedView>
DependencyGraph<ExecSpace, Ordinal, Offset> build_owned_csr(
    const ExecSpace& space, std::uint64_t lo, std::uint64_t n, const OwnedView& owned,
    DependencyGraphStorage<ExecSpace, Ordinal, Offset>& storage) {
  return strata::build_unchecked_csr(
      space, n, owned.extent(0), storage,
      KOKKOS_LAMBDA(const std::size_t i) { return std::size_t(owned(i).before - lo); },
      KOKKOS_LAMBDA(const std::size_t i) { return owned(i).after; });
}

template <class ExecSpace, class OrderView>
void fill_identity(const ExecSpace& space, const OrderView& order) {
  using Ordinal = typename OrderView::non_const_value_type;
  Kokkos::parallel_for(
      "strata::distributed::identity", Kokkos::RangePolicy<ExecSpace>(space, 0, order.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { order(i) = Ordinal(i); });
}

/// The device Views of one rank's planning state.
template <class ExecSpace, class Ordinal, class Offset>
struct RankState {
  using Memory = typename ExecSpace::memory_space;
  Kokkos::View<Offset*, Memory> remaining;
  Kokkos::View<Ordinal*, Memory> order;
  Kokkos::View<Ordinal*, Memory> level;
  Kokkos::View<std::uint64_t, Memory> next_count;
  Kokkos::View<std::uint64_t*, Memory> counts, cursor, begin;
  Kokkos::View<Ordinal*, Memory> send, recv;
  typename Kokkos::View<Ordinal*, Memory>::HostMirror send_host, recv_host;
  int ranks = 1;
  std::uint64_t lo = 0, n = 0;

  std::uint64_t bytes() const {
    return remaining.span() * sizeof(Offset) +
           (order.span() + level.span() + send.span() + recv.span()) * sizeof(Ordinal) +
           (counts.span() + cursor.span() + begin.span() + 1) * sizeof(std::uint64_t);
  }
};

/// One exchange: bucket the frontier's remote targets, send them, apply what
/// arrives. Returns nothing; the released waves are counted in next_count.
template <bool Release, class ExecSpace, class Ordinal, class Offset>
void exchange_step(const ExecSpace& space, const Communicator& comm,
                   const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                   RankState<ExecSpace, Ordinal, Offset>& s, std::size_t first,
                   std::size_t frontier, std::size_t next_first, Ordinal next_level) {
  Kokkos::deep_copy(space, s.counts, std::uint64_t(0));
  local_edges<Release>(space, graph, s, first, frontier, next_first, next_level);
  const std::vector<int> send_counts = counts_and_cursor(space, s.counts, s.cursor);
  fill_remote(space, graph, s, first, frontier);
  std::uint64_t sent = 0;
  for (int c : send_counts) sent += std::uint64_t(c);
  if (sent != 0)
    Kokkos::deep_copy(space, prefix(s.send_host, sent), prefix(s.send, sent));
  space.fence();
  const std::vector<int> recv_counts = comm.exchange_counts(send_counts);
  std::uint64_t received = 0;
  for (int c : recv_counts) received += std::uint64_t(c);
  comm.all_to_all(s.send_host.data(), send_counts, s.recv_host.data(), recv_counts,
                  mpi_type<Ordinal>());
  if (received != 0)
    Kokkos::deep_copy(space, prefix(s.recv, received), prefix(s.recv_host, received));
  apply_received<Release, ExecSpace, Ordinal, Offset>(space, s, received, next_first, next_level);
}

}  // namespace detail

/// Plans rank-local dependencies collectively (see the file comment).
template <class Offset = DefaultOffset, class ExecSpace, class Ordinal, class... P>
DistributedPlan<ExecSpace, Ordinal> plan_barriers_distributed(
    const ExecSpace& space, const Communicator& comm, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& local,
    const DistributedOptions& options = {}) {
  using Graph = DependencyGraph<ExecSpace, Ordinal, Offset>;
  DistributedPlan<ExecSpace, Ordinal> plan;
  auto dist = distribute_dependencies<Offset>(space, comm, wave_count, local,
                                              options.rank_budget_bytes, options.wave_begin);
  plan.shard = dist.shard;
  plan.peak_bytes = dist.peak_bytes;
  const int rank = comm.rank();
  detail::RankState<ExecSpace, Ordinal, Offset> s;
  s.ranks = comm.size();
  s.lo = plan.shard.first_wave(rank);
  s.n = plan.shard.wave_count_of(rank);
  plan.first_wave = s.lo;

  // Rank-local CSR, planning state and exchange buffers (sized once: every
  // edge crosses a rank boundary at most once over all layers).
  DependencyGraphStorage<ExecSpace, Ordinal, Offset> storage;
  Graph graph;
  std::uint64_t remote_out = 0;
  collective_phase(comm, [&] {
    const std::uint64_t m = dist.owned.extent(0);
    checked_count<Offset>(m, "dependency count");
    const auto owned = dist.owned;
    graph = detail::build_owned_csr(space, s.lo, s.n, owned, storage);
    space.fence();
    const std::uint64_t with_owned = graph.bytes() + storage.cursor.span() * sizeof(Offset) +
                                     owned.span() * sizeof(WaveDependency<Ordinal>);
    if (with_owned > plan.peak_bytes) plan.peak_bytes = with_owned;
    dist.owned = {};
    s.remaining =
        allocate_view<decltype(s.remaining)>(s.n, "distributed remaining in-degree", true);
    s.order = allocate_view<decltype(s.order)>(s.n, "distributed frontier order");
    s.level = allocate_view<decltype(s.level)>(s.n, "distributed levels");
    s.next_count = decltype(s.next_count)("strata::distributed::next_count");
    const std::uint64_t ranks = std::uint64_t(s.ranks);
    s.counts = allocate_view<decltype(s.counts)>(ranks, "distributed counts", true);
    s.cursor = allocate_view<decltype(s.cursor)>(ranks, "distributed cursor", true);
    s.begin = detail::device_begin(space, plan.shard.wave_begin);
    remote_out = detail::remote_edge_count(space, graph, s.lo, s.n);
    (void)detail::mpi_count(remote_out);  // every later per-rank count fits MPI's int
    s.send = allocate_view<decltype(s.send)>(remote_out, "distributed outgoing decrements");
    s.send_host = host_mirror(s.send, "distributed outgoing decrements (host staging)");
  });
  // Every remote in-edge of this rank arrives exactly once over all layers:
  // the in-degree exchange below tells how many, which sizes the receive buffer.
  std::uint64_t remote_in = 0;
  {
    std::vector<int> counts(std::size_t(s.ranks), 0);
    collective_phase(comm, [&] {
      Kokkos::deep_copy(space, s.counts, std::uint64_t(0));
      detail::fill_identity(space, s.order);
      detail::local_edges<false>(space, graph, s, 0, s.n, 0, Ordinal(0));
      counts = detail::counts_and_cursor(space, s.counts, s.cursor);
      Kokkos::deep_copy(space, s.remaining, Offset(0));  // exchange_step counts again
    });
    const std::vector<int> incoming = comm.exchange_counts(counts);
    for (int c : incoming) remote_in += std::uint64_t(c);
  }
  collective_phase(comm, [&] {
    (void)detail::mpi_count(remote_in);
    s.recv = allocate_view<decltype(s.recv)>(remote_in, "distributed incoming decrements");
    s.recv_host = host_mirror(s.recv, "distributed incoming decrements (host staging)");
  });
  const std::uint64_t state_bytes = graph.bytes() + storage.cursor.span() * sizeof(Offset) + s.bytes();
  if (state_bytes > plan.peak_bytes) plan.peak_bytes = state_bytes;

  // In-degrees: every owned edge once (the pass above only sized the
  // buffers; exchange_step counts, fills, sends and applies).
  detail::exchange_step<false>(space, comm, graph, s, 0, s.n, 0, Ordinal(0));
  std::uint64_t frontier = detail::sources<ExecSpace, Ordinal>(space, s);
  std::uint64_t global = comm.sum(frontier);
  std::size_t first = 0;
  Ordinal layer = 0;
  while (global != 0) {
    plan.group_sizes.push_back(global);
    const std::size_t next_first = first + static_cast<std::size_t>(frontier);
    Kokkos::deep_copy(space, s.next_count, std::uint64_t(0));
    detail::exchange_step<true>(space, comm, graph, s, first, static_cast<std::size_t>(frontier),
                                next_first, Ordinal(layer + 1));
    std::uint64_t next = 0;
    Kokkos::deep_copy(space, Kokkos::View<std::uint64_t, Kokkos::HostSpace>(&next), s.next_count);
    space.fence();
    first = next_first;
    frontier = next;
    ++layer;
    global = comm.sum(frontier);
  }
  std::uint64_t scheduled = 0;
  for (std::uint64_t g : plan.group_sizes) scheduled += g;
  if (scheduled != wave_count) throw PlanError::cycle(wave_count - scheduled);  // same on every rank
  plan.level = s.level;
  return plan;
}

/// Plans from a host array of this rank's dependencies (staged to the device
/// when the execution space cannot read host memory).
template <class Offset = DefaultOffset, class ExecSpace, class Ordinal>
DistributedPlan<ExecSpace, Ordinal> plan_barriers_distributed(
    const ExecSpace& space, const Communicator& comm, std::uint64_t wave_count,
    const WaveDependency<Ordinal>* dependencies, std::size_t dependency_count,
    const DistributedOptions& options = {}) {
  using HostView = Kokkos::View<const WaveDependency<Ordinal>*, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const HostView host(dependencies, dependency_count);
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    return plan_barriers_distributed<Offset>(space, comm, wave_count, host, options);
  } else {
    using DeviceView = Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space>;
    DeviceView staged;
    collective_phase(comm, [&] {
      staged = allocate_view<DeviceView>(dependency_count, "distributed staged dependencies");
    });
    Kokkos::deep_copy(space, staged, host);
    const Kokkos::View<const WaveDependency<Ordinal>*, typename ExecSpace::memory_space> view =
        staged;
    return plan_barriers_distributed<Offset>(space, comm, wave_count, view, options);
  }
}

}  // namespace strata::distributed
