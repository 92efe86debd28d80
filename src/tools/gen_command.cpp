// strata gen KIND ARGS... [--seed S] [--output edges|mtx]: write a generated
// graph in the edge-list format, or as the lower-triangular pattern of a
// Matrix Market matrix (diagonal included, as a factor L holds it).
//
// Every size is checked before anything is generated: a wave count that
// does not fit in 64 bits is CountOverflow, a graph that cannot fit in the
// machine's memory is MemoryConstrained, both naming the arguments to change
// (exit 3); an allocation that fails anyway is StorageReserveFailed.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/io/matrix_market.hpp>

#include "commands.hpp"
#include "memory_budget.hpp"
#include "suggest.hpp"

namespace strata::tools {

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

std::uint64_t parse_count(const std::string& s, const char* what) {
  const auto v = parse_decimal(s, max64);
  if (!v)
    throw UsageError{std::string(what) + " must be a non-negative integer below 2^64 (digits only), not '" +
                     s + "'"};
  return *v;
}

/// a * b, or nothing when it does not fit in 64 bits.
std::optional<std::uint64_t> product(std::optional<std::uint64_t> a, std::uint64_t b) {
  if (!a || (b != 0 && *a > max64 / b)) return std::nullopt;
  return *a * b;
}
std::optional<std::uint64_t> sum(std::optional<std::uint64_t> a, std::optional<std::uint64_t> b) {
  if (!a || !b || *a > max64 - *b) return std::nullopt;
  return *a + *b;
}

/// What a `gen` call will hold before it writes anything.
struct GenShape {
  std::optional<std::uint64_t> waves;         ///< nothing: beyond 64 bits
  std::optional<std::uint64_t> dependencies;  ///< at most
  std::optional<std::uint64_t> bytes;         ///< host memory at the high point
};

/// `ids_per_wave`: 64-bit id arrays per wave (a permutation: 2, a shuffle: 1);
/// `copies_per_dependency`: 8-byte entries per dependency beyond the list.
GenShape shape(std::optional<std::uint64_t> waves, std::optional<std::uint64_t> dependencies,
               std::uint64_t ids_per_wave, std::uint64_t copies_per_dependency = 0) {
  GenShape s{waves, dependencies, std::nullopt};
  s.bytes = sum(product(dependencies, 16 + 8 * copies_per_dependency),
                product(waves, 8 * ids_per_wave));
  return s;
}

}  // namespace

