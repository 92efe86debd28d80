#include <cstdint>
#include <cstdio>
#include <vector>

#include <Kokkos_Core.hpp>
#include <strata/strata.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  // A diamond: wave 0 first, then 1 and 2 together, then 3 ("after" waits for "before").
  std::vector<strata::WaveDependency<std::uint32_t>> deps{{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  strata::PlannerScratch<Space> scratch;  // reusable, caller-owned
  try {
    auto plan = strata::plan_barriers(Space(), 4, deps.data(), deps.size(), scratch);
    // plan.group_offsets, plan.waves, plan.level: device Views; a host copy to print:
    auto host = plan.host_mirror();
    for (std::size_t g = 0; g < host.group_count(); ++g) {
      std::printf("group %zu:", g);
      for (auto k = host.group_offsets(g); k < host.group_offsets(g + 1); ++k)
        std::printf(" %u", static_cast<unsigned>(host.waves(k)));
      std::printf("\n");
    }
    std::printf("global barriers: %zu\n", plan.global_barriers());  // 2

    deps.push_back({3, 0});  // now a cycle: a typed error with a Fix: hint
    strata::plan_barriers(Space(), 4, deps.data(), deps.size(), scratch);
    return 1;
  } catch (const strata::PlanError& e) {
    std::printf("%s\n", e.what());  // "Cycle: ... 4 unscheduled waves. Fix: ..."
    return e.kind() == strata::ErrorKind::Cycle ? 0 : 1;
  }
}
