#include <strata/io/matrix_market.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <ostream>

#include <strata/core/error.hpp>
#include <strata/io/detail/line_parser.hpp>
#include <strata/io/read_text.hpp>

namespace strata::io {

namespace {

using detail::LineParser;

constexpr const char* banner_fix =
    "start the file with '%%MatrixMarket matrix coordinate FIELD SYMMETRY' (FIELD: real, "
    "integer, complex or pattern; SYMMETRY: general, symmetric or skew-symmetric)";

enum class Field { Real, Integer, Complex, Pattern };
enum class Symmetry { General, Symmetric, SkewSymmetric };  // hermitian: as symmetric

/// ASCII lower case (the banner's keywords are case-insensitive).
bool same_word(std::string_view token, std::string_view word) {
  if (token.size() != word.size()) return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    char c = token[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

/// A blank line or a '%' comment (after the banner).
bool is_blank_or_percent_comment(std::string_view line) {
  for (char c : line) {
    if (c == '%') return true;
    if (!LineParser::is_space(c)) return false;
  }
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// [+-]digits
bool is_integer(std::string_view t) {
  std::size_t i = t.size() > 0 && (t[0] == '+' || t[0] == '-') ? 1 : 0;
  if (i == t.size()) return false;
  for (; i < t.size(); ++i)
    if (!is_digit(t[i])) return false;
  return true;
}

/// [+-](digits[.digits] | .digits)[(e|E)[+-]digits], or [+-]inf, infinity, nan
/// (any case: what C's printf writes for them).
bool is_real(std::string_view t) {
  std::size_t i = t.size() > 0 && (t[0] == '+' || t[0] == '-') ? 1 : 0;
  const std::string_view rest = t.substr(i);
  if (same_word(rest, "inf") || same_word(rest, "infinity") || same_word(rest, "nan"))
    return true;
  std::size_t digits = 0;
  while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t exponent = 0;
    while (i < t.size() && is_digit(t[i])) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == t.size();
}

const char* entry_layout(Field f) {
  switch (f) {
    case Field::Real: return "a 'real' entry line holds 'row column value'";
    case Field::Integer: return "an 'integer' entry line holds 'row column value'";
    case Field::Complex: return "a 'complex' entry line holds 'row column real imaginary'";
    case Field::Pattern: return "a 'pattern' entry line holds 'row column'";
  }
  return "?";
}

struct Banner {
  Field field = Field::Real;
  Symmetry symmetry = Symmetry::General;
};

Banner parse_banner(std::string_view line, const std::string& source) {
  LineParser parser(line, 1, source);
  const std::string_view banner = parser.next_token();
  if (banner.empty())
    parser.fail("line 1 is blank, not the '%%MatrixMarket' banner", banner_fix);
  if (banner != "%%MatrixMarket")
    parser.fail("malformed banner '" + parser.last_token() + "' (expected '%%MatrixMarket')",
                banner_fix);
  const auto next = [&](const char* what) {
    const std::string_view t = parser.next_token();
    if (t.empty()) parser.fail(std::string("the banner ends before its ") + what, banner_fix);
    return t;
  };
  const std::string_view object = next("object ('matrix')");
  if (!same_word(object, "matrix"))
    parser.fail("unsupported object '" + parser.last_token() + "' (only 'matrix' is a graph)",
                banner_fix);
  const std::string_view format = next("format ('coordinate')");
  if (same_word(format, "array"))
    parser.fail("the array (dense) format is not supported",
                "write the matrix in the coordinate (sparse) format, e.g. with "
                "scipy.io.mmwrite(path, scipy.sparse.coo_matrix(A)); a dense matrix's pattern "
                "has every entry, so its DAG is a chain");
  if (!same_word(format, "coordinate"))
    parser.fail("unknown format '" + parser.last_token() + "'", banner_fix);
  Banner b;
  const std::string_view field = next("field (real, integer, complex or pattern)");
  if (same_word(field, "real"))
    b.field = Field::Real;
  else if (same_word(field, "integer"))
    b.field = Field::Integer;
  else if (same_word(field, "complex"))
    b.field = Field::Complex;
  else if (same_word(field, "pattern"))
    b.field = Field::Pattern;
  else
    parser.fail("unknown field '" + parser.last_token() + "'", banner_fix);
  const std::string_view symmetry = next("symmetry (general, symmetric or skew-symmetric)");
  if (same_word(symmetry, "general"))
    b.symmetry = Symmetry::General;
  else if (same_word(symmetry, "symmetric") || same_word(symmetry, "hermitian"))
    b.symmetry = Symmetry::Symmetric;
  else if (same_word(symmetry, "skew-symmetric"))
    b.symmetry = Symmetry::SkewSymmetric;
  else
    parser.fail("unknown symmetry '" + parser.last_token() + "'", banner_fix);
  parser.expect_end("the banner holds exactly '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  return b;
}

/// A 1-based index in 1..limit.
std::uint64_t parse_index(LineParser& parser, const char* what, std::uint64_t limit) {
  const std::uint64_t v = parser.next_value(what);
  if (v == 0 || v > limit)
    parser.fail(std::string(what) + " " + std::to_string(v) + " outside 1.." +
                    std::to_string(limit),
                "Matrix Market indices are 1-based and at most the size line's row and column "
                "counts");
  return v;
}

/// The next value token, checked to be a number of the field.
std::string_view check_value(LineParser& parser, Field field, const char* what) {
  const std::string_view t = parser.next_token();
  if (t.empty()) parser.fail(std::string("missing ") + what, entry_layout(field));
  const bool ok = field == Field::Integer ? is_integer(t) : is_real(t);
  if (!ok)
    parser.fail(std::string("malformed ") + what + " '" + parser.last_token() + "'",
                field == Field::Integer
                    ? "an 'integer' value is a decimal integer such as -12"
                    : "a value is a decimal number such as 1, -2.5 or 3.0e-7");
  return t;
}

/// Walks Matrix Market text: the banner (on_banner(banner, parser) may
/// refuse it), the size line (checked against the text's length and, with
/// `entry_bytes` per declared entry, the budget; then on_size(rows,
/// declared) reserves), and every entry line, its 1-based indices checked,
/// handed to on_entry(parser, i, j), which reads the values and the end of
/// the line. Returns the banner.
template <class OnBanner, class OnSize, class OnEntry>
Banner walk_matrix_market(std::string_view text, const std::string& source,
                          std::uint64_t memory_budget_bytes, std::uint64_t entry_bytes,
                          OnBanner&& on_banner, OnSize&& on_size, OnEntry&& on_entry) {
  std::size_t pos = 0;
  std::uint64_t line_number = 0;
  const auto next_line = [&]() {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    return line;
  };
  if (text.empty())
    throw PlanError::parse_error(source, 0, "no '%%MatrixMarket' banner", banner_fix);
  const std::string_view banner_line = next_line();
  const Banner banner = parse_banner(banner_line, source);
  {
    LineParser parser(banner_line, 1, source);
    on_banner(banner, parser);
  }

  bool have_size = false;
  std::uint64_t declared = 0, seen = 0, rows = 0;
  while (pos < text.size()) {
    const std::string_view line = next_line();
    if (is_blank_or_percent_comment(line)) continue;
    LineParser parser(line, line_number, source);
    if (!have_size) {
      rows = parser.next_value("row count");
      const std::uint64_t columns = parser.next_value("column count");
      declared = parser.next_value("entry count");
      parser.expect_end("the size line holds exactly 'rows columns entries'");
      if (rows != columns)
        parser.fail("the matrix is " + std::to_string(rows) + " x " + std::to_string(columns) +
                        ", not square",
                    "give a square matrix: row i is wave i-1 and waits for columns of its "
                    "triangle");
      // Every entry line needs at least 4 bytes ("1 1\n"): a size line that
      // claims more than the rest of the input can hold is rejected before
      // anything is allocated for it.
      const std::uint64_t bytes_left = text.size() > pos ? text.size() - pos : 0;
      if (declared > bytes_left / 4 + 1)
        parser.fail("size line declares " + std::to_string(declared) + " entries but only " +
                        std::to_string(bytes_left) + " bytes follow",
                    "make the size line's entry count match the number of entry lines");
      // `declared` is bounded by the text's size above, so this cannot wrap.
      const std::uint64_t need = text.size() + declared * entry_bytes;
      if (memory_budget_bytes != 0 && need > memory_budget_bytes)
        throw PlanError::memory_constrained(need, memory_budget_bytes);
      on_size(rows, declared);
      have_size = true;
      continue;
    }
    if (seen == declared)
      parser.fail("more entry lines than the " + std::to_string(declared) +
                      " the size line declares",
                  "make the size line's entry count match the number of entry lines");
    ++seen;
    const std::uint64_t i = parse_index(parser, "row index", rows);
    const std::uint64_t j = parse_index(parser, "column index", rows);
    on_entry(parser, i, j);
  }
  if (!have_size)
    throw PlanError::parse_error(source, line_number, "no 'M N NNZ' size line",
                                 "follow the banner and comment lines with a line holding the "
                                 "row count, the column count and the entry count");
  if (seen != declared)
    throw PlanError::parse_error(
        source, line_number,
        "size line declares " + std::to_string(declared) + " entries but the input has " +
            std::to_string(seen),
        "make the size line's entry count match the number of entry lines");
  return banner;
}

/// The trailing-text fix of an entry line (built once: not an allocation per line).
std::string trailing_fix(Field field) {
  return std::string(entry_layout(field)) + " (comments go on lines starting with '%')";
}

}  // namespace

const char* triangle_name(Triangle triangle) {
  return triangle == Triangle::Upper ? "upper" : "lower";
}

Triangle parse_triangle(std::string_view text) {
  if (text == "lower") return Triangle::Lower;
  if (text == "upper") return Triangle::Upper;
  throw PlanError::invalid_argument("triangle must be 'lower' or 'upper', not '" +
                                        LineParser::quote(text, 40) + "'",
                                    "pass lower (row i waits for columns j < i) or upper "
                                    "(row i waits for columns j > i)");
}

EdgeList parse_matrix_market(std::string_view text, const std::string& source, Triangle triangle,
                             std::uint64_t memory_budget_bytes) {
  EdgeList list;
  const bool lower = triangle == Triangle::Lower;
  Banner banner;
  std::string fix;
  walk_matrix_market(
      text, source, memory_budget_bytes, sizeof(WaveDependency<std::uint64_t>),
      [&](const Banner& b, LineParser&) {
        banner = b;
        fix = trailing_fix(b.field);
      },
      [&](std::uint64_t rows, std::uint64_t declared) {
        // Each entry gives at most one dependency.
        try {
          list.dependencies.reserve(static_cast<std::size_t>(declared));
        } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
          throw PlanError::storage_reserve_failed("Matrix Market dependencies", declared,
                                                  e.what());
        }
        list.wave_count = rows;
      },
      [&](LineParser& parser, std::uint64_t i, std::uint64_t j) {
        switch (banner.field) {
          case Field::Real: check_value(parser, banner.field, "real value"); break;
          case Field::Integer: check_value(parser, banner.field, "integer value"); break;
          case Field::Complex:
            check_value(parser, banner.field, "real part");
            check_value(parser, banner.field, "imaginary part");
            break;
          case Field::Pattern: break;
        }
        parser.expect_end(fix.c_str());
        if (i == j) return;  // the diagonal
        std::uint64_t before = j - 1, after = i - 1;  // row i waits for column j
        if (banner.symmetry != Symmetry::General) {
          // (i, j) stands for (j, i) as well: exactly one of them is in the triangle.
          before = lower ? std::min(i, j) - 1 : std::max(i, j) - 1;
          after = lower ? std::max(i, j) - 1 : std::min(i, j) - 1;
        } else if (lower ? j > i : j < i) {
          return;  // the other triangle
        }
        list.dependencies.push_back({before, after});  // within the reservation
        if (before > list.max_wave_id) list.max_wave_id = before;
        if (after > list.max_wave_id) list.max_wave_id = after;
      });
  return list;
}

MatrixEntries parse_matrix_market_entries(std::string_view text, const std::string& source,
                                          std::uint64_t memory_budget_bytes) {
  MatrixEntries matrix;
  Field field = Field::Real;
  std::string fix;
  walk_matrix_market(
      text, source, memory_budget_bytes, sizeof(MatrixEntry),
      [&](const Banner& b, LineParser& parser) {
        if (b.field == Field::Complex)
          parser.fail("a complex matrix has no real values",
                      "give a real, integer or pattern matrix");
        field = b.field;
        fix = trailing_fix(b.field);
        matrix.pattern = b.field == Field::Pattern;
        matrix.mirror = b.symmetry == Symmetry::General       ? Mirror::None
                        : b.symmetry == Symmetry::Symmetric   ? Mirror::Same
                                                              : Mirror::Negated;
      },
      [&](std::uint64_t rows, std::uint64_t declared) {
        try {
          matrix.entries.reserve(static_cast<std::size_t>(declared));
        } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
          throw PlanError::storage_reserve_failed("Matrix Market entries", declared, e.what());
        }
        matrix.rows = rows;
      },
      [&](LineParser& parser, std::uint64_t i, std::uint64_t j) {
        double value = 1.0;
        if (field != Field::Pattern) {
          const std::string_view t = check_value(
              parser, field, field == Field::Integer ? "integer value" : "real value");
          char digits[64];  // strtod needs a terminated string; a longer token is no finite value
          const std::size_t n = t.size() < sizeof digits - 1 ? t.size() : sizeof digits - 1;
          t.copy(digits, n);
          digits[n] = '\0';
          value = std::strtod(digits, nullptr);
          if (t.size() >= sizeof digits || !std::isfinite(value))
            parser.fail("the value '" + parser.last_token() + "' is not a finite number",
                        "give finite values");
        }
        parser.expect_end(fix.c_str());
        matrix.entries.push_back({i - 1, j - 1, value});  // within the reservation
      });
  return matrix;
}

MatrixEntries read_matrix_market_entries(const std::string& path,
                                         std::uint64_t memory_budget_bytes) {
  const std::string text = read_text(path, memory_budget_bytes);
  return parse_matrix_market_entries(text, printable(path), memory_budget_bytes);
}

EdgeList read_matrix_market(const std::string& path, Triangle triangle,
                            std::uint64_t memory_budget_bytes) {
  const std::string text = read_text(path, memory_budget_bytes);
  return parse_matrix_market(text, printable(path), triangle, memory_budget_bytes);
}

void write_matrix_market(std::ostream& out, std::uint64_t wave_count,
                         const std::vector<WaveDependency<std::uint64_t>>& dependencies,
                         Triangle triangle, const std::string& comment, bool diagonal) {
  const bool lower = triangle == Triangle::Lower;
  for (std::size_t k = 0; k < dependencies.size(); ++k) {
    const auto& d = dependencies[k];
    if (lower ? d.before >= d.after : d.before <= d.after)
      throw PlanError::invalid_argument(
          "dependency " + std::to_string(k) + " (" + std::to_string(d.before) + " -> " +
              std::to_string(d.after) + ") is not in the " + triangle_name(triangle) +
              " triangle",
          std::string("number the waves in ") + (lower ? "" : "reverse ") +
              "topological order (every dependency from a smaller to a larger id" +
              (lower ? "" : ", reversed") + ") or write the other triangle");
  }
  // As write_edge_list: every allocation before the first write.
  constexpr std::size_t flush_at = std::size_t(1) << 20;
  std::string buffer;
  try {
    buffer.reserve(flush_at + 64);
  } catch (const std::exception& e) {  // std::bad_alloc
    throw PlanError::storage_reserve_failed("Matrix Market output buffer bytes", flush_at + 64,
                                            e.what());
  }
  const std::uint64_t entries = dependencies.size() + (diagonal ? wave_count : 0);
  buffer += "%%MatrixMarket matrix coordinate pattern general\n";
  if (!comment.empty()) buffer += "% " + comment + "\n";
  buffer += "% strata: the " + std::string(triangle_name(triangle)) +
            " triangle is the DAG (row i waits for its columns j " + (lower ? "<" : ">") +
            " i)\n";
  buffer += std::to_string(wave_count) + " " + std::to_string(wave_count) + " " +
            std::to_string(entries) + "\n";
  char digits[48];
  const auto entry = [&](std::uint64_t row, std::uint64_t column) {
    char* p = std::to_chars(digits, digits + 24, row).ptr;
    *p++ = ' ';
    p = std::to_chars(p, digits + 47, column).ptr;
    *p++ = '\n';
    buffer.append(digits, p);
    if (buffer.size() > flush_at) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  };
  if (diagonal)
    for (std::uint64_t w = 0; w < wave_count; ++w) entry(w + 1, w + 1);
  for (const auto& d : dependencies) entry(d.after + 1, d.before + 1);
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void check_matrix_market_banner(std::string_view first_line, const std::string& source) {
  (void)parse_banner(first_line, source);
}

}  // namespace strata::io
