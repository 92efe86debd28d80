// Power-law DAG by preferential attachment (see graph_generators.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include <strata/generate/graph_generators.hpp>

namespace strata::generate {

GeneratedGraph power_law(std::uint64_t n, std::uint64_t edges_per_wave, std::uint64_t seed) {
  GeneratedGraph g;
  g.wave_count = n;
  g.description = "powerlaw " + std::to_string(n) + " edges/wave " +
                  std::to_string(edges_per_wave) + " seed " + std::to_string(seed);
  if (n < 2 || edges_per_wave == 0) return g;
  SplitMix64 rng(seed);
  // Wave w takes min(edges_per_wave, w) <= n - 1 dependencies.
  const std::uint64_t per_wave = std::min(edges_per_wave, n - 1);
  g.dependencies.reserve((n - 1) * per_wave);
  // One entry per dependency already drawn, naming its `before` wave: a
  // uniform pick from it chooses a wave with probability ~ its out-degree.
  std::vector<std::uint64_t> endpoints;
  endpoints.reserve((n - 1) * per_wave);
  std::vector<std::uint64_t> chosen;
  for (std::uint64_t w = 1; w < n; ++w) {
    const std::uint64_t want = std::min(edges_per_wave, w);
    chosen.clear();
    while (chosen.size() < want) {
      std::uint64_t pick = 0;
      if (endpoints.empty() || rng.below(2) == 0)
        pick = rng.below(w);
      else
        pick = endpoints[rng.below(endpoints.size())];
      if (std::find(chosen.begin(), chosen.end(), pick) == chosen.end()) chosen.push_back(pick);
      // `want` <= w distinct candidates exist and the uniform branch reaches
      // each of them, so the loop ends (with probability 1, quickly for small want).
    }
    std::sort(chosen.begin(), chosen.end());
    for (std::uint64_t p : chosen) {
      g.dependencies.push_back({p, w});
      endpoints.push_back(p);
    }
  }
  return g;
}

}  // namespace strata::generate
