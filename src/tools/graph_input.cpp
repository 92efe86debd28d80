#include "graph_input.hpp"

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>

namespace strata::tools {

io::EdgeList demo_graph() {
  const auto g = generate::sweep3d(8, 8, 8);
  return io::EdgeList{g.wave_count, g.dependencies, g.wave_count - 1};
}

io::EdgeList load_graph(const GraphSource& source, std::uint64_t budget, bool budget_given) {
  if (source.demo) return demo_graph();
  try {
    return io::read_edge_list(source.file, budget);
  } catch (const PlanError& e) {
    if (e.kind() != ErrorKind::MemoryConstrained) throw;
    throw CliError{"MemoryConstrained: reading " + io::printable(source.file) +
                       " needs at least " + std::to_string(e.needed_bytes()) +
                       " bytes (its text and its dependency list) but the memory budget is " +
                       std::to_string(budget) + " bytes" +
                       (budget_given ? "" : " (the physical memory)") +
                       ". Fix: raise --max-memory, or plan it over MPI ranks with --distributed "
                       "(under mpiexec).",
                   exit_invalid_graph};
  }
}

}  // namespace strata::tools
