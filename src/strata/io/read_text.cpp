#include <strata/io/read_text.hpp>

#include <algorithm>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>

#include <strata/core/error.hpp>
#include <strata/io/edge_list.hpp>

namespace strata::io {

namespace {

/// Makes `text` hold `size` more bytes; failure is StorageReserveFailed.
void grow(std::string& text, std::size_t size) {
  try {
    text.resize(size);
  } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
    throw PlanError::storage_reserve_failed("edge-list text bytes", size, e.what());
  }
}

/// A regular file in one read, its size checked against the budget first.
/// Returns false for a regular file reporting size 0 (/proc files): read it as a stream.
bool read_regular(std::ifstream& in, const std::string& source, std::uint64_t budget,
                  std::string& text) {
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  if (end <= 0) {
    in.clear();
    in.seekg(0, std::ios::beg);
    return false;
  }
  const auto size = static_cast<std::uint64_t>(end);
  if (budget != 0 && size > budget) throw PlanError::memory_constrained(size, budget);
  if (size > std::numeric_limits<std::size_t>::max())
    throw PlanError::storage_reserve_failed("edge-list text bytes", size, "beyond size_t");
  grow(text, static_cast<std::size_t>(size));
  in.seekg(0, std::ios::beg);
  in.read(text.data(), static_cast<std::streamsize>(size));
  // Fewer bytes than the size said is a short file, not a failure: sysfs
  // files report a page (4096) and hold a short text.
  if (in.bad()) throw PlanError::io_error(source, "read failed");
  text.resize(static_cast<std::size_t>(in.gcount()));
  reject_binary(text, 0, 1, source);
  return true;
}

/// A pipe, a device or a file of unknown size, in chunks: stops at the
/// first NUL byte and at the budget.
void read_stream(std::istream& in, const std::string& source, std::uint64_t budget,
                 std::string& text) {
  constexpr std::size_t chunk = std::size_t(1) << 16;
  // At most budget + 1 bytes are ever held: one byte past the budget proves
  // the input does not fit, without a buffer larger than the budget.
  const std::uint64_t limit = budget != 0 ? budget + 1 : std::numeric_limits<std::uint64_t>::max();
  for (;;) {
    const std::size_t used = text.size();  // at most the budget (checked below)
    const std::size_t step =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk, limit - used));
    if (text.capacity() < used + step) {
      // Grow by doubling, but never past the limit.
      std::uint64_t want = std::max<std::uint64_t>(2 * std::uint64_t(text.capacity()), chunk);
      want = std::max<std::uint64_t>(std::min(want, limit), used + step);
      try {
        text.reserve(static_cast<std::size_t>(want));
      } catch (const std::exception& e) {
        throw PlanError::storage_reserve_failed("edge-list text bytes", want, e.what());
      }
    }
    grow(text, used + step);
    in.read(text.data() + used, static_cast<std::streamsize>(step));
    const auto got = static_cast<std::size_t>(in.gcount());
    text.resize(used + got);
    if (std::memchr(text.data() + used, 0, got) != nullptr) reject_binary(text, 0, 1, source);
    if (budget != 0 && text.size() > budget)
      throw PlanError::memory_constrained(text.size(), budget);
    if (got < step) {
      if (in.bad()) throw PlanError::io_error(source, "read failed");
      return;
    }
  }
}

}  // namespace

std::string read_text(const std::string& path, std::uint64_t memory_budget_bytes) {
  const std::string source = printable(path);
  // A directory opens fine as an ifstream on Linux and reports a bogus size
  // (the bad-input matrix found "internal error: basic_string::_M_replace_aux").
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw PlanError::io_error(source, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError::io_error(source, "cannot open file");
  std::string text;
  if (!std::filesystem::is_regular_file(path, ec) ||
      !read_regular(in, source, memory_budget_bytes, text))
    read_stream(in, source, memory_budget_bytes, text);
  return text;
}

std::string read_text(std::istream& in, const std::string& source,
                      std::uint64_t memory_budget_bytes) {
  std::string text;
  read_stream(in, source, memory_budget_bytes, text);
  return text;
}

}  // namespace strata::io
