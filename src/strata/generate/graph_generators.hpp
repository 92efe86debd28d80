#pragma once
// Deterministic dependency-graph generators (same seed, same graph, on every
// platform: the random numbers come from splitmix64, not from <random>'s
// implementation-defined distributions). Used by the CLI (`strata plan
// --demo`, `strata gen`), the differential tests and the benchmarks.

#include <cstdint>
#include <string>
#include <vector>

#include <strata/graph/wave_dependency.hpp>

namespace strata::generate {

struct GeneratedGraph {
  std::uint64_t wave_count = 0;
  std::vector<WaveDependency<std::uint64_t>> dependencies;
  std::string description;  ///< one line, e.g. "sweep3d 200x200x200"
};

/// splitmix64: tiny, fast, and identical everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// In [0, bound) for bound > 0 (the modulo bias is irrelevant for graph generation).
  std::uint64_t below(std::uint64_t bound) { return next() % bound; }

 private:
  std::uint64_t state_;
};

/// 2-D upwind sweep on nx x ny cells: (i,j) waits for (i-1,j) and (i,j-1).
GeneratedGraph sweep2d(std::uint64_t nx, std::uint64_t ny);
/// 3-D upwind sweep: (i,j,k) waits for its three upwind neighbours.
GeneratedGraph sweep3d(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz);
/// 0 -> 1 -> ... -> n-1.
GeneratedGraph chain(std::uint64_t n);
/// 0 -> every other wave.
GeneratedGraph fanout(std::uint64_t n);
/// `depth` layers of `width` waves; every wave past the first layer waits for
/// `fan_in` random waves of the previous layer (at least one), and with
/// probability skip_percent/100 for one random wave of any earlier layer.
/// Ids are shuffled when `shuffle_ids` is set.
GeneratedGraph layered(std::uint64_t width, std::uint64_t depth, std::uint64_t fan_in,
                       unsigned skip_percent, bool shuffle_ids, std::uint64_t seed);
/// Random DAG with `dependency_count` edges (duplicates possible) whose ids
/// are a random permutation of a topological order.
GeneratedGraph random_dag(std::uint64_t wave_count, std::uint64_t dependency_count,
                          std::uint64_t seed);

/// Every wave but the last -> the last (all -> one).
GeneratedGraph fanin(std::uint64_t n);

/// Complete binary tree of n waves, ids topologically ordered either way.
enum class TreeDirection {
  Out,  ///< the root (wave 0) first: wave i waits for its parent (i-1)/2
  In,   ///< the leaves first: a parent waits for its two children; the root is wave n-1
};
GeneratedGraph binary_tree(std::uint64_t n, TreeDirection direction);

/// The lower-triangular pattern of the ILU(0) factor of the 5-point 2-D
/// Laplacian on an nx x ny grid under a random symmetric permutation P: an
/// edge j -> i for every off-diagonal L(i,j), j < i, of P·A·Pᵀ (ILU(0) keeps
/// A's pattern, so these are A's grid edges, renumbered). Ids are therefore
/// topologically ordered; the dependencies are listed row by row (row i's
/// columns ascending).
GeneratedGraph ilu2d(std::uint64_t nx, std::uint64_t ny, std::uint64_t seed);
/// The same for the 7-point 3-D Laplacian on nx x ny x nz.
GeneratedGraph ilu3d(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz, std::uint64_t seed);

/// Power-law DAG by preferential attachment over earlier waves: wave i > 0
/// waits for min(edges_per_wave, i) distinct earlier waves, each picked with
/// probability 1/2 uniformly and 1/2 proportionally to its out-degree so far
/// (so the probability grows with out-degree + 1). Ids are topologically
/// ordered (every dependency has before < after).
GeneratedGraph power_law(std::uint64_t n, std::uint64_t edges_per_wave, std::uint64_t seed);

/// Relabels waves by a random permutation (the DAG's shape is unchanged).
void shuffle_ids(GeneratedGraph& graph, std::uint64_t seed);

/// True when every dependency has before < after (ids are a topological
/// order), which a lower-triangular solver's level scheduling requires.
bool ids_topologically_ordered(const GeneratedGraph& graph);

/// The dependencies narrowed to another ordinal type (caller checks the range).
template <class Ordinal>
std::vector<WaveDependency<Ordinal>> narrowed(const GeneratedGraph& graph) {
  std::vector<WaveDependency<Ordinal>> out;
  out.reserve(graph.dependencies.size());
  for (const auto& d : graph.dependencies)
    out.push_back({static_cast<Ordinal>(d.before), static_cast<Ordinal>(d.after)});
  return out;
}

}  // namespace strata::generate
