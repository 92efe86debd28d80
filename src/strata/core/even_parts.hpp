#pragma once
// Equal parts of a range [0, n): how the host backends give each thread a
// slice of its own (of a dependency list, of the waves), so that no store is
// shared. Used by the host CSR build, the in-degree count and the host Kahn
// walk.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace strata {

/// First item of part p of `parts` equal parts of [0, n) (the first n % parts
/// parts hold one more).
KOKKOS_INLINE_FUNCTION std::uint64_t even_part_begin(std::uint64_t n, std::uint64_t parts,
                                                     std::uint64_t p) {
  const std::uint64_t q = n / parts, r = n % parts;
  return q * p + (p < r ? p : r);
}

/// Parts of n items on a host backend: one per hardware thread, none empty
/// (at least one).
template <class ExecSpace>
std::size_t thread_parts(const ExecSpace& space, std::uint64_t n) {
  std::uint64_t parts = static_cast<std::uint64_t>(space.concurrency());
  if (parts > n) parts = n;
  return parts == 0 ? 1 : static_cast<std::size_t>(parts);
}

}  // namespace strata
