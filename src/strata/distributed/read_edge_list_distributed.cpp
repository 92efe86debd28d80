#include <strata/distributed/read_edge_list_distributed.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>

#include <strata/core/error.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/io/edge_list_lines.hpp>

namespace strata::distributed {

namespace {

struct DataLine {
  std::string_view text;
  std::uint64_t index = 0;    ///< 0-based among this rank's lines
  std::uint64_t newline = 0;  ///< file offset of its '\n' (the file size when it has none)
};

/// Bytes [from, to) of the file, then on to the first '\n' at or after `to`
/// (inclusive) unless byte to - 1 is one already.
std::string read_range(std::ifstream& in, const std::string& path, std::uint64_t from,
                       std::uint64_t to, std::uint64_t size) {
  std::string text;
  try {
    text.resize(static_cast<std::size_t>(to - from));
  } catch (const std::exception& e) {
    throw PlanError::storage_reserve_failed("file bytes", to - from,
                                            strata::one_line_message(e.what()));
  }
  in.seekg(static_cast<std::streamoff>(from));
  if (!text.empty() && !in.read(text.data(), static_cast<std::streamsize>(text.size())))
    throw PlanError::io_error(path, "read failed");
  std::uint64_t at = to;
  while (at < size && (text.empty() || text.back() != '\n')) {
    char chunk[4096];
    const std::uint64_t want = std::min<std::uint64_t>(sizeof chunk, size - at);
    if (!in.read(chunk, static_cast<std::streamsize>(want)))
      throw PlanError::io_error(path, "read failed");
    const std::string_view got(chunk, static_cast<std::size_t>(want));
    const auto nl = got.find('\n');
    text.append(got.substr(0, nl == std::string_view::npos ? got.size() : nl + 1));
    if (nl != std::string_view::npos) break;
    at += want;
  }
  return text;
}

}  // namespace

DistributedEdgeList read_edge_list_distributed(const Communicator& comm, const std::string& path) {
  DistributedEdgeList out;
  const std::uint64_t ranks = std::uint64_t(comm.size()), rank = std::uint64_t(comm.rank());
  std::ifstream in;
  std::uint64_t size = 0;
  collective_phase(comm, [&] {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw PlanError::io_error(path, "is a directory, not a file");
    in.open(path, std::ios::binary);
    if (!in) throw PlanError::io_error(path, "cannot open file");
    in.seekg(0, std::ios::end);
    const auto end = in.tellg();
    if (end < 0)
      throw PlanError::io_error(path, "is not seekable (--distributed reads a regular file)");
    size = static_cast<std::uint64_t>(end);
  });

  // This rank's byte range and the lines that start in it.
  const auto cut = [&](std::uint64_t r) {
    return size / ranks * r + size % ranks * r / ranks;  // floor(size * r / ranks), no overflow
  };
  const std::uint64_t start = cut(rank), end = cut(rank + 1);
  std::string text;
  std::uint64_t base = 0;  // file offset of text[0]
  std::vector<DataLine> data;
  std::uint64_t lines = 0;
  collective_phase(comm, [&] {
    if (start == end) return;
    base = start == 0 ? 0 : start - 1;  // one byte before: does a line start at `start`?
    text = read_range(in, path, base, end, size);
    reserve_entries(data, std::uint64_t(std::count(text.begin(), text.end(), '\n')) + 1,
                    "edge-list line records");
    std::uint64_t p = start;  // the first line start in [start, end)
    if (start != 0) {
      const auto nl = text.find('\n');
      if (nl == std::string::npos || base + nl + 1 >= end) return;  // no line starts here
      p = base + nl + 1;
    }
    while (p < end) {
      const std::size_t at = static_cast<std::size_t>(p - base);
      std::size_t nl = text.find('\n', at);
      const std::uint64_t newline = nl == std::string::npos ? size : base + nl;
      if (nl == std::string::npos) nl = text.size();
      const std::string_view line(text.data() + at, nl - at);
      if (!io::is_blank_or_comment(line)) data.push_back({line, lines, newline});
      ++lines;
      p = newline + 1;
    }
  });
  // Binary data first, as the single-process reader (io::reject_binary on
  // what it read, before parsing): the first NUL byte of the file, with its
  // line, whatever else is wrong.
  const std::string_view own = start == end ? std::string_view()
                                            : std::string_view(text).substr(
                                                  static_cast<std::size_t>(start - base),
                                                  static_cast<std::size_t>(end - start));
  const std::uint64_t newlines_before =
      comm.exclusive_sum(std::uint64_t(std::count(own.begin(), own.end(), '\n')));
  collective_phase(comm, [&] {
    const auto nul = own.find('\0');
    if (nul == std::string_view::npos) return;
    try {
      io::reject_binary(own, start, newlines_before + 1, path);
    } catch (const PlanError& e) {
      throw OrderedError{start + nul, e};
    }
  });
  const std::uint64_t first_line = comm.exclusive_sum(lines);  // lines before this rank
  const std::uint64_t total_lines = comm.sum(lines);
  const std::uint64_t first_data = comm.exclusive_sum(std::uint64_t(data.size()));
  const std::uint64_t total_data = comm.sum(std::uint64_t(data.size()));
  if (total_data == 0) throw io::missing_header_error(path, total_lines);  // every rank

  // The header: the first data line of the file.
  const bool header_here = !data.empty() && first_data == 0;
  io::EdgeListHeader header;
  collective_phase(comm, [&] {
    if (!header_here) return;
    const DataLine& h = data.front();
    const std::uint64_t number = first_line + h.index + 1;
    const std::uint64_t pos = h.newline + 1;
    try {
      header = io::parse_header_line(h.text, number, path, size > pos ? size - pos : 0);
    } catch (const PlanError& e) {
      throw OrderedError{number, e};
    }
  });
  out.wave_count = comm.max(header_here ? header.wave_count : std::uint64_t(0));
  const std::uint64_t declared = comm.max(header_here ? header.dependency_count : std::uint64_t(0));

  // The dependency lines: the first bad one in file order wins.
  out.first_index = first_data == 0 ? 0 : first_data - 1;
  std::uint64_t local_max = 0;
  collective_phase(comm, [&] {
    reserve_entries(out.dependencies, data.size(), "edge-list dependencies");
    for (std::size_t j = header_here ? 1 : 0; j < data.size(); ++j) {
      const std::uint64_t number = first_line + data[j].index + 1;
      const std::uint64_t index = first_data + j - 1;  // among the dependencies
      try {
        if (index >= declared) throw io::extra_dependency_line_error(path, number, declared);
        const auto d = io::parse_dependency_line(data[j].text, number, path);
        out.dependencies.push_back(d);
        if (d.before > local_max) local_max = d.before;
        if (d.after > local_max) local_max = d.after;
      } catch (const PlanError& e) {
        throw OrderedError{number, e};
      }
    }
  });
  const std::uint64_t found = total_data - 1;
  if (found != declared)  // every rank
    throw io::dependency_count_error(path, total_lines, declared, found);
  out.dependency_count = declared;
  out.max_wave_id = comm.max(local_max);
  return out;
}

}  // namespace strata::distributed
