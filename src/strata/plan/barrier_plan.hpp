#pragma once
// BarrierPlan: the planner's result, device-resident so a downstream kernel can
// consume it without a host round trip. Group g holds the waves
// waves(group_offsets(g)) .. waves(group_offsets(g+1) - 1), ascending; groups
// are in layer order; level(w) is the group of wave w.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>

namespace strata {

/// The fields of a returned plan's Views, as the planner names them; Kokkos
/// Tools see each with the library's "strata::" prefix (core/storage.hpp).
/// A memory profile tells the caller's plan from the planner's working
/// buffers by them (is_plan_view_label).
namespace plan_view_field {
inline constexpr const char* level = "wave levels";
inline constexpr const char* waves = "plan waves";
inline constexpr const char* group_offsets = "group offsets";
}  // namespace plan_view_field

/// Whether a Kokkos Tools allocation label is one of a returned plan's Views.
inline bool is_plan_view_label(const char* label) {
  constexpr const char prefix[] = "strata::";
  if (label == nullptr || std::strncmp(label, prefix, sizeof(prefix) - 1) != 0) return false;
  const char* field = label + sizeof(prefix) - 1;
  for (const char* plan_field :
       {plan_view_field::level, plan_view_field::waves, plan_view_field::group_offsets})
    if (std::strcmp(field, plan_field) == 0) return true;
  return false;
}

template <class ExecSpace, class Ordinal = DefaultOrdinal>
struct BarrierPlan {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using ordinal_type = Ordinal;
  using view_type = Kokkos::View<Ordinal*, memory_space>;

  view_type group_offsets;  ///< size group_count() + 1
  view_type waves;          ///< size wave_count(), ascending inside each group
  view_type level;          ///< size wave_count(): the group of each wave

  std::size_t wave_count() const { return waves.extent(0); }
  std::size_t group_count() const {
    return group_offsets.extent(0) == 0 ? 0 : group_offsets.extent(0) - 1;
  }
  /// Global synchronisation points between groups: groups - 1 (0 when empty).
  std::size_t global_barriers() const { return group_count() == 0 ? 0 : group_count() - 1; }

  /// The same plan with host-accessible Views (no copy on host backends).
  auto host_mirror() const {
    BarrierPlan<Kokkos::DefaultHostExecutionSpace, Ordinal> host;
    host.group_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), group_offsets);
    host.waves = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), waves);
    host.level = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level);
    return host;
  }

  /// Groups as host vectors (for tests, printing and small plans).
  std::vector<std::vector<std::uint64_t>> host_groups() const {
    const auto host = host_mirror();
    std::vector<std::vector<std::uint64_t>> groups(host.group_count());
    for (std::size_t g = 0; g < groups.size(); ++g)
      groups[g].assign(host.waves.data() + host.group_offsets(g),
                       host.waves.data() + host.group_offsets(g + 1));
    return groups;
  }
};

}  // namespace strata
