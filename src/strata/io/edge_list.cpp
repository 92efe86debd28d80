#include <strata/io/edge_list.hpp>

#include <algorithm>
#include <charconv>
#include <exception>
#include <ostream>

#include <strata/core/error.hpp>
#include <strata/io/detail/line_parser.hpp>
#include <strata/io/graph_format.hpp>
#include <strata/io/read_text.hpp>

namespace strata::io {

namespace {
using detail::LineParser;
constexpr const char* edge_list_trailing_fix =
    "a line holds exactly two integers (comments go on lines starting with '#')";
}  // namespace

// The line-level pieces (edge_list_lines.hpp).

bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (c == '#') return true;
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

EdgeListHeader parse_header_line(std::string_view line, std::uint64_t number,
                                 const std::string& source, std::uint64_t bytes_left) {
  LineParser parser(line, number, source);
  EdgeListHeader h;
  h.wave_count = parser.next_value("wave count");
  h.dependency_count = parser.next_value("dependency count");
  parser.expect_end(edge_list_trailing_fix);
  // Every dependency line needs at least 4 bytes ("0 1\n"): a header that
  // claims more than the rest of the input can hold is rejected before
  // anything is allocated for it.
  if (h.dependency_count > bytes_left / 4 + 1)
    parser.fail("header declares " + std::to_string(h.dependency_count) +
                    " dependencies but only " + std::to_string(bytes_left) + " bytes follow",
                "make the header's dependency count match the number of dependency lines");
  return h;
}

WaveDependency<std::uint64_t> parse_dependency_line(std::string_view line, std::uint64_t number,
                                                    const std::string& source) {
  LineParser parser(line, number, source);
  const std::uint64_t before = parser.next_value("'before' wave");
  const std::uint64_t after = parser.next_value("'after' wave");
  parser.expect_end(edge_list_trailing_fix);
  return {before, after};
}

PlanError extra_dependency_line_error(const std::string& source, std::uint64_t number,
                                      std::uint64_t declared) {
  return PlanError::parse_error(
      source, number,
      "more dependency lines than the " + std::to_string(declared) + " the header declares",
      "make the header's dependency count match the number of dependency lines");
}

PlanError missing_header_error(const std::string& source, std::uint64_t lines) {
  return PlanError::parse_error(source, lines, "no 'V E' header line",
                                "start the input with a line holding the wave count and the "
                                "dependency count");
}

PlanError dependency_count_error(const std::string& source, std::uint64_t lines,
                                 std::uint64_t declared, std::uint64_t found) {
  return PlanError::parse_error(
      source, lines,
      "header declares " + std::to_string(declared) + " dependencies but the input has " +
          std::to_string(found),
      "make the header's dependency count match the number of dependency lines");
}

EdgeList parse_edge_list(std::string_view text, const std::string& source,
                         std::uint64_t memory_budget_bytes) {
  EdgeList list;
  bool have_header = false;
  std::uint64_t declared = 0;
  std::uint64_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (is_blank_or_comment(line)) continue;
    if (!have_header) {
      const std::uint64_t bytes_left = text.size() > pos ? text.size() - pos : 0;
      const auto header = parse_header_line(line, line_number, source, bytes_left);
      list.wave_count = header.wave_count;
      declared = header.dependency_count;
      // parse_header_line bounds `declared` by the text's size, so this cannot wrap.
      const std::uint64_t need = text.size() + declared * sizeof(WaveDependency<std::uint64_t>);
      if (memory_budget_bytes != 0 && need > memory_budget_bytes)
        throw PlanError::memory_constrained(need, memory_budget_bytes);
      try {
        list.dependencies.reserve(static_cast<std::size_t>(declared));
      } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
        throw PlanError::storage_reserve_failed("edge-list dependencies", declared, e.what());
      }
      have_header = true;
      continue;
    }
    if (list.dependencies.size() == declared)
      throw extra_dependency_line_error(source, line_number, declared);
    const auto d = parse_dependency_line(line, line_number, source);
    list.dependencies.push_back(d);  // within the reservation: never allocates
    if (d.before > list.max_wave_id) list.max_wave_id = d.before;
    if (d.after > list.max_wave_id) list.max_wave_id = d.after;
  }
  if (!have_header) throw missing_header_error(source, line_number);
  if (list.dependencies.size() != declared)
    throw dependency_count_error(source, line_number, declared, list.dependencies.size());
  return list;
}

void reject_binary(std::string_view text, std::uint64_t offset, std::uint64_t first_line,
                   const std::string& source) {
  const auto at = text.find('\0');
  if (at == std::string_view::npos) return;
  std::uint64_t line = first_line;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  const std::string where = ": NUL byte at byte " + std::to_string(offset + at);
  // Named Matrix Market only where the banner itself is there: binary data
  // whose first byte happens to be '%' (1 in 256 of /dev/urandom's reads) is
  // not a Matrix Market file anyone meant.
  if (offset == 0 && starts_with_matrix_market_banner(text))
    throw PlanError::parse_error(source, line, "not a text Matrix Market file" + where,
                                 "give a text file in the Matrix Market coordinate format "
                                 "('%%MatrixMarket matrix coordinate ...'), not binary data");
  throw PlanError::parse_error(
      source, line, "not a text edge list" + where,
      "give a text file in the edge-list format ('V E', then one 'before after' line per "
      "dependency), not binary data");
}



std::string printable(std::string_view text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](unsigned char c) {
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence of a character from U+00A0 on (no C1
    // controls, no overlong forms, no surrogates) is kept whole.
    std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                    : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    bool ok = n != 0 && i + n <= text.size();
    for (std::size_t k = 1; ok && k < n; ++k)
      ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (ok) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      if (n == 2 && c == 0xc2 && c1 < 0xa0) ok = false;            // C1 controls
      if (n == 3 && c == 0xe0 && c1 < 0xa0) ok = false;            // overlong
      if (n == 3 && c == 0xed && c1 >= 0xa0) ok = false;           // surrogates
      if (n == 4 && c == 0xf0 && c1 < 0x90) ok = false;            // overlong
      if (n == 4 && c == 0xf4 && c1 >= 0x90) ok = false;           // beyond U+10FFFF
    }
    if (!ok) {
      escape(c);
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

EdgeList read_edge_list(const std::string& path, std::uint64_t memory_budget_bytes) {
  const std::string text = read_text(path, memory_budget_bytes);
  return parse_edge_list(text, printable(path), memory_budget_bytes);
}

void write_edge_list(std::ostream& out, std::uint64_t wave_count,
                     const std::vector<WaveDependency<std::uint64_t>>& dependencies,
                     const std::string& comment) {
  // All allocation happens before the first write: an error (bad_alloc)
  // leaves the stream untouched, never half an edge list.
  constexpr std::size_t flush_at = std::size_t(1) << 20;
  std::string buffer;
  try {
    buffer.reserve(flush_at + 64);
  } catch (const std::exception& e) {  // std::bad_alloc
    throw PlanError::storage_reserve_failed("edge-list output buffer bytes", flush_at + 64,
                                            e.what());
  }
  if (!comment.empty()) buffer += "# " + comment + "\n";
  buffer += std::to_string(wave_count) + " " + std::to_string(dependencies.size()) + "\n";
  char digits[48];
  for (const auto& d : dependencies) {
    char* p = std::to_chars(digits, digits + 24, d.before).ptr;
    *p++ = ' ';
    p = std::to_chars(p, digits + 48, d.after).ptr;
    *p++ = '\n';
    buffer.append(digits, p);
    if (buffer.size() > flush_at) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace strata::io
