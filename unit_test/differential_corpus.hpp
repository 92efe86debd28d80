#pragma once
// The differential corpus shared by the single-process differential test
// (tstDifferential.cpp) and the distributed one (tstDistributed.cpp).
#include <cstdint>
#include <utility>

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>

namespace strata::test {

using generate::GeneratedGraph;
using generate::SplitMix64;

/// The corpus: 2400 graphs from a fixed seed, a different mix per index.
inline GeneratedGraph corpus_graph(std::uint64_t index) {
  SplitMix64 rng(index * 7919 + 13);
  switch (index % 8) {
    case 0: return generate::random_dag(1 + rng.below(400), rng.below(1600), index);
    case 1: return generate::layered(1 + rng.below(40), 1 + rng.below(40), 1 + rng.below(4),
                                     unsigned(rng.below(60)), true, index);
    case 2: return generate::layered(100 + rng.below(300), 1 + rng.below(4), 1 + rng.below(3),
                                     10, true, index);  // wide
    case 3: {  // deep: a shuffled chain with random shortcuts
      auto g = generate::chain(50 + rng.below(500));
      for (std::uint64_t k = 0, n = rng.below(100); k < n; ++k) {
        const std::uint64_t a = rng.below(g.wave_count - 1);
        g.dependencies.push_back({a, a + 1 + rng.below(g.wave_count - 1 - a)});
      }
      generate::shuffle_ids(g, index);
      return g;
    }
    case 4: {  // sweeps, shuffled
      auto g = rng.below(2) ? generate::sweep2d(1 + rng.below(30), 1 + rng.below(30))
                            : generate::sweep3d(1 + rng.below(8), 1 + rng.below(8), 1 + rng.below(8));
      generate::shuffle_ids(g, index);
      return g;
    }
    case 5: {  // heavy multi-edges: every dependency repeated up to 4 times, order mixed
      auto g = generate::random_dag(2 + rng.below(200), rng.below(500), index);
      const auto base = g.dependencies;
      for (const auto& d : base)
        for (std::uint64_t r = rng.below(4); r > 0; --r) g.dependencies.push_back(d);
      for (std::size_t i = g.dependencies.size(); i > 1; --i)
        std::swap(g.dependencies[i - 1], g.dependencies[rng.below(i)]);
      return g;
    }
    case 6: {  // fan-in and fan-out stars with isolated waves
      auto g = generate::fanout(2 + rng.below(2000));
      if (index % 16 == 6)
        for (auto& d : g.dependencies) std::swap(d.before, d.after);  // fan-in
      g.wave_count += rng.below(50);                                  // isolated waves
      generate::shuffle_ids(g, index);
      return g;
    }
    default: {  // cyclic or invalid: a DAG plus one back edge or a bad id
      auto g = generate::random_dag(3 + rng.below(300), 10 + rng.below(800), index);
      const std::uint64_t pick = rng.below(3);
      if (pick == 0 && !g.dependencies.empty()) {
        const auto d = g.dependencies[rng.below(g.dependencies.size())];
        g.dependencies.insert(g.dependencies.begin() + rng.below(g.dependencies.size()),
                              {d.after, d.before});  // 2-cycle
      } else if (pick == 1) {
        g.dependencies.push_back({rng.below(g.wave_count), g.wave_count + rng.below(5)});
      } else {
        const std::uint64_t w = rng.below(g.wave_count);
        g.dependencies.insert(g.dependencies.begin() + rng.below(g.dependencies.size() + 1), {w, w});
      }
      return g;
    }
  }
}

/// The fields that identify an error of the kinds the corpus provokes.
inline std::uint64_t error_fields(const PlanError& e) {
  if (e.kind() == ErrorKind::Cycle) return e.unscheduled_waves();
  if (e.kind() == ErrorKind::SelfDependency) return e.wave();
  return e.before() * 1000003 + e.after();
}

}  // namespace strata::test
