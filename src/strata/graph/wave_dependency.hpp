#pragma once
#include <strata/core/ordinal.hpp>

namespace strata {

/// Directed dependency between two waves: `after` waits for `before`.
template <class Ordinal = DefaultOrdinal>
struct WaveDependency {
  static_assert(is_index_type_v<Ordinal>, "Ordinal must be an unsigned integer type");
  using ordinal_type = Ordinal;
  Ordinal before;  ///< wave that must complete first
  Ordinal after;   ///< wave that can run once `before` has completed

  friend constexpr bool operator==(const WaveDependency& a, const WaveDependency& b) {
    return a.before == b.before && a.after == b.after;
  }
};

}  // namespace strata
