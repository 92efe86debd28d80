#pragma once
// Parallel reading of the edge-list format (io/edge_list.hpp): rank r reads
// bytes [r S / P, (r + 1) S / P) of the file (S: its size) and parses the
// lines that start there (a line that straddles the end is read to its
// newline by the rank it starts on). Line numbers and the position of each
// line among the data lines come from MPI_Exscan of the per-rank counts; the
// first data line anywhere is the header, broadcast to every rank.
//
// Errors are io::read_edge_list's, word for word, and collective: the first
// bad line in file order is reported by every rank (order key: the line
// number). The result is this rank's dependencies in file order, which
// follow those of the ranks below it: exactly the input of
// plan_barriers_distributed. No rank holds more than its byte range.
#include <cstdint>
#include <string>
#include <vector>

#include <strata/distributed/communicator.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata::distributed {

struct DistributedEdgeList {
  std::uint64_t wave_count = 0;        ///< from the header (every rank)
  std::uint64_t dependency_count = 0;  ///< global (every rank)
  std::uint64_t max_wave_id = 0;       ///< largest id any dependency names (every rank)
  std::uint64_t first_index = 0;       ///< global index of this rank's first dependency
  std::vector<WaveDependency<std::uint64_t>> dependencies;  ///< this rank's, in file order
};

/// Collective over `comm`; throws the same PlanError (ParseError, IoError) on every rank.
DistributedEdgeList read_edge_list_distributed(const Communicator& comm, const std::string& path);

}  // namespace strata::distributed
