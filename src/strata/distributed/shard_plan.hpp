#pragma once
// ShardPlan: how many ranks a graph needs under a per-rank memory budget, and
// the block partition of the waves over the ranks.
//
// Bytes a rank holds (ShardRates, from the planner's own storage formula,
// planner_storage_bytes, plus what distribution adds):
//
//   fixed + per_wave * (its waves) + per_dependency * (its dependencies)
//
// where a rank holds the dependencies whose `before` it owns. Every wave
// weighs per_wave + per_dependency * out-degree; the partition cuts the
// waves into contiguous blocks at the weight targets ceil(k * W / P)
// (W: the total weight), so a block weighs less than W / P + 1 + the
// heaviest wave. Hence:
//
//   ranks_needed = 1                                       if fixed + W <= budget
//                = ceil(W / (budget - fixed - 1 - heaviest))  otherwise
//
// and running on ranks_needed or more ranks keeps every rank within budget.
// Fewer is InsufficientRanks{needed, available, budget}. No rank count helps
// when the heaviest wave does not fit one rank, or when the graph needs more
// ranks than MPI can number (2^31 - 1; a wave count of 2^63 needs that many
// at any budget a machine has): that is MemoryConstrained, the single-process
// answer to a graph beyond the memory budget, with a Fix: for the per-rank
// budget. A budget of 0 means unbounded.
//
// check_rank_count runs twice: before any per-wave array is allocated, with
// the smallest heaviest wave the counts allow (the mean out-degree, rounded
// up), so a header claiming billions of waves is answered from its counts
// alone; then with the real largest out-degree.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/planner_storage.hpp>

namespace strata::distributed {

struct ShardRates {
  std::uint64_t fixed = 0;           ///< bytes a rank holds whatever its share
  std::uint64_t per_wave = 0;        ///< bytes per owned wave
  std::uint64_t per_dependency = 0;  ///< bytes per owned dependency
};

/// The rates of the distributed planner with these index types: the planner's
/// storage (CSR, remaining in-degree, frontier order, fill cursor, levels:
/// the sparse mode's buffers from planner_storage_bytes) plus, per
/// dependency, the received dependency itself and one exchange-buffer slot.
template <class Ordinal, class Offset>
ShardRates shard_rates() {
  const auto base = planner_storage_bytes(0, 0, sizeof(Ordinal), sizeof(Offset));
  const auto wave = planner_storage_bytes(1, 0, sizeof(Ordinal), sizeof(Offset));
  const auto dep = planner_storage_bytes(0, 1, sizeof(Ordinal), sizeof(Offset));
  ShardRates r;
  r.fixed = base.total();
  r.per_wave = wave.total() - base.total();
  r.per_dependency =
      dep.total() - base.total() + sizeof(WaveDependency<Ordinal>) + sizeof(Ordinal);
  return r;
}

struct ShardPlan {
  int ranks = 1;                        ///< ranks the graph is sharded over
  std::uint64_t ranks_needed = 1;       ///< the fewest ranks the budget allows
  std::uint64_t wave_count = 0;         ///< global
  std::uint64_t dependency_count = 0;   ///< global
  std::uint64_t budget_bytes = 0;       ///< per rank; 0: unbounded
  ShardRates rates;
  std::uint64_t total_weight = 0;       ///< W: bytes of all waves and dependencies
  std::vector<std::uint64_t> wave_begin;  ///< ranks + 1 entries: rank r owns [r], [r+1])

