#pragma once
// The plain host reference: a serial port of the seed's algorithm (counting,
// CSR, Kahn with current/next ready lists), with each group sorted ascending
// to match Strata's layout. Tests and benchmarks compare the planner against
// it; it is deliberately simple, not fast.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata {

struct ReferencePlan {
  std::vector<std::uint64_t> group_offsets;  ///< size groups + 1
  std::vector<std::uint64_t> waves;          ///< ascending inside each group
  std::size_t group_count() const { return group_offsets.empty() ? 0 : group_offsets.size() - 1; }
};

/// Throws the same PlanError kinds and fields as plan_barriers.
template <class Ordinal>
ReferencePlan reference_kahn(std::uint64_t wave_count, const WaveDependency<Ordinal>* deps,
                             std::size_t dependency_count) {
  for (std::size_t i = 0; i < dependency_count; ++i) {
    const std::uint64_t b = deps[i].before, a = deps[i].after;
    if (b >= wave_count || a >= wave_count) throw PlanError::invalid_wave(wave_count, b, a);
    if (b == a) throw PlanError::self_dependency(b);
  }
  const std::size_t n = wave_count;
  std::vector<std::uint64_t> offsets(n + 1, 0), indegree(n, 0), targets(dependency_count);
  for (std::size_t i = 0; i < dependency_count; ++i) {
    ++offsets[deps[i].before + 1];
    ++indegree[deps[i].after];
  }
  for (std::size_t w = 0; w < n; ++w) offsets[w + 1] += offsets[w];
  std::vector<std::uint64_t> cursor(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < dependency_count; ++i) targets[cursor[deps[i].before]++] = deps[i].after;

  ReferencePlan plan;
  plan.group_offsets.push_back(0);
  std::vector<std::uint64_t> ready, next;
  for (std::size_t w = 0; w < n; ++w)
    if (indegree[w] == 0) ready.push_back(w);
  while (!ready.empty()) {
    next.clear();
    for (std::uint64_t w : ready)
      for (std::uint64_t e = offsets[w]; e < offsets[w + 1]; ++e)
        if (--indegree[targets[e]] == 0) next.push_back(targets[e]);
    std::sort(ready.begin(), ready.end());
    plan.waves.insert(plan.waves.end(), ready.begin(), ready.end());
    plan.group_offsets.push_back(plan.waves.size());
    ready.swap(next);
  }
  if (plan.waves.size() != n) throw PlanError::cycle(n - plan.waves.size());
  return plan;
}

template <class Ordinal>
ReferencePlan reference_kahn(std::uint64_t wave_count,
                             const std::vector<WaveDependency<Ordinal>>& deps) {
  return reference_kahn(wave_count, deps.data(), deps.size());
}

}  // namespace strata
