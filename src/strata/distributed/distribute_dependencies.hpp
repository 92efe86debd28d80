#pragma once
// Distribution: rank-local dependency arrays in (rank r's array follows the
// arrays of ranks < r in the global input order), every dependency moved to
// the rank that owns its `before` wave out. Four collective phases, each
// closed by an error agreement (distributed_error.hpp):
//
//   budget     from the global counts alone, before any per-wave array:
//              the shape (CountOverflow), then the rank count the budget
//              needs with the smallest heaviest wave the counts allow
//              (InsufficientRanks, MemoryConstrained; check_rank_count)
//   validate   the first invalid or self dependency in global input order:
//              local min-reduction (first_invalid_dependency), then the
//              global minimum index
//   shape      dependencies sent to a uniform wave partition, out-degrees
//              counted there, the ShardPlan's rank count checked against
//              the budget (InsufficientRanks)
//   cut        block partition balanced by weight (bytes: per wave + per
//              dependency * out-degree): a device scan of the weights, an
//              MPI_Exscan for the rank's offset, each cut found by the one
//              wave whose weight range crosses its target, MPI_Allreduce(MIN)
//   move       dependencies sent to their owners under the balanced cuts
//
// Moving is bucketing on the device (count per destination with atomics,
// scan, fill with an atomic cursor) and one MPI_Alltoallv through host
// staging. No rank holds more than its share plus its own input.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/validate_dependencies.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/distributed/shard_plan.hpp>

namespace strata::distributed {

namespace detail {

/// The rank owning wave `w`: the last r with begin(r) <= w (ranks with no
/// waves are skipped because the next rank starts at the same wave).
template <class BeginView>
KOKKOS_INLINE_FUNCTION int owner_of(const BeginView& begin, int ranks, std::uint64_t w) {
  int lo = 0, hi = ranks;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (begin(mid) <= w) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// A device copy of a ShardPlan's wave_begin.
template <class ExecSpace>
Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> device_begin(
    const ExecSpace& space, const std::vector<std::uint64_t>& begin) {
  Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space> d(
      "strata::distributed::wave_begin", begin.size());
  Kokkos::deep_copy(space, d,
                    Kokkos::View<const std::uint64_t*, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(begin.data(),
                                                                          begin.size()));
  return d;
}

/// Message counts must fit MPI's int.
inline int mpi_count(std::uint64_t count) {
  if (count > std::uint64_t(std::numeric_limits<int>::max()))
    throw PlanError::count_overflow("MPI message count");
  return static_cast<int>(count);
}

/// Device counts per rank -> host ints, and their exclusive scan (on the device) into `cursor`.
template <class ExecSpace, class CountView>
std::vector<int> counts_and_cursor(const ExecSpace& space, const CountView& counts,
                                   const CountView& cursor) {
  Kokkos::parallel_scan(
      "strata::distributed::bucket_offsets",
      Kokkos::RangePolicy<ExecSpace>(space, 0, counts.extent(0)),
      KOKKOS_LAMBDA(const std::size_t r, std::uint64_t& running, const bool final) {
        if (final) cursor(r) = running;
        running += counts(r);
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  std::vector<int> out(counts.extent(0));
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = mpi_count(host(r));
  return out;
}

/// Counts the dependencies per owner of `before`, scans, and fills `send`
/// grouped by owner; returns the per-rank counts.
template <class ExecSpace, class DepsView, class BeginView, class CountView, class SendView>
std::vector<int> bucket_by_owner(const ExecSpace& space, const DepsView& deps,
                                 const BeginView& begin, int ranks, const CountView& counts,
                                 const CountView& cursor, const SendView& send) {
  const std::size_t n = deps.extent(0);
  Kokkos::parallel_for(
      "strata::distributed::count_owners", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) {
        Kokkos::atomic_fetch_add(&counts(owner_of(begin, ranks, deps(i).before)),
                                 std::uint64_t(1));
      });
  std::vector<int> send_counts = counts_and_cursor(space, counts, cursor);
  Kokkos::parallel_for(
      "strata::distributed::fill_owners", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) {
        const auto d = deps(i);
        const std::uint64_t slot =
            Kokkos::atomic_fetch_add(&cursor(owner_of(begin, ranks, d.before)), std::uint64_t(1));
        send(slot) = d;
      });
  return send_counts;
}

/// Out-degree of each wave of [lo, lo + degree.extent(0)); returns the largest.
template <class ExecSpace, class DepsView, class DegreeView>
std::uint64_t out_degrees(const ExecSpace& space, const DepsView& deps, std::uint64_t lo,
                          const DegreeView& degree) {
  Kokkos::parallel_for(
      "strata::distributed::out_degree", Kokkos::RangePolicy<ExecSpace>(space, 0, deps.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        Kokkos::atomic_fetch_add(&degree(deps(i).before - lo), std::uint64_t(1));
      });
  std::uint64_t largest = 0;
  Kokkos::parallel_reduce(
      "strata::distributed::max_degree", Kokkos::RangePolicy<ExecSpace>(space, 0, degree.extent(0)),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& m) {
        if (degree(w) > m) m = degree(w);
      },
      Kokkos::Max<std::uint64_t>(largest));
  return largest;
}

/// Exclusive prefix of the wave weights; returns the rank's total weight.
template <class ExecSpace, class DegreeView, class PrefixView>
std::uint64_t weight_prefix(const ExecSpace& space, const ShardRates& rates,
                            const DegreeView& degree, const PrefixView& prefix_weight) {
  std::uint64_t total = 0;
  Kokkos::parallel_scan(
      "strata::distributed::weight_scan",
      Kokkos::RangePolicy<ExecSpace>(space, 0, degree.extent(0)),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& running, const bool final) {
        if (final) prefix_weight(w) = running;
        running += rates.per_wave + rates.per_dependency * degree(w);
      },
      total);
  return total;
}

/// Sends every dependency to the owner of its `before` under `begin`;
/// returns what this rank received (order within it unspecified).
template <class ExecSpace, class Ordinal, class... P>
Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space> send_to_owners(
    const ExecSpace& space, const Communicator& comm,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& deps,
    const std::vector<std::uint64_t>& wave_begin, std::uint64_t& peak_bytes) {
  using Memory = typename ExecSpace::memory_space;
  using DepView = Kokkos::View<WaveDependency<Ordinal>*, Memory>;
  const int ranks = comm.size();
  const std::size_t n = deps.extent(0);
  const auto begin = device_begin(space, wave_begin);
  Kokkos::View<std::uint64_t*, Memory> counts("strata::distributed::send_counts",
                                              std::size_t(ranks));
  Kokkos::View<std::uint64_t*, Memory> cursor("strata::distributed::send_cursor",
                                              std::size_t(ranks));
  std::vector<int> send_counts;
  DepView send;
  typename DepView::HostMirror send_host;
  collective_phase(comm, [&] {
    send = allocate_view<DepView>(n, "distributed outgoing dependencies");
    send_counts = bucket_by_owner(space, deps, begin, ranks, counts, cursor, send);
    send_host = host_mirror(send, "distributed outgoing dependencies (host staging)");
    Kokkos::deep_copy(space, send_host, send);
    space.fence();
  });
  const std::vector<int> recv_counts = comm.exchange_counts(send_counts);
  std::uint64_t total = 0;
  for (int c : recv_counts) total += std::uint64_t(c);
  DepView recv;
  typename DepView::HostMirror recv_host;
  collective_phase(comm, [&] {
    recv = allocate_view<DepView>(total, "distributed owned dependencies");
    recv_host = host_mirror(recv, "distributed owned dependencies (host staging)");
  });
  const ContiguousType<Ordinal> pair(2);
  comm.all_to_all(send_host.data(), send_counts, recv_host.data(), recv_counts, pair.get());
  Kokkos::deep_copy(space, recv, recv_host);
  space.fence();
  const std::uint64_t held = (n + total) * sizeof(WaveDependency<Ordinal>) +
                             deps.span() * sizeof(WaveDependency<Ordinal>);
  if (held > peak_bytes) peak_bytes = held;
  return recv;
}

}  // namespace detail

