#pragma once
// A cursor over one line of text input (io/ only): the token reader the
// edge-list and Matrix Market readers share, so both quote bad tokens, name
// lines and word integer errors the same way.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include <strata/core/error.hpp>

namespace strata::io::detail {

class LineParser {
 public:
  LineParser(std::string_view line, std::uint64_t number, const std::string& source)
      : line_(line), number_(number), source_(source) {}

  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

  /// The next non-negative decimal integer; `what` names it in messages.
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

  /// The next token (up to a space); empty at the end of the line.
  std::string_view next_token() {
    skip_spaces();
    std::size_t end = pos_;
    while (end < line_.size() && !is_space(line_[end])) ++end;
    const std::string_view t = line_.substr(pos_, end - pos_);
    start_ = pos_;
    pos_ = end;
    return t;
  }

  /// The token next_token() returned last, quoted for a message.
  std::string last_token() const { return quote(line_.substr(start_), 40); }

  /// Throws "unexpected trailing text" (with `fix`) if anything but spaces is
  /// left. (A C string: the check runs on every line, a std::string argument
  /// would be built for each.)
  void expect_end(const char* fix) {
    skip_spaces();
    if (pos_ != line_.size()) fail("unexpected trailing text '" + token() + "'", fix);
  }

  [[noreturn]] void fail(const std::string& what, const std::string& fix) const {
    throw PlanError::parse_error(source_, number_, what, fix);
  }

  /// The first token of `text` as it is quoted in a message: at most `limit`
  /// bytes, and bytes that are not printable ASCII written as \xHH, so a NUL
  /// cannot cut the message (and its Fix: hint) short and no control byte
  /// reaches the terminal (found by fuzzing: unit_test/fuzz/regressions/edge_list/).
  static std::string quote(std::string_view text, std::size_t limit) {
    std::size_t end = 0;
    while (end < text.size() && !is_space(text[end])) ++end;
    const std::string_view raw = text.substr(0, end);
    std::string t;
    static const char hex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < raw.size() && i < limit; ++i) {
      const auto c = static_cast<unsigned char>(raw[i]);
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        t += static_cast<char>(c);
      } else {
        t += "\\x";
        t += hex[c >> 4];
        t += hex[c & 15];
      }
    }
    if (raw.size() > limit) t += "...";
    return t;
  }

 private:
  void skip_spaces() {
    while (pos_ < line_.size() && is_space(line_[pos_])) ++pos_;
  }
  std::string token() const { return quote(line_.substr(pos_), 40); }

  std::string_view line_;
  std::uint64_t number_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t start_ = 0;
};

}  // namespace strata::io::detail
