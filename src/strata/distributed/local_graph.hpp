#pragma once
// local_graph: the rank's part of the dependency graph under a distributed
// plan's partition, as the distributed Executor takes it.
//
//   auto plan  = plan_barriers_distributed(space, comm, waves, my_deps);
//   auto graph = local_graph(space, comm, plan, my_deps);
//
// Each rank passes any part of the dependencies (the same parts it planned
// from, or only those whose `before` it owns); every dependency goes to the
// owner of its `before`. The result is a CSR with one row per owned wave
// (row w - plan.first_wave) and the global ids of the targets, local and
// remote alike. Collective; errors as in plan_barriers_distributed.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distribute_dependencies.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>

namespace strata::distributed {

template <class Offset = DefaultOffset, class ExecSpace, class Ordinal, class... P>
DependencyGraph<ExecSpace, Ordinal, Offset> local_graph(
    const ExecSpace& space, const Communicator& comm, const DistributedPlan<ExecSpace, Ordinal>& plan,
    const Kokkos::View<const WaveDependency<Ordinal>*, P...>& local) {
  std::uint64_t peak = 0;
  const auto owned = detail::send_to_owners(space, comm, local, plan.shard.wave_begin, peak);
  const std::uint64_t lo = plan.first_wave;
  const std::uint64_t n = plan.shard.wave_count_of(comm.rank());
  DependencyGraphStorage<ExecSpace, Ordinal, Offset> storage;
  DependencyGraph<ExecSpace, Ordinal, Offset> graph;
  collective_phase(comm, [&] {
    checked_count<Offset>(owned.extent(0), "dependency count");
    graph = detail::build_owned_csr(space, lo, n, owned, storage);
    space.fence();
  });
  return graph;
}

/// From a host array of this rank's dependencies.
template <class Offset = DefaultOffset, class ExecSpace, class Ordinal>
DependencyGraph<ExecSpace, Ordinal, Offset> local_graph(
    const ExecSpace& space, const Communicator& comm, const DistributedPlan<ExecSpace, Ordinal>& plan,
    const WaveDependency<Ordinal>* dependencies, std::size_t dependency_count) {
  using Memory = typename ExecSpace::memory_space;
  Kokkos::View<WaveDependency<Ordinal>*, Memory> staged;
  collective_phase(comm, [&] {
    staged = allocate_view<decltype(staged)>(dependency_count, "distributed staged dependencies");
  });
  Kokkos::deep_copy(space, staged,
                    Kokkos::View<const WaveDependency<Ordinal>*, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>(dependencies,
                                                                          dependency_count));
  const Kokkos::View<const WaveDependency<Ordinal>*, Memory> view = staged;
  return local_graph<Offset>(space, comm, plan, view);
}

}  // namespace strata::distributed
