#pragma once
// The whole text of a graph input in memory, within a byte budget: what the
// edge-list and Matrix Market readers parse from.
//
// A regular file is read in one piece after its size is checked against the
// budget; a pipe, a device, standard input or a file of unknown size is read
// in chunks and stopped at the budget. Input holding a NUL byte is not text:
// ParseError "not a text edge list" (or "not a text Matrix Market file",
// where the input starts with the "%%MatrixMarket" banner) at that byte
// (/dev/zero, /dev/urandom, a binary file), and a stream stops at the first
// chunk holding one. A directory or an unreadable path is IoError; a budget
// exceeded is MemoryConstrained{bytes, budget}; a failed allocation is
// StorageReserveFailed. Paths appear in messages through printable().
#include <cstdint>
#include <iosfwd>
#include <string>

namespace strata::io {

/// The bytes of the file at `path` (0: no budget).
std::string read_text(const std::string& path, std::uint64_t memory_budget_bytes = 0);

/// The bytes of a stream (standard input), named `source` in messages.
std::string read_text(std::istream& in, const std::string& source,
                      std::uint64_t memory_budget_bytes = 0);

}  // namespace strata::io
