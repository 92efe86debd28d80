#include <strata/io/read_graph.hpp>

#include <istream>

#include <strata/io/read_text.hpp>

namespace strata::io {

GraphInput parse_graph(std::string_view text, const std::string& source,
                       const GraphReadOptions& options, std::string_view path) {
  GraphInput input;
  input.format = detect_graph_format(text, path);
  if (input.format == GraphFormat::MatrixMarket)
    input.list = parse_matrix_market(text, source, options.triangle, options.memory_budget_bytes);
  else
    input.list = parse_edge_list(text, source, options.memory_budget_bytes);
  return input;
}

GraphInput read_graph(const std::string& path, const GraphReadOptions& options) {
  const std::string text = read_text(path, options.memory_budget_bytes);
  return parse_graph(text, printable(path), options, path);
}

GraphInput read_graph(std::istream& in, const std::string& source,
                      const GraphReadOptions& options) {
  const std::string text = read_text(in, source, options.memory_budget_bytes);
  return parse_graph(text, source, options);
}

}  // namespace strata::io
