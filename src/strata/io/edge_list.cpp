#include <strata/io/edge_list.hpp>

#include <charconv>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <fstream>
#include <ostream>
#include <sstream>

#include <strata/core/error.hpp>

namespace strata::io {

namespace {

// A cursor over one line; reports problems with the line number attached.
class LineParser {
 public:
  LineParser(std::string_view line, std::uint64_t number, const std::string& source)
      : line_(line), number_(number), source_(source) {}

  std::uint64_t next_value(const char* what) {
    skip_spaces();
    if (pos_ == line_.size())
      fail(std::string("missing ") + what, "each line needs the values the format names");
    const char* first = line_.data() + pos_;
    const char* last = line_.data() + line_.size();
    if (*first == '-')
      fail(std::string("negative ") + what + " '" + token() + "'",
           "wave ids and counts are non-negative integers");
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(first, last, value);
    if (ec == std::errc::result_out_of_range)
      fail(std::string(what) + " '" + token() + "' does not fit in 64 bits",
           "wave ids and counts must be below 2^64");
    if (ec != std::errc() || (end != last && !is_space(*end)))
      fail(std::string("malformed ") + what + " '" + token() + "'",
           "write plain decimal integers separated by spaces");
    pos_ = static_cast<std::size_t>(end - line_.data());
    return value;
  }

  void expect_end() {
    skip_spaces();
    if (pos_ != line_.size())
      fail("unexpected trailing text '" + token() + "'",
           "a line holds exactly two integers (comments go on lines starting with '#')");
  }

  [[noreturn]] void fail(const std::string& what, const std::string& fix) const {
    throw PlanError::parse_error(source_, number_, what, fix);
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  void skip_spaces() {
    while (pos_ < line_.size() && is_space(line_[pos_])) ++pos_;
  }
  /// The offending token as it is quoted in a message: at most 40 bytes, and
  /// bytes that are not printable ASCII written as \xHH, so a NUL cannot cut
  /// the message (and its Fix: hint) short and no control byte reaches the
  /// terminal (found by fuzzing: unit_test/fuzz/regressions/edge_list/).
  std::string token() const {
    std::size_t end = pos_;
    while (end < line_.size() && !is_space(line_[end])) ++end;
    const std::string_view raw = line_.substr(pos_, end - pos_);
    std::string t;
    static const char hex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < raw.size() && i < 40; ++i) {
      const auto c = static_cast<unsigned char>(raw[i]);
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        t += static_cast<char>(c);
      } else {
        t += "\\x";
        t += hex[c >> 4];
        t += hex[c & 15];
      }
    }
    if (raw.size() > 40) t += "...";
    return t;
  }

  std::string_view line_;
  std::uint64_t number_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

}  // namespace

namespace detail {

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
  parser.expect_end();
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
  parser.expect_end();
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

}  // namespace detail

EdgeList parse_edge_list(std::string_view text, const std::string& source) {
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
    if (detail::is_blank_or_comment(line)) continue;
    if (!have_header) {
      const std::uint64_t bytes_left = text.size() > pos ? text.size() - pos : 0;
      const auto header = detail::parse_header_line(line, line_number, source, bytes_left);
      list.wave_count = header.wave_count;
      declared = header.dependency_count;
      list.dependencies.reserve(static_cast<std::size_t>(declared));
      have_header = true;
      continue;
    }
    if (list.dependencies.size() == declared)
      throw detail::extra_dependency_line_error(source, line_number, declared);
    const auto d = detail::parse_dependency_line(line, line_number, source);
    list.dependencies.push_back(d);
    if (d.before > list.max_wave_id) list.max_wave_id = d.before;
    if (d.after > list.max_wave_id) list.max_wave_id = d.after;
  }
  if (!have_header) throw detail::missing_header_error(source, line_number);
  if (list.dependencies.size() != declared)
    throw detail::dependency_count_error(source, line_number, declared,
                                         list.dependencies.size());
  return list;
}

EdgeList read_edge_list(const std::string& path) {
  // A directory opens fine as an ifstream on Linux and reports a bogus size
  // (the bad-input matrix found "internal error: basic_string::_M_replace_aux").
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw PlanError::io_error(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError::io_error(path, "cannot open file");
  std::string text;
  try {
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size < 0) {  // not seekable (a pipe, /dev/stdin): read it as a stream
      in.clear();
      std::ostringstream all;
      all << in.rdbuf();
      text = all.str();
    } else {
      text.resize(static_cast<std::size_t>(size));
      in.seekg(0, std::ios::beg);
      if (!in.read(text.data(), size)) throw PlanError::io_error(path, "read failed");
    }
  } catch (const std::length_error&) {
    throw PlanError::io_error(path, "file too large to read into memory");
  } catch (const std::bad_alloc&) {
    throw PlanError::io_error(path, "file too large to read into memory");
  }
  return parse_edge_list(text, path);
}

void write_edge_list(std::ostream& out, std::uint64_t wave_count,
                     const std::vector<WaveDependency<std::uint64_t>>& dependencies,
                     const std::string& comment) {
  std::string buffer;
  if (!comment.empty()) buffer += "# " + comment + "\n";
  buffer += std::to_string(wave_count) + " " + std::to_string(dependencies.size()) + "\n";
  char digits[48];
  for (const auto& d : dependencies) {
    char* p = std::to_chars(digits, digits + 24, d.before).ptr;
    *p++ = ' ';
    p = std::to_chars(p, digits + 48, d.after).ptr;
    *p++ = '\n';
    buffer.append(digits, p);
    if (buffer.size() > (1u << 20)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace strata::io
