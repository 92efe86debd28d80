#include <strata/generate/graph_generators.hpp>

#include <numeric>
#include <utility>

namespace strata::generate {

GeneratedGraph sweep2d(std::uint64_t nx, std::uint64_t ny) {
  GeneratedGraph g;
  g.wave_count = nx * ny;
  g.description = "sweep2d " + std::to_string(nx) + "x" + std::to_string(ny);
  g.dependencies.reserve(2 * g.wave_count);
  for (std::uint64_t j = 0; j < ny; ++j)
    for (std::uint64_t i = 0; i < nx; ++i) {
      const std::uint64_t w = j * nx + i;
      if (i > 0) g.dependencies.push_back({w - 1, w});
      if (j > 0) g.dependencies.push_back({w - nx, w});
    }
  return g;
}

GeneratedGraph sweep3d(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz) {
  GeneratedGraph g;
  g.wave_count = nx * ny * nz;
  g.description = "sweep3d " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                  std::to_string(nz);
  g.dependencies.reserve(3 * g.wave_count);
  for (std::uint64_t k = 0; k < nz; ++k)
    for (std::uint64_t j = 0; j < ny; ++j)
      for (std::uint64_t i = 0; i < nx; ++i) {
        const std::uint64_t w = (k * ny + j) * nx + i;
        if (i > 0) g.dependencies.push_back({w - 1, w});
        if (j > 0) g.dependencies.push_back({w - nx, w});
        if (k > 0) g.dependencies.push_back({w - nx * ny, w});
      }
  return g;
}

GeneratedGraph chain(std::uint64_t n) {
  GeneratedGraph g;
  g.wave_count = n;
  g.description = "chain " + std::to_string(n);
  g.dependencies.reserve(n);
  for (std::uint64_t w = 1; w < n; ++w) g.dependencies.push_back({w - 1, w});
  return g;
}

GeneratedGraph fanout(std::uint64_t n) {
  GeneratedGraph g;
  g.wave_count = n;
  g.description = "fanout " + std::to_string(n);
  g.dependencies.reserve(n);
  for (std::uint64_t w = 1; w < n; ++w) g.dependencies.push_back({0, w});
  return g;
}

GeneratedGraph layered(std::uint64_t width, std::uint64_t depth, std::uint64_t fan_in,
                       unsigned skip_percent, bool shuffle, std::uint64_t seed) {
  GeneratedGraph g;
  g.wave_count = width * depth;
  g.description = "layered " + std::to_string(width) + "x" + std::to_string(depth) +
                  " fan_in " + std::to_string(fan_in) + " skip " +
                  std::to_string(skip_percent) + "% seed " + std::to_string(seed);
  SplitMix64 rng(seed);
  const std::uint64_t per_wave = fan_in == 0 ? 1 : fan_in;
  for (std::uint64_t layer = 1; layer < depth; ++layer)
    for (std::uint64_t slot = 0; slot < width; ++slot) {
      const std::uint64_t w = layer * width + slot;
      for (std::uint64_t k = 0; k < per_wave; ++k)
        g.dependencies.push_back({(layer - 1) * width + rng.below(width), w});
      if (rng.below(100) < skip_percent) g.dependencies.push_back({rng.below((layer)*width), w});
    }
  if (shuffle) shuffle_ids(g, seed ^ 0x5eedull);
  return g;
}

GeneratedGraph random_dag(std::uint64_t wave_count, std::uint64_t dependency_count,
                          std::uint64_t seed) {
  GeneratedGraph g;
  g.wave_count = wave_count;
  g.description = "random " + std::to_string(wave_count) + " waves " +
                  std::to_string(dependency_count) + " dependencies seed " + std::to_string(seed);
  if (wave_count < 2) return g;
  SplitMix64 rng(seed);
  g.dependencies.reserve(dependency_count);
  for (std::uint64_t e = 0; e < dependency_count; ++e) {
    const std::uint64_t a = rng.below(wave_count - 1);
    const std::uint64_t b = a + 1 + rng.below(wave_count - 1 - a);
    g.dependencies.push_back({a, b});  // a precedes b in topological rank
  }
  shuffle_ids(g, seed ^ 0xdaull);
  return g;
}

GeneratedGraph fanin(std::uint64_t n) {
  GeneratedGraph g;
  g.wave_count = n;
  g.description = "fanin " + std::to_string(n);
  if (n < 2) return g;
  g.dependencies.reserve(n - 1);
  for (std::uint64_t w = 0; w + 1 < n; ++w) g.dependencies.push_back({w, n - 1});
  return g;
}

GeneratedGraph binary_tree(std::uint64_t n, TreeDirection direction) {
  GeneratedGraph g;
  g.wave_count = n;
  const bool in = direction == TreeDirection::In;
  g.description = std::string("tree ") + std::to_string(n) + (in ? " in" : " out");
  g.dependencies.reserve(n == 0 ? 0 : n - 1);
  for (std::uint64_t i = 1; i < n; ++i) {
    const std::uint64_t parent = (i - 1) / 2;
    if (in)  // mirrored ids: node k is wave n-1-k, so children (larger k) come first
      g.dependencies.push_back({n - 1 - i, n - 1 - parent});
    else
      g.dependencies.push_back({parent, i});
  }
  return g;
}

bool ids_topologically_ordered(const GeneratedGraph& graph) {
  for (const auto& d : graph.dependencies)
    if (!(d.before < d.after)) return false;
  return true;
}

void shuffle_ids(GeneratedGraph& graph, std::uint64_t seed) {
  std::vector<std::uint64_t> id(graph.wave_count);
  std::iota(id.begin(), id.end(), std::uint64_t(0));
  SplitMix64 rng(seed);
  for (std::uint64_t i = graph.wave_count; i > 1; --i) std::swap(id[i - 1], id[rng.below(i)]);
  for (auto& d : graph.dependencies) d = {id[d.before], id[d.after]};
}

}  // namespace strata::generate
