#pragma once
// Counter updates used by the parallel phases of every module (graph, plan,
// distributed). On Kokkos::Serial there is no concurrency, so the plain
// read-modify-write is used (a locked instruction per edge is measurable on
// the host); every other backend gets Kokkos atomics.
//
//   strata::fetch_add<ExecSpace>(&count(w), Offset(1));

#include <type_traits>

#include <Kokkos_Core.hpp>

namespace strata {

template <class ExecSpace>
inline constexpr bool is_serial_space_v =
#ifdef KOKKOS_ENABLE_SERIAL
    std::is_same_v<ExecSpace, Kokkos::Serial>;
#else
    false;
#endif

/// *ptr += value; returns the old value.
template <class ExecSpace, class T>
KOKKOS_FORCEINLINE_FUNCTION T fetch_add(T* ptr, T value) {
  if constexpr (is_serial_space_v<ExecSpace>) {
    const T old = *ptr;
    *ptr = static_cast<T>(old + value);
    return old;
  } else {
    return Kokkos::atomic_fetch_add(ptr, value);
  }
}

/// *ptr -= value; returns the old value.
template <class ExecSpace, class T>
KOKKOS_FORCEINLINE_FUNCTION T fetch_sub(T* ptr, T value) {
  if constexpr (is_serial_space_v<ExecSpace>) {
    const T old = *ptr;
    *ptr = static_cast<T>(old - value);
    return old;
  } else {
    return Kokkos::atomic_fetch_sub(ptr, value);
  }
}

/// *ptr = max(*ptr, value); returns the old value.
template <class ExecSpace, class T>
KOKKOS_FORCEINLINE_FUNCTION T fetch_max(T* ptr, T value) {
  if constexpr (is_serial_space_v<ExecSpace>) {
    const T old = *ptr;
    if (value > old) *ptr = value;
    return old;
  } else {
    return Kokkos::atomic_fetch_max(ptr, value);
  }
}

/// A memory fence where other threads can observe the writes (none on Serial).
template <class ExecSpace>
KOKKOS_FORCEINLINE_FUNCTION void memory_fence() {
  if constexpr (!is_serial_space_v<ExecSpace>) Kokkos::memory_fence();
}

}  // namespace strata
