#pragma once
// Counter updates used by the parallel phases of every module (graph, plan,
// distributed). On Kokkos::Serial there is no concurrency, so the plain
// read-modify-write is used (a locked instruction per edge is measurable on
// the host); every other backend gets Kokkos atomics, except for counters of
// 1 or 2 bytes in device code (below).
//
//   strata::fetch_add<ExecSpace>(&count(w), Offset(1));
//
// fetch_add and fetch_sub require that the result stays in T's range (no
// wrap): every counter here is bounded by a count that fits its type (a
// degree by the edge count, a remaining count never passes zero).
//
// Counters of 1 or 2 bytes on a device: Kokkos' atomics on them take a lock
// from a global lock array per operation, and thousands of threads on one
// counter (the in-degree of a hub) then serialize on that lock: a 16-bit
// planner of a 65,535-edge hub took minutes on an H100. There the counter is
// updated by a native 32-bit atomic add on the aligned word that holds it,
// shifted to its lane: without a carry or borrow out of the lane the other
// lanes of the word are untouched (the add is one atomic operation on the
// word, so a neighbour's concurrent update is not lost).

#include <cstdint>
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

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define STRATA_LANE_ATOMICS 1
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "lane atomics assume little-endian words");

/// *ptr += value (or -= value: Subtract) by one native 32-bit atomic on the
/// aligned word that holds *ptr, the operand shifted to *ptr's lane; returns
/// the old value.
template <bool Subtract, class T>
KOKKOS_FORCEINLINE_FUNCTION T lane_fetch_add(T* ptr, T value) {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  const unsigned shift = 8u * static_cast<unsigned>(address & 3u);
  auto* word = reinterpret_cast<std::uint32_t*>(address & ~std::uintptr_t(3));
  const std::uint32_t operand =
      static_cast<std::uint32_t>(static_cast<std::make_unsigned_t<T>>(value)) << shift;
  const std::uint32_t old = Subtract ? Kokkos::atomic_fetch_sub(word, operand)
                                     : Kokkos::atomic_fetch_add(word, operand);
  return static_cast<T>(old >> shift);
}
#endif

template <class T>
inline constexpr bool is_lane_counter_v = std::is_integral_v<T> && sizeof(T) < 4;

/// *ptr += value; returns the old value.
template <class ExecSpace, class T>
KOKKOS_FORCEINLINE_FUNCTION T fetch_add(T* ptr, T value) {
  if constexpr (is_serial_space_v<ExecSpace>) {
    const T old = *ptr;
    *ptr = static_cast<T>(old + value);
    return old;
  } else {
#ifdef STRATA_LANE_ATOMICS
    if constexpr (is_lane_counter_v<T>) return lane_fetch_add<false>(ptr, value);
#endif
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
#ifdef STRATA_LANE_ATOMICS
    if constexpr (is_lane_counter_v<T>) return lane_fetch_add<true>(ptr, value);
#endif
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
