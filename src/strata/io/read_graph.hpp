#pragma once
// A graph input in either text format, told apart by its first bytes
// (graph_format.hpp): an edge list (edge_list.hpp) or Matrix Market
// (matrix_market.hpp). What `strata plan/run/explain FILE` and `FILE = -`
// (standard input) read through.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include <strata/io/edge_list.hpp>
#include <strata/io/graph_format.hpp>
#include <strata/io/matrix_market.hpp>

namespace strata::io {

struct GraphReadOptions {
  Triangle triangle = Triangle::Lower;   ///< Matrix Market only
  std::uint64_t memory_budget_bytes = 0;  ///< 0: unbounded (see read_text.hpp)
};

struct GraphInput {
  EdgeList list;
  GraphFormat format = GraphFormat::EdgeList;
};

/// Parses `text` in the format detect_graph_format(text, path) names.
GraphInput parse_graph(std::string_view text, const std::string& source,
                       const GraphReadOptions& options = {}, std::string_view path = {});

/// Reads and parses the file at `path`.
GraphInput read_graph(const std::string& path, const GraphReadOptions& options = {});

/// Reads and parses a stream (standard input), named `source` in messages.
GraphInput read_graph(std::istream& in, const std::string& source,
                      const GraphReadOptions& options = {});

}  // namespace strata::io
