#pragma once
// Helpers shared by the backend tests: plan a host dependency list on
// TEST_EXECSPACE and compare the result with the host reference.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <strata/strata.hpp>

#include <strata/generate/graph_generators.hpp>

#include "test_backend.hpp"

namespace strata::test {

using Dep = WaveDependency<std::uint32_t>;
using Groups = std::vector<std::vector<std::uint64_t>>;

template <class Ordinal = std::uint32_t>
BarrierPlan<TEST_EXECSPACE, Ordinal> plan(std::uint64_t waves,
                                          const std::vector<WaveDependency<Ordinal>>& deps) {
  return plan_barriers(TEST_EXECSPACE(), waves, deps.data(), deps.size());
}

inline Groups groups_of(const ReferencePlan& ref) {
  Groups groups(ref.group_count());
  for (std::size_t g = 0; g < groups.size(); ++g)
    groups[g].assign(ref.waves.begin() + ref.group_offsets[g],
                     ref.waves.begin() + ref.group_offsets[g + 1]);
  return groups;
}

/// Every field of the plan agrees with the reference: offsets, waves, levels.
template <class Plan>
::testing::AssertionResult same_plan(const Plan& plan, const ReferencePlan& ref) {
  const auto host = plan.host_mirror();
  if (host.group_count() != ref.group_count())
    return ::testing::AssertionFailure()
           << "groups " << host.group_count() << " != reference " << ref.group_count();
  if (host.global_barriers() != (ref.group_count() == 0 ? 0 : ref.group_count() - 1))
    return ::testing::AssertionFailure() << "global_barriers disagrees";
  for (std::size_t g = 0; g <= ref.group_count(); ++g)
    if (host.group_offsets(g) != ref.group_offsets[g])
      return ::testing::AssertionFailure() << "group_offsets(" << g << ") differs";
  if (host.wave_count() != ref.waves.size())
    return ::testing::AssertionFailure() << "wave count differs";
  for (std::size_t i = 0; i < ref.waves.size(); ++i)
    if (host.waves(i) != ref.waves[i])
      return ::testing::AssertionFailure() << "waves(" << i << ") = " << host.waves(i)
                                           << ", reference " << ref.waves[i];
  for (std::size_t g = 0; g < ref.group_count(); ++g)
    for (std::size_t i = ref.group_offsets[g]; i < ref.group_offsets[g + 1]; ++i)
      if (host.level(ref.waves[i]) != g)
        return ::testing::AssertionFailure() << "level of wave " << ref.waves[i] << " != " << g;
  return ::testing::AssertionSuccess();
}

/// A host vector copied into a new View of `Device` (TEST_EXECSPACE's memory
/// space unless given), labelled.
template <class Device = TEST_EXECSPACE::memory_space, class T>
Kokkos::View<T*, Device> to_device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*, Device> d(std::string(label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()));
  return d;
}

/// Runs `fn`, expecting a PlanError of `kind`; returns it for field checks.
template <class Fn>
PlanError expect_plan_error(ErrorKind kind, Fn&& fn) {
  try {
    fn();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string text = e.what();
    EXPECT_EQ(text.rfind(error_kind_name(kind), 0), 0u) << text;
    EXPECT_NE(text.find("Fix:"), std::string::npos) << text;
    return e;
  }
  ADD_FAILURE() << "expected PlanError " << error_kind_name(kind);
  return PlanError::invalid_argument("no error thrown", "none");
}

}  // namespace strata::test