/// InvalidArgument unless `begin` is a block partition of `wave_count` waves
/// over `ranks` ranks: ranks + 1 entries, 0 first, wave_count last, non-decreasing.
inline void check_fixed_wave_begin(const std::vector<std::uint64_t>& begin,
                                   std::uint64_t wave_count, int ranks) {
  bool ok = begin.size() == std::size_t(ranks) + 1 && begin.front() == 0 &&
            begin.back() == wave_count;
  for (std::size_t r = 0; ok && r + 1 < begin.size(); ++r) ok = begin[r] <= begin[r + 1];
  if (!ok)
    throw PlanError::invalid_argument(
        "DistributedOptions::wave_begin is not a block partition of " +
            std::to_string(wave_count) + " waves over " + std::to_string(ranks) + " ranks",
        "give ranks + 1 non-decreasing entries from 0 to the wave count (rank r owns "
        "[wave_begin[r], wave_begin[r + 1])), or leave it empty to cut by weight");
}

template <class ExecSpace, class Ordinal>
struct DistributedDependencies {
  ShardPlan shard;
  std::uint64_t first_index = 0;  ///< global input index of this rank's first dependency
  /// The dependencies whose `before` this rank owns (order unspecified).
  Kokkos::View<WaveDependency<Ordinal>*, typename ExecSpace::memory_space> owned;
  std::uint64_t peak_bytes = 0;   ///< device bytes held at the high point of distribution
};

