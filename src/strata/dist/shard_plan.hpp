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
// Fewer is InsufficientRanks{needed, available, budget}; a budget that not
// even one wave fits is MemoryConstrained. A budget of 0 means unbounded.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/launch/planner_storage.hpp>

namespace strata::dist {

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

/// The fewest ranks for a shape (see the file comment); throws
/// MemoryConstrained when no rank count suffices.
inline std::uint64_t ranks_needed(const ShardRates& rates, std::uint64_t waves,
                                  std::uint64_t dependencies, std::uint64_t max_out_degree,
                                  std::uint64_t budget) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  if (waves > max / 64 || dependencies > max / 64) throw PlanError::count_overflow("shard weights");
  const std::uint64_t total = rates.per_wave * waves + rates.per_dependency * dependencies;
  if (budget == 0 || rates.fixed + total <= budget) return 1;
  const std::uint64_t heaviest = rates.per_wave + rates.per_dependency * max_out_degree;
  const std::uint64_t slack = rates.fixed + 1 + heaviest;
  if (budget <= slack) throw PlanError::memory_constrained(slack, budget);
  const std::uint64_t room = budget - slack;
  return (total + room - 1) / room;
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
  s.ranks_needed = ranks_needed(rates, waves, dependencies, max_out_degree, budget);
  if (s.ranks_needed > std::uint64_t(ranks))
    throw PlanError::insufficient_ranks(s.ranks_needed, std::uint64_t(ranks), budget);
  s.total_weight = rates.per_wave * waves + rates.per_dependency * dependencies;
  if (s.total_weight > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(ranks))
    throw PlanError::count_overflow("shard weights");
  s.wave_begin = uniform_wave_begin(waves, ranks);
  return s;
}

}  // namespace strata::dist
