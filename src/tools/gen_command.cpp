// strata gen KIND ARGS...: write a generated graph in the edge-list format.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <strata/generate/graph_generators.hpp>
#include <strata/io/edge_list.hpp>

#include "commands.hpp"

namespace strata::tools {

namespace {
std::uint64_t parse_count(const std::string& s, const char* what) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || s[0] == '-')
    throw UsageError{std::string(what) + " must be a non-negative integer, not '" + s + "'"};
  return v;
}
}  // namespace

int gen_command(const std::vector<std::string>& argv) {
  std::vector<std::string> args;
  std::uint64_t seed = 1;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--seed") {
      if (i + 1 >= argv.size()) throw UsageError{"--seed needs a value"};
      seed = parse_count(argv[++i], "--seed");
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
  generate::GeneratedGraph g;
  if (kind == "sweep2d") {
    const auto nx = arg(1, "NX");
    g = generate::sweep2d(nx, opt(2, "NY", nx));
  } else if (kind == "sweep3d") {
    const auto n = arg(1, "N");
    g = generate::sweep3d(n, opt(2, "NY", n), opt(3, "NZ", n));
  } else if (kind == "chain") {
    g = generate::chain(arg(1, "N"));
  } else if (kind == "fanout") {
    g = generate::fanout(arg(1, "N"));
  } else if (kind == "layered") {
    const auto skip = opt(4, "SKIP_PERCENT", 0);
    if (skip > 100) throw UsageError{"SKIP_PERCENT must be in 0..100"};
    g = generate::layered(arg(1, "WIDTH"), arg(2, "DEPTH"), opt(3, "FAN_IN", 2),
                          static_cast<unsigned>(skip), true, seed);
  } else if (kind == "random") {
    g = generate::random_dag(arg(1, "WAVES"), arg(2, "DEPENDENCIES"), seed);
  } else if (kind == "fanin") {
    g = generate::fanin(arg(1, "N"));
  } else if (kind == "tree") {
    const auto n = arg(1, "N");
    const std::string direction = args.size() > 2 ? args[2] : "out";
    if (direction != "in" && direction != "out")
      throw UsageError{"tree direction must be 'in' or 'out', not '" + direction + "'"};
    g = generate::binary_tree(n, direction == "in" ? generate::TreeDirection::In
                                                   : generate::TreeDirection::Out);
  } else if (kind == "ilu2d") {
    const auto nx = arg(1, "NX");
    g = generate::ilu2d(nx, opt(2, "NY", nx), seed);
  } else if (kind == "ilu3d") {
    const auto n = arg(1, "N");
    g = generate::ilu3d(n, opt(2, "NY", n), opt(3, "NZ", n), seed);
  } else if (kind == "powerlaw") {
    g = generate::power_law(arg(1, "N"), opt(2, "EDGES_PER_WAVE", 4), seed);
  } else {
    throw UsageError{"unknown graph kind '" + kind + "'"};
  }
  io::write_edge_list(std::cout, g.wave_count, g.dependencies, g.description);
  std::cout.flush();
  return exit_ok;
}

}  // namespace strata::tools