/// Validates, shards and moves rank-local dependencies (see the file comment).
/// Collective over `comm`: every rank returns, or every rank throws the same
/// PlanError. `budget_bytes` is per rank (0: unbounded).
template <class Offset = DefaultOffset, class ExecSpace, class Ordinal, class... P>
DistributedDependencies<ExecSpace, Ordinal> distribute_dependencies(
    const ExecSpace& space, const Communicator& comm, std::uint64_t wave_count,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& local, std::uint64_t budget_bytes,
    const std::vector<std::uint64_t>& fixed_wave_begin = {}) {
  using Memory = typename ExecSpace::memory_space;
  DistributedDependencies<ExecSpace, Ordinal> out;
  const int ranks = comm.size(), rank = comm.rank();
  const std::uint64_t local_count = local.extent(0);
  const std::uint64_t dependency_count = comm.sum(local_count);
  out.first_index = comm.exclusive_sum(local_count);

  // budget: the single-process order (shape, then memory, then the
  // dependencies), and nothing per wave is allocated before it passes. A
  // rank of the uniform partition below then holds 16 bytes per wave (the
  // degrees and their prefix), less than the 28+ the budget was checked for.
  collective_phase(comm, [&] {
    check_graph_shape<Ordinal, Offset>(wave_count, dependency_count);
    check_rank_count(ranks, shard_rates<Ordinal, Offset>(), wave_count, dependency_count,
                     least_max_out_degree(wave_count, dependency_count), budget_bytes);
  });

  // validate
  collective_phase(comm, [&] {
    const std::size_t first = first_invalid_dependency(space, wave_count, local);
    if (first == std::numeric_limits<std::size_t>::max()) return;
    WaveDependency<Ordinal> offender{};
    Kokkos::deep_copy(space, Kokkos::View<WaveDependency<Ordinal>, Kokkos::HostSpace>(&offender),
                      Kokkos::subview(local, first));
    space.fence();
    throw OrderedError{out.first_index + first, dependency_error(wave_count, offender)};
  });

  // shape
  const std::vector<std::uint64_t> uniform = uniform_wave_begin(wave_count, ranks);
  auto by_uniform = detail::send_to_owners(space, comm, local, uniform, out.peak_bytes);
  const std::uint64_t lo = uniform[std::size_t(rank)];
  const std::uint64_t n = uniform[std::size_t(rank) + 1] - lo;
  Kokkos::View<std::uint64_t*, Memory> degree;
  std::uint64_t local_max_degree = 0;
  collective_phase(comm, [&] {
    degree = allocate_view<decltype(degree)>(n, "distributed out-degrees", true);
    local_max_degree = detail::out_degrees(space, by_uniform, lo, degree);
  });
  const std::uint64_t max_degree = comm.max(local_max_degree);
  collective_phase(comm, [&] {
    out.shard = make_shard_plan(ranks, shard_rates<Ordinal, Offset>(), wave_count,
                                dependency_count, max_degree, budget_bytes);
  });

  // A partition the caller fixed (a mesh decomposition that the waves'
  // numbering follows): checked, then used instead of the weight cut.
  if (!fixed_wave_begin.empty()) {
    collective_phase(comm, [&] { check_fixed_wave_begin(fixed_wave_begin, wave_count, ranks); });
    out.shard.wave_begin = fixed_wave_begin;
    degree = {};
    const Kokkos::View<const WaveDependency<Ordinal>*, Memory> staged = by_uniform;
    out.owned = detail::send_to_owners(space, comm, staged, fixed_wave_begin, out.peak_bytes);
    return out;
  }

  // cut: cut k = the first wave whose exclusive weight prefix reaches target k.
  const ShardRates rates = out.shard.rates;
  const std::uint64_t total = out.shard.total_weight;
  std::uint64_t local_weight = 0;
  Kokkos::View<std::uint64_t*, Memory> prefix_weight;
  collective_phase(comm, [&] {
    prefix_weight = allocate_view<decltype(prefix_weight)>(n, "distributed weight prefix");
    local_weight = detail::weight_prefix(space, rates, degree, prefix_weight);
  });
  const std::uint64_t offset = comm.exclusive_sum(local_weight);
  Kokkos::View<std::uint64_t*, Memory> cuts("strata::distributed::cuts", std::size_t(ranks) + 1);
  Kokkos::deep_copy(space, cuts, wave_count);
  if (total != 0) {
    const std::uint64_t P64 = std::uint64_t(ranks);
    Kokkos::parallel_for(
        "strata::distributed::cuts", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(const std::size_t w) {
          // Wave lo+w spans the weights (e, e'] of the global prefix; the
          // targets t_k = ceil(k W / P) in that range cut right after it.
          const std::uint64_t e = offset + prefix_weight(w);
          const std::uint64_t e2 = e + rates.per_wave + rates.per_dependency * degree(w);
          const std::uint64_t k_lo = e * P64 / total + 1;
          std::uint64_t k_hi = e2 * P64 / total;
          if (k_hi > P64 - 1) k_hi = P64 - 1;
          for (std::uint64_t k = k_lo; k <= k_hi; ++k) cuts(k) = lo + w + 1;
        });
  }
  auto cuts_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cuts);
  std::vector<std::uint64_t> begin(cuts_host.data(), cuts_host.data() + cuts_host.extent(0));
  comm.all_reduce_in_place(begin, MPI_MIN);
  begin.front() = 0;
  begin.back() = wave_count;
  out.shard.wave_begin = begin;
  degree = {};
  prefix_weight = {};

  // move
  const Kokkos::View<const WaveDependency<Ordinal>*, Memory> staged = by_uniform;
  out.owned = detail::send_to_owners(space, comm, staged, begin, out.peak_bytes);
  return out;
}

}  // namespace strata::distributed
