#pragma once
// A rank's host-side storage, failing as the planner's device storage does
// (core/storage.hpp): an allocation that fails is StorageReserveFailed naming
// what and how many entries, never a bare std::bad_alloc whose size is lost.
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>

namespace strata::distributed {

/// `vector.reserve(count)`; failure is StorageReserveFailed{field, count}.
template <class T>
void reserve_entries(std::vector<T>& vector, std::uint64_t count, const std::string& field) {
  try {
    if (count > vector.max_size()) throw std::length_error("more than vector::max_size()");
    vector.reserve(static_cast<std::size_t>(count));
  } catch (const std::exception& e) {
    throw PlanError::storage_reserve_failed(field, count, strata::one_line_message(e.what()));
  }
}

/// The host staging copy of a rank-1 `view`: `view` itself where it lives in
/// host memory (host backends: no copy), else a fresh allocation
/// (allocate_view: StorageReserveFailed{field, extent} on failure).
template <class View>
typename View::HostMirror host_mirror(const View& view, const std::string& field) {
  using Mirror = typename View::HostMirror;
  if constexpr (std::is_same_v<typename View::memory_space, typename Mirror::memory_space> &&
                std::is_same_v<typename View::data_type, typename Mirror::data_type>) {
    (void)field;
    return view;
  } else {
    return allocate_view<Mirror>(view.extent(0), field);
  }
}

}  // namespace strata::distributed
