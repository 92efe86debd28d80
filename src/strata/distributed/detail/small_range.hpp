#pragma once
// parallel_for over [begin, end) for the distributed executor's per-segment
// work (unpacking and packing messages): on a host backend a range of at
// most small_range_items runs on the calling thread instead of a launch. A
// launch of an OpenMP space costs about half a microsecond, more than a few
// calls of a message hook, and a chain of cross-rank dependencies pays two
// per hand-off (unpack, pack). Host backends' launches are synchronous, so
// the inline loop orders the same way.
#include <cstddef>

#include <Kokkos_Core.hpp>

#include <strata/core/resident_teams.hpp>

namespace strata::distributed::detail {

inline constexpr std::size_t small_range_items = 64;

template <class ExecSpace, class F>
void for_range(const ExecSpace& space, const char* label, std::size_t begin, std::size_t end,
               const F& f) {
  if constexpr (is_host_backend_v<ExecSpace>) {
    if (end - begin <= small_range_items) {
      for (std::size_t i = begin; i < end; ++i) f(i);
      return;
    }
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(space, begin, end), f);
}

}  // namespace strata::distributed::detail
