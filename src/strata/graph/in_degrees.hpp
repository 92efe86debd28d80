#pragma once
// The in-degree of every wave of a DependencyGraph: how often the wave
// appears in the CSR's `entries` (the CSR holds out-edges). Host backends
// count without a locked instruction: each thread owns an equal range of
// waves, reads every entry and counts those that fall into its range (so
// each entry is read once per thread; the CSR build from a list counts them
// bucket by bucket instead, csr_by_row_buckets.hpp). Device backends take
// one atomic per entry (thousands of threads each reading every entry would
// not scale). The planner's Start step calls it when the CSR build has not
// counted them.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>
#include <strata/core/even_parts.hpp>
#include <strata/graph/dependency_graph.hpp>

namespace strata {

namespace graph::detail {

/// Host backends: one range of waves per thread, no locked instruction.
template <class ExecSpace, class EntriesView, class InDegreeView>
void count_in_degrees(const ExecSpace& space, std::size_t waves, const EntriesView& entries,
                      const InDegreeView& in_degree, std::true_type /*by owner*/) {
  const std::size_t edges = entries.extent(0);
  const std::size_t parts = thread_parts(space, waves);
  Kokkos::parallel_for(
      "strata::graph::in_degrees_by_owner", Kokkos::RangePolicy<ExecSpace>(space, 0, parts),
      KOKKOS_LAMBDA(const std::size_t p) {
        const std::uint64_t begin = even_part_begin(waves, parts, p);
        const std::uint64_t end = even_part_begin(waves, parts, p + 1);
        // No branch on "is the entry mine": with two parts it goes either
        // way as often as the other, and its mispredictions cost more than
        // the thread's whole pass without them. An entry that is not
        // the thread's is counted into one of 16 spare counters instead
        // (16, so that consecutive ones do not wait on each other), chosen
        // by masking the address: compilers turn a plain select of the two
        // pointers back into the branch.
        using T = typename InDegreeView::non_const_value_type;
        T* const counts = in_degree.data();
        // One part: every entry is the thread's, the branch is never
        // mispredicted, and the masking below would double the pass.
        if (parts == 1) {
          for (std::size_t e = 0; e < edges; ++e) {
            const std::uint64_t t = entries(e);
            if (t < end) ++counts[t];
          }
          return;
        }
        T spare[16] = {};
        for (std::size_t e = 0; e < edges; ++e) {
          const std::uint64_t t = entries(e);
          const std::uintptr_t mine = std::uintptr_t(0) - std::uintptr_t(t - begin < end - begin);
          const auto own = reinterpret_cast<std::uintptr_t>(counts + (t & mine));
          const auto other = reinterpret_cast<std::uintptr_t>(spare + (e & 15));
          ++*reinterpret_cast<T*>((own & mine) | (other & ~mine));
        }
      });
}

/// Devices: one atomic per entry (core/atomics.hpp: native for 16-bit counts).
template <class ExecSpace, class EntriesView, class InDegreeView>
void count_in_degrees(const ExecSpace& space, std::size_t, const EntriesView& entries,
                      const InDegreeView& in_degree, std::false_type /*by owner*/) {
  using T = typename InDegreeView::non_const_value_type;
  Kokkos::parallel_for(
      "strata::graph::in_degrees", Kokkos::RangePolicy<ExecSpace>(space, 0, entries.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e) { strata::fetch_add<ExecSpace>(&in_degree(entries(e)), T(1)); });
}

}  // namespace graph::detail

/// in_degree(w) = the number of dependencies into w, for every wave of the
/// graph (`in_degree` holds at least wave_count entries; overwritten).
/// Asynchronous on `space`.
template <class ExecSpace, class Ordinal, class Offset, class InDegreeView>
void count_in_degrees(const ExecSpace& space,
                      const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                      const InDegreeView& in_degree) {
  const std::size_t waves = graph.wave_count();
  using T = typename InDegreeView::non_const_value_type;
  Kokkos::deep_copy(space, Kokkos::subview(in_degree, Kokkos::make_pair(std::size_t(0), waves)),
                    T(0));
  graph::detail::count_in_degrees(space, waves, graph.entries, in_degree,
                           std::integral_constant<bool, Kokkos::SpaceAccessibility<
                                          Kokkos::HostSpace,
                                          typename ExecSpace::memory_space>::accessible>());
}

}  // namespace strata
