#pragma once
#include <string>

#include <Kokkos_Core.hpp>

namespace strata {

/// A Kokkos profiling region that is closed on every exit path, exceptions
/// included (so tools such as the Kokkos Tools space-time stack stay balanced).
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

}  // namespace strata