int gen_command(const std::vector<std::string>& argv) {
  std::vector<std::string> args;
  std::uint64_t seed = 1;
  bool mtx = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--seed") {
      if (i + 1 >= argv.size()) throw UsageError{"--seed needs a value"};
      seed = parse_count(argv[++i], "--seed");
    } else if (argv[i] == "--output") {
      if (i + 1 >= argv.size()) throw UsageError{"--output needs a value"};
      const std::string& v = argv[++i];
      if (v != "edges" && v != "mtx")
        throw UsageError{"--output must be 'edges' or 'mtx' for 'gen', not '" + v + "'"};
      mtx = v == "mtx";
    } else if (argv[i].size() > 2 && argv[i].compare(0, 2, "--") == 0) {
      throw UsageError{"unknown option '" + argv[i] + "' for 'gen'" +
                       did_you_mean(argv[i], {"--seed", "--output"})};
    } else {
      args.push_back(argv[i]);
    }
  }
  if (args.empty()) throw UsageError{"'gen' needs a KIND"};
  const std::string& kind = args[0];
  auto arg = [&](std::size_t i, const char* what) {
    if (i >= args.size()) throw UsageError{"'gen " + kind + "' needs " + what};
    return parse_count(args[i], what);
  };
  auto opt = [&](std::size_t i, const char* what, std::uint64_t fallback) {
    return i < args.size() ? parse_count(args[i], what) : fallback;
  };
  auto at_most = [&](std::size_t count, const char* form) {
    if (args.size() > count + 1)
      throw UsageError{"'gen " + kind + "' takes " + form + ", got " +
                       std::to_string(args.size() - 1) + " arguments"};
  };
  // The arguments, then the shape they ask for, then the graph.
  generate::GeneratedGraph (*make)(const std::vector<std::uint64_t>&, std::uint64_t) = nullptr;
  std::vector<std::uint64_t> v;
  std::string names;  // the arguments that size the graph, for the Fix hint
  GenShape s;
  if (kind == "sweep2d") {
    at_most(2, "NX [NY]");
    v = {arg(1, "NX")};
    v.push_back(opt(2, "NY", v[0]));
    names = "NX and NY";
    const auto w = product(v[0], v[1]);
    s = shape(w, product(w, 2), 0);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t) {
      return generate::sweep2d(a[0], a[1]);
    };
  } else if (kind == "sweep3d") {
    at_most(3, "N [NY NZ]");
    v = {arg(1, "N")};
    v.push_back(opt(2, "NY", v[0]));
    v.push_back(opt(3, "NZ", v[0]));
    names = "N (and NY, NZ)";
    const auto w = product(product(v[0], v[1]), v[2]);
    s = shape(w, product(w, 3), 0);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t) {
      return generate::sweep3d(a[0], a[1], a[2]);
    };
  } else if (kind == "chain" || kind == "fanout" || kind == "fanin") {
    at_most(1, "N");
    v = {arg(1, "N")};
    names = "N";
    s = shape(v[0], v[0], 0);
    if (kind == "chain")
      make = [](const std::vector<std::uint64_t>& a, std::uint64_t) { return generate::chain(a[0]); };
    else if (kind == "fanout")
      make = [](const std::vector<std::uint64_t>& a, std::uint64_t) { return generate::fanout(a[0]); };
    else
      make = [](const std::vector<std::uint64_t>& a, std::uint64_t) { return generate::fanin(a[0]); };
  } else if (kind == "layered") {
    at_most(4, "WIDTH DEPTH [FAN_IN [SKIP_PERCENT]]");
    v = {arg(1, "WIDTH"), arg(2, "DEPTH"), opt(3, "FAN_IN", 2), opt(4, "SKIP_PERCENT", 0)};
    if (v[3] > 100) throw UsageError{"SKIP_PERCENT must be in 0..100"};
    names = "WIDTH, DEPTH and FAN_IN";
    const auto w = product(v[0], v[1]);
    const std::uint64_t per_wave = v[2] == 0 ? 2 : (v[2] == max64 ? max64 : v[2] + 1);
    s = shape(w, product(w, per_wave), 1);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t sd) {
      return generate::layered(a[0], a[1], a[2], static_cast<unsigned>(a[3]), true, sd);
    };
  } else if (kind == "random") {
    at_most(2, "WAVES DEPENDENCIES");
    v = {arg(1, "WAVES"), arg(2, "DEPENDENCIES")};
    names = "WAVES and DEPENDENCIES";
    s = shape(v[0], v[0] < 2 ? 0 : v[1], 1);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t sd) {
      return generate::random_dag(a[0], a[1], sd);
    };
  } else if (kind == "tree") {
    at_most(2, "N [in|out]");
    v = {arg(1, "N")};
    names = "N";
    const std::string direction = args.size() > 2 ? args[2] : "out";
    if (direction != "in" && direction != "out")
      throw UsageError{"tree direction must be 'in' or 'out', not '" + direction + "'"};
    v.push_back(direction == "in");
    s = shape(v[0], v[0], 0);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t) {
      return generate::binary_tree(a[0], a[1] ? generate::TreeDirection::In
                                              : generate::TreeDirection::Out);
    };
  } else if (kind == "ilu2d") {
    at_most(2, "NX [NY]");
    v = {arg(1, "NX")};
    v.push_back(opt(2, "NY", v[0]));
    names = "NX and NY";
    const auto w = product(v[0], v[1]);
    s = shape(w, product(w, 2), 2);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t sd) {
      return generate::ilu2d(a[0], a[1], sd);
    };
  } else if (kind == "ilu3d") {
    at_most(3, "N [NY NZ]");
    v = {arg(1, "N")};
    v.push_back(opt(2, "NY", v[0]));
    v.push_back(opt(3, "NZ", v[0]));
    names = "N (and NY, NZ)";
    const auto w = product(product(v[0], v[1]), v[2]);
    s = shape(w, product(w, 3), 2);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t sd) {
      return generate::ilu3d(a[0], a[1], a[2], sd);
    };
  } else if (kind == "powerlaw") {
    at_most(2, "N [EDGES_PER_WAVE]");
    v = {arg(1, "N"), opt(2, "EDGES_PER_WAVE", 4)};
    names = "N and EDGES_PER_WAVE";
    const std::uint64_t per_wave = v[0] < 2 ? 0 : std::min(v[1], v[0] - 1);
    s = shape(v[0], product(v[0] < 2 ? 0 : v[0] - 1, per_wave), 0, 1);
    make = [](const std::vector<std::uint64_t>& a, std::uint64_t sd) {
      return generate::power_law(a[0], a[1], sd);
    };
  } else {
    const std::vector<std::string> kinds{"sweep2d", "sweep3d", "chain",  "fanout", "fanin",
                                         "layered", "random",  "tree",   "ilu2d",  "ilu3d",
                                         "powerlaw"};
    throw UsageError{"unknown graph kind '" + kind + "'" + did_you_mean(kind, kinds)};
  }
  std::string call = "gen " + kind;
  for (std::size_t i = 1; i < args.size(); ++i) call += " " + args[i];
  if (!s.waves || !s.dependencies)
    throw CliError{"CountOverflow: '" + call + "' asks for " +
                       (s.waves ? "more dependencies" : "more waves") +
                       " than 64-bit counts hold. Fix: choose smaller " + names + ".",
                   exit_invalid_graph};
  const std::uint64_t memory = physical_memory_bytes();
  if (!s.bytes || *s.bytes > memory)
    throw CliError{"MemoryConstrained: '" + call + "' needs " +
                       (s.bytes ? std::to_string(*s.bytes) : std::string("more than 2^64")) +
                       " bytes (" + std::to_string(*s.waves) + " waves, up to " +
                       std::to_string(*s.dependencies) + " dependencies) but this machine has " +
                       std::to_string(memory) + " bytes of memory. Fix: choose smaller " + names +
                       ".",
                   exit_invalid_graph};
  generate::GeneratedGraph g;
  try {
    g = make(v, seed);
  } catch (const std::exception& e) {  // std::bad_alloc, std::length_error (ulimit -v)
    throw CliError{"StorageReserveFailed: '" + call + "' could not allocate its graph (" +
                       std::to_string(*s.bytes) + " bytes): " + e.what() +
                       ". Fix: choose smaller " + names +
                       ", or run where more memory is available (check ulimit -v).",
                   exit_invalid_graph};
  }
  if (mtx) {
    try {
      io::write_matrix_market(std::cout, g.wave_count, g.dependencies, io::Triangle::Lower,
                              g.description, true);
    } catch (const PlanError& e) {
      if (e.kind() != ErrorKind::InvalidArgument) throw;
      throw CliError{"InvalidArgument: 'gen " + kind + "' numbers its waves out of topological "
                         "order (" + e.message() + "), so its DAG is not one triangle of a "
                         "matrix. Fix: use --output edges for this kind.",
                     exit_usage};
    }
  } else {
    io::write_edge_list(std::cout, g.wave_count, g.dependencies, g.description);
  }
  std::cout.flush();
  return exit_ok;
}

}  // namespace strata::tools