  std::uint64_t first_wave(int rank) const { return wave_begin[std::size_t(rank)]; }
  std::uint64_t wave_count_of(int rank) const {
    return wave_begin[std::size_t(rank) + 1] - wave_begin[std::size_t(rank)];
  }
  /// Weight target of cut k (1..ranks-1): ceil(k * W / ranks).
  std::uint64_t cut_target(int k) const {
    return (std::uint64_t(k) * total_weight + std::uint64_t(ranks) - 1) / std::uint64_t(ranks);
  }
};

/// Equal wave counts per rank (the partition used before degrees are known).
inline std::vector<std::uint64_t> uniform_wave_begin(std::uint64_t waves, int ranks) {
  std::vector<std::uint64_t> begin(std::size_t(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    begin[std::size_t(r)] = waves / std::uint64_t(ranks) * std::uint64_t(r) +
                            std::min<std::uint64_t>(waves % std::uint64_t(ranks), std::uint64_t(r));
  return begin;
}

/// The largest number of ranks an MPI communicator can have (ranks are ints).
inline constexpr std::uint64_t max_mpi_ranks = std::uint64_t(std::numeric_limits<int>::max());

namespace detail {
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                           : a + b;
}
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b
             ? std::numeric_limits<std::uint64_t>::max()
             : a * b;
}
}  // namespace detail

/// W: the bytes of all waves and dependencies, saturating at 2^64 - 1.
inline std::uint64_t total_weight(const ShardRates& rates, std::uint64_t waves,
                                  std::uint64_t dependencies) {
  return detail::saturating_add(detail::saturating_mul(rates.per_wave, waves),
                                detail::saturating_mul(rates.per_dependency, dependencies));
}

/// The fewest ranks for a shape (see the file comment); throws
/// MemoryConstrained when no rank count suffices, CountOverflow when the
/// budget is unbounded (0) and the bytes do not fit 64 bits.
inline std::uint64_t ranks_needed(const ShardRates& rates, std::uint64_t waves,
                                  std::uint64_t dependencies, std::uint64_t max_out_degree,
                                  std::uint64_t budget) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t total = total_weight(rates, waves, dependencies);
  const std::uint64_t held = detail::saturating_add(rates.fixed, total);
  if (budget == 0) {
    if (held == max) throw PlanError::count_overflow("shard weights");
    return 1;
  }
  if (held <= budget && held != max) return 1;
  const std::uint64_t heaviest = detail::saturating_add(
      rates.per_wave, detail::saturating_mul(rates.per_dependency, max_out_degree));
  const std::uint64_t slack = detail::saturating_add(rates.fixed + 1, heaviest);
  if (budget <= slack)
    throw with_fix(PlanError::memory_constrained(slack, budget),
                   "raise DistributedOptions::rank_budget_bytes above " + std::to_string(slack) +
                       " bytes (one rank holds its heaviest wave whole: more ranks do not help)");
  const std::uint64_t room = budget - slack;
  const std::uint64_t needed = total / room + (total % room != 0 ? 1 : 0);
  if (held == max || needed > max_mpi_ranks)
    throw with_fix(PlanError::memory_constrained(held, budget),
                   "raise DistributedOptions::rank_budget_bytes (at this budget the graph needs more than " +
                       std::to_string(max_mpi_ranks) + " ranks, more than MPI can run)");
  return needed;
}

/// ranks_needed for `ranks` ranks: InsufficientRanks when `ranks` is fewer.
inline std::uint64_t check_rank_count(int ranks, const ShardRates& rates, std::uint64_t waves,
                                      std::uint64_t dependencies, std::uint64_t max_out_degree,
                                      std::uint64_t budget) {
  const std::uint64_t needed = ranks_needed(rates, waves, dependencies, max_out_degree, budget);
  if (needed > std::uint64_t(ranks))
    throw PlanError::insufficient_ranks(needed, std::uint64_t(ranks), budget);
  return needed;
}

/// The smallest largest out-degree `dependencies` over `waves` can have.
inline std::uint64_t least_max_out_degree(std::uint64_t waves, std::uint64_t dependencies) {
  return waves == 0 ? dependencies : dependencies / waves + (dependencies % waves != 0 ? 1 : 0);
}

/// The shard plan's shape for `ranks` ranks: ranks_needed (InsufficientRanks
/// when `ranks` is fewer), the total weight, and a uniform partition that
/// the balanced cuts (distribute_dependencies) then replace.
inline ShardPlan make_shard_plan(int ranks, const ShardRates& rates, std::uint64_t waves,
                                 std::uint64_t dependencies, std::uint64_t max_out_degree,
                                 std::uint64_t budget) {
  ShardPlan s;
  s.ranks = ranks;
  s.wave_count = waves;
  s.dependency_count = dependencies;
  s.budget_bytes = budget;
  s.rates = rates;
  s.ranks_needed = check_rank_count(ranks, rates, waves, dependencies, max_out_degree, budget);
  s.total_weight = total_weight(rates, waves, dependencies);
  if (s.total_weight > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(ranks))
    throw PlanError::count_overflow("shard weights");
  s.wave_begin = uniform_wave_begin(waves, ranks);
  return s;
}

}  // namespace strata::distributed
