#pragma once
// What the subcommands that take a graph (`strata plan`, `strata run`,
// `strata explain`) share: their command-line loop (FILE, `-` for standard
// input, or --demo; --triangle; --max-memory; options with a value; the same
// usage errors), the built-in demo graph, the reader worded for the tool (an
// edge list or Matrix Market, told apart by the input's first bytes) within
// the command's memory budget, the checks of a --distributed FILE, and the
// choice of 32- or 64-bit ids behind the memory check. One place, so that a
// graph error answers the same in every subcommand.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <strata/io/edge_list.hpp>
#include <strata/io/matrix_market.hpp>

#include "commands.hpp"
#include "memory_budget.hpp"
#include "suggest.hpp"
#include "usage.hpp"

namespace strata::tools {

/// Where a subcommand's graph comes from: exactly one of FILE or --demo
/// (FILE `-`: standard input).
struct GraphSource {
  std::string file;
  bool demo = false;
  io::Triangle triangle = io::Triangle::Lower;  ///< --triangle (Matrix Market input)
  bool triangle_given = false;
  std::uint64_t max_memory = 0;  ///< --max-memory; 0: the machine's physical memory
};

/// Parses the arguments of subcommand `command`: `--demo`, one positional
/// FILE (`-`: standard input), `--triangle lower|upper`, `--max-memory
/// BYTES`, and the options
/// that `on_option(name, value)` accepts (it returns false for a name it
/// does not know; `value(name)` takes the option's value, a UsageError when
/// there is none). Unknown options, a second FILE and neither or both of
/// FILE and --demo are UsageErrors.
template <class OnOption>
GraphSource parse_graph_arguments(const std::vector<std::string>& args, const std::string& command,
                                  OnOption&& on_option) {
  GraphSource source;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& s = args[i];
    auto value = [&](const char* name) -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{std::string(name) + " needs a value"};
      return args[++i];
    };
    if (s == "--demo") {
      source.demo = true;
    } else if (s == "--triangle") {
      const std::string& v = value("--triangle");
      if (v != "lower" && v != "upper")
        throw UsageError{"--triangle must be 'lower' or 'upper', not '" + v + "'"};
      source.triangle = v == "lower" ? io::Triangle::Lower : io::Triangle::Upper;
      source.triangle_given = true;
    } else if (s == "--max-memory") {
      source.max_memory = parse_byte_count(value("--max-memory"));
    } else if (on_option(s, value)) {
    } else if (s.size() > 1 && s[0] == '-') {
      throw UsageError{"unknown option '" + s + "' for '" + command + "'" +
                       did_you_mean(s, options_in(command_usage(command)))};
    } else if (source.file.empty()) {
      source.file = s;
    } else {
      throw UsageError{"'" + command + "' takes one FILE, got '" + source.file + "' and '" + s +
                       "'"};
    }
  }
  if (source.demo == !source.file.empty())
    throw UsageError{"'" + command + "' needs exactly one of FILE or --demo"};
  return source;
}

/// The built-in demo: a 3-D upwind transport sweep over 8x8x8 cells.
io::EdgeList demo_graph();

/// A graph read for a subcommand, and the budget that bounded the reading
/// and bounds what the subcommand allocates next.
struct LoadedGraph {
  io::EdgeList list;
  MemoryBudget budget;
};

/// The graph of `source`: the demo, or FILE (standard input for `-`, named
/// `<stdin>` in messages) read as an edge list or Matrix Market within the
/// budget of its --max-memory (memory_budget: else the physical memory; the
/// reader's MemoryConstrained worded for the tool, its Fix naming
/// --max-memory). --triangle with an input that is not Matrix Market is a
/// UsageError.
LoadedGraph load_graph(const GraphSource& source);

/// The checks of `strata plan|run FILE --distributed` (`command`: "plan" or
/// "run") before MPI work starts: FILE, not --demo or standard input, no
/// --triangle, a regular file (IoError otherwise: opening a FIFO waits for a
/// writer), and an edge list (a Matrix Market file is a UsageError, after
/// its banner is checked as `strata plan FILE` checks it).
void require_distributed_file(const GraphSource& source, const std::string& command);

/// The matrix in the Matrix Market file at `path` with its values
/// (io::read_matrix_market_entries), read within the budget (the reader's
/// MemoryConstrained worded for the tool, as load_graph words it).
io::MatrixEntries read_matrix_entries(const std::string& path, const MemoryBudget& budget);

/// Whether the file at `path` is Matrix Market (by its first byte or its
/// name, io::detect_graph_format); false when it cannot be read (the reader
/// then reports why).
bool is_matrix_market_file(const std::string& path);

/// IoError when `path` exists but is not a regular file (a directory, FIFO,
/// device or socket), before anything opens it: opening a FIFO waits for a
/// writer. `fix` is the error's Fix: hint. A missing file passes (the
/// reader reports it).
void require_regular_file(const std::string& path, const char* fix);

/// Calls fn(Ordinal{}) with the narrowest ids that hold the graph (32-bit
/// when every count and id fits, half the memory traffic; 64-bit otherwise,
/// so large ids are reported as they were written), after checking that
/// planning it (PlanMemory) or running it (RunMemory) fits `budget` bytes.
template <class Fn, class Kind = PlanMemory>
int with_ordinal(const io::EdgeList& list, std::uint64_t budget, Fn&& fn, Kind kind = {}) {
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  const std::uint64_t waves = list.wave_count, edges = list.dependencies.size();
  if (waves <= max32 && edges <= max32 && list.max_wave_id <= max32) {
    check_plan_memory<std::uint32_t>(waves, edges, budget, kind);
    return fn(std::uint32_t{});
  }
  check_plan_memory<std::uint64_t>(waves, edges, budget, kind);
  return fn(std::uint64_t{});
}

}  // namespace strata::tools
