#pragma once
// Fallible, capacity-keeping storage for Kokkos Views.
//
// Every planner buffer is reserved through reserve_capacity(): a View only
// grows (never shrinks), so planning an equal or smaller shape again keeps the
// same allocation, and a failed allocation becomes StorageReserveFailed
// instead of an abort.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>

namespace strata {

/// An allocator's (or any exception's) message as one line: Kokkos 3.4 spreads a failed
/// allocation over several lines ("...\n\nTraceback functionality not
/// available\n"), which would push the error's Fix: hint off the first line.
inline std::string one_line_message(const char* text) {
  std::string out;
  for (const char* p = text; *p != '\0'; ++p) {
    const bool space = *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t';
    if (!space) out += *p;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  const std::string noise = " Traceback functionality not available";
  const auto at = out.find(noise);
  if (at != std::string::npos) out.erase(at, noise.size());
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

/// Asks Linux to back a large host buffer (16 MiB or more) with transparent
/// huge pages where the system leaves that to the program (`madvise` mode,
/// Debian's default): a fresh planner buffer is written once, and with 4 KiB
/// pages its first touch costs a page fault per 4 KiB (a large share of a
/// CSR build from a long list). Smaller buffers are left alone: a hint from
/// 2 MiB up made a tree's plan several times slower on one thread
/// (docs/plan.md). A hint only:
/// nothing changes where it is refused, on other systems, or for device
/// memory.
template <class View>
void advise_huge_pages(const View& view) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if constexpr (std::is_same<typename View::memory_space, Kokkos::HostSpace>::value) {
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(view.data());
    const auto end = begin + view.span() * sizeof(typename View::value_type);
    const auto first = (begin + huge - 1) & ~(huge - 1);
    const auto last = end & ~(huge - 1);
    if (end - begin >= (std::uintptr_t(16) << 20) && last > first)
      (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)view;
#endif
}

/// Makes `view` (rank 1) hold at least `count` elements, reallocating without
/// initialisation only when it is too small. Throws StorageReserveFailed or
/// CountOverflow; on failure `view` is left empty.
template <class View>
void reserve_capacity(View& view, std::uint64_t count, const std::string& field) {
  static_assert(View::rank == 1, "reserve_capacity is for rank-1 Views");
  using value_type = typename View::non_const_value_type;
  if (count <= static_cast<std::uint64_t>(view.extent(0))) return;
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(value_type))
    throw PlanError::count_overflow(field + " bytes");
  view = View();  // release the old buffer first: lower peak, and empty on failure
  try {
    view = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::" + field),
                static_cast<std::size_t>(count));
    advise_huge_pages(view);
  } catch (const std::exception& e) {
    view = View();
    throw PlanError::storage_reserve_failed(field, count, strata::one_line_message(e.what()));
  }
}

/// Allocates a fresh View of exactly `count` elements (zero-initialised when
/// `zero` is true); failure is StorageReserveFailed.
template <class View>
View allocate_view(std::uint64_t count, const std::string& field, bool zero = false) {
  using value_type = typename View::non_const_value_type;
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(value_type))
    throw PlanError::count_overflow(field + " bytes");
  try {
    if (zero) return View("strata::" + field, static_cast<std::size_t>(count));
    View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "strata::" + field),
              static_cast<std::size_t>(count));
    advise_huge_pages(view);
    return view;
  } catch (const std::exception& e) {
    throw PlanError::storage_reserve_failed(field, count, strata::one_line_message(e.what()));
  }
}

/// The first `count` elements of a capacity View.
template <class View>
View prefix(const View& view, std::size_t count) {
  return View(view, Kokkos::make_pair(std::size_t(0), count));
}

}  // namespace strata
