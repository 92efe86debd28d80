#include "graph_input.hpp"
#include "progress.hpp"

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/io/graph_format.hpp>
#include <strata/io/read_graph.hpp>

#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <iostream>

namespace strata::tools {

io::EdgeList demo_graph() {
  const auto g = generate::sweep3d(8, 8, 8);
  return io::EdgeList{g.wave_count, g.dependencies, g.wave_count - 1};
}

namespace {

/// IoError for a standard input that cannot be read as text (a directory,
/// a descriptor open for writing only): otherwise a read returns nothing and
/// the input would look empty ("no 'V E' header line").
void check_standard_input() {
  struct stat st {};
  if (::fstat(0, &st) == 0 && S_ISDIR(st.st_mode))
    throw CliError{"IoError: <stdin>: is a directory, not a file. Fix: redirect standard input "
                   "from a graph file, or name the graph file instead of '-'.",
                   exit_usage};
  const int flags = ::fcntl(0, F_GETFL);
  if (flags >= 0 && (flags & O_ACCMODE) == O_WRONLY)
    throw CliError{"IoError: <stdin>: is open for writing only. Fix: redirect standard input "
                   "from a graph file, or name the graph file instead of '-'.",
                   exit_usage};
}

/// The reader's MemoryConstrained for `name` worded for the tool: what
/// reading holds (`holding`), the budget, and a Fix naming --max-memory and
/// then `alternative`.
CliError reading_memory_error(const std::string& name, const PlanError& e, std::uint64_t budget,
                              bool budget_given, const char* holding, const char* alternative) {
  return CliError{"MemoryConstrained: reading " + name + " needs at least " +
                      std::to_string(e.needed_bytes()) + " bytes (" + holding +
                      ") but the memory budget is " + std::to_string(budget) + " bytes" +
                      (budget_given ? "" : " (the physical memory)") +
                      ". Fix: raise --max-memory, or " + alternative + ".",
                  exit_invalid_graph};
}

}  // namespace

io::MatrixEntries read_matrix_entries(const std::string& path, const MemoryBudget& budget) {
  const std::string name = io::printable(path);
  try {
    const Progress progress("reading " + name);
    return io::read_matrix_market_entries(path, budget.bytes);
  } catch (const PlanError& e) {
    if (e.kind() != ErrorKind::MemoryConstrained) throw;
    throw reading_memory_error(name, e, budget.bytes, budget.given, "its text and its entries",
                               "solve a smaller matrix");
  }
}

LoadedGraph load_graph(const GraphSource& source) {
  const MemoryBudget limit = memory_budget(source.max_memory);
  if (source.demo) {
    if (source.triangle_given)
      throw UsageError{"--triangle applies to Matrix Market input, not --demo"};
    return {demo_graph(), limit};
  }
  const std::uint64_t budget = limit.bytes;
  const bool standard_input = source.file == "-";
  const std::string name = standard_input ? "<stdin>" : io::printable(source.file);
  io::GraphReadOptions options;
  options.triangle = source.triangle;
  options.memory_budget_bytes = budget;
  if (standard_input) check_standard_input();
  io::GraphInput input;
  try {
    const Progress progress("reading " + name);
    input = standard_input ? io::read_graph(std::cin, name, options)
                           : io::read_graph(source.file, options);
  } catch (const PlanError& e) {
    if (e.kind() != ErrorKind::MemoryConstrained) throw;
    throw reading_memory_error(name, e, budget, limit.given, "its text and its dependency list",
                               "plan it over MPI ranks with --distributed (under mpiexec)");
  }
  if (source.triangle_given && input.format != io::GraphFormat::MatrixMarket)
    throw UsageError{"--triangle applies to Matrix Market input; " + name +
                     " is an edge list (its dependencies are given directly)"};
  return {std::move(input.list), limit};
}

void require_distributed_file(const GraphSource& source, const std::string& command) {
  const std::string verb = command + "s";  // "plans", "runs"
  if (source.demo) throw UsageError{"--distributed " + verb + " a FILE, not --demo"};
  if (source.file == "-")
    throw UsageError{"--distributed " + verb + " a file that every rank reads, not standard input"};
  if (source.triangle_given)
    throw UsageError{"--triangle does not apply to --distributed (it reads edge lists only)"};
  const std::string fix = "--distributed ranks each read their own byte range of a regular "
                          "file: copy the data to a file first, or " + command +
                          " it without --distributed";
  require_regular_file(source.file, fix.c_str());
  if (is_matrix_market_file(source.file)) {
    // A malformed banner answers as `strata plan FILE` answers it.
    std::ifstream in(source.file, std::ios::binary);
    std::string first_line;
    std::getline(in, first_line);
    if (!first_line.empty() && first_line.back() == '\r') first_line.pop_back();
    io::check_matrix_market_banner(first_line, source.file);
    throw UsageError{"--distributed reads edge lists only, and " + io::printable(source.file) +
                     " is Matrix Market: " + command + " it without --distributed"};
  }
}

bool is_matrix_market_file(const std::string& path) {
  // The reader's own rule (io::detect_graph_format) on the bytes up to the
  // first that is not white space: a file whose banner follows blank lines
  // is Matrix Market here as in the reader.
  std::ifstream in(path, std::ios::binary);
  std::string head;
  char chunk[4096];
  while (in && head.size() < (std::size_t(1) << 20) &&
         io::after_leading_blanks(head).empty()) {
    in.read(chunk, sizeof chunk);
    head.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  return io::detect_graph_format(head, path) == io::GraphFormat::MatrixMarket;
}

void require_regular_file(const std::string& path, const char* fix) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // missing or unreadable: the reader says which
  if (S_ISDIR(st.st_mode)) throw PlanError::io_error(path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw CliError{"IoError: " + io::printable(path) +
                       ": is not a regular file (a pipe, FIFO or device). Fix: " + fix + ".",
                   exit_usage};
}

}  // namespace strata::tools
