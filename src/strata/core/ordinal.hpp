#pragma once
// Ordinal and offset types, and the checked arithmetic that keeps counts from
// wrapping. Strata's planner is templated on an unsigned Ordinal (wave ids,
// levels, group offsets) and an unsigned Offset (edge counts, CSR row_map).
// 32-bit is the default; 64-bit is selectable, and any unsigned type works
// (tests use 16-bit types to make the overflow paths really fire).

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <strata/core/error.hpp>

namespace strata {

using DefaultOrdinal = std::uint32_t;
using DefaultOffset = std::uint32_t;

template <class T>
inline constexpr bool is_index_type_v = std::is_integral_v<T> && std::is_unsigned_v<T> &&
                                        !std::is_same_v<T, bool>;

/// Value type for Kokkos scans over T: Kokkos 3.4 requires scan and reduction
/// values to be a multiple of sizeof(int), so narrower types accumulate in
/// unsigned int (the results still fit T: callers check the totals first).
template <class T>
using scan_value_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, T>;

/// Throws CountOverflow{field} when `count` does not fit in T.
template <class T>
T checked_count(std::uint64_t count, const std::string& field) {
  static_assert(is_index_type_v<T>, "Strata index types are unsigned integers");
  if (count > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
    throw PlanError::count_overflow(field);
  return static_cast<T>(count);
}

/// a + b, or CountOverflow{field} when the sum does not fit in T.
template <class T>
T checked_add(T a, T b, const std::string& field) {
  static_assert(is_index_type_v<T>, "Strata index types are unsigned integers");
  if (b > std::numeric_limits<T>::max() - a) throw PlanError::count_overflow(field);
  return static_cast<T>(a + b);
}

}  // namespace strata
