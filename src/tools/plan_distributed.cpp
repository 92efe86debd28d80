// strata plan FILE --distributed: the file read in parallel, planned over the
// MPI ranks, the plan gathered on rank 0 and printed there exactly as
// `strata plan FILE` prints it. Errors are collective (every rank throws the
// same PlanError, main prints it on rank 0 only, every rank exits alike).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <Kokkos_Core.hpp>

#include <strata/dist/communicator.hpp>
#include <strata/dist/gather_plan.hpp>
#include <strata/dist/plan_barriers_distributed.hpp>
#include <strata/dist/read_edge_list_distributed.hpp>
#include <strata/io/plan_writer.hpp>

#include "commands.hpp"
#include "memory_budget.hpp"

namespace strata::tools {

namespace {

/// Ranks sharing this node's memory.
int ranks_on_node(const dist::Communicator& comm) {
  MPI_Comm node;
  dist::check_mpi(MPI_Comm_split_type(comm.comm(), MPI_COMM_TYPE_SHARED, comm.rank(),
                                      MPI_INFO_NULL, &node),
                  "MPI_Comm_split_type", comm.comm());
  int size = 1;
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return size;
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux: kilobytes
}

template <class Ordinal>
int plan_and_print(const dist::Communicator& comm, const dist::DistributedEdgeList& list,
                   const DistributedPlanArgs& args, std::uint64_t budget) {
  using Space = Kokkos::DefaultExecutionSpace;
  std::vector<WaveDependency<Ordinal>> deps;
  deps.reserve(list.dependencies.size());
  for (const auto& d : list.dependencies)
    deps.push_back({static_cast<Ordinal>(d.before), static_cast<Ordinal>(d.after)});
  Space space;
  dist::DistributedOptions options;
  options.rank_budget_bytes = budget;
  const auto run = [&] {
    return dist::plan_barriers_distributed<Ordinal>(space, comm, list.wave_count, deps.data(),
                                                    deps.size(), options);
  };
  auto local = run();
  auto plan = dist::gather_plan(space, comm, local);
  if (args.time) {
    // Planning only (reading excluded), the slowest rank of each repeat.
    std::vector<double> plan_t, gather_t;
    for (int r = 0; r < args.repeats; ++r) {
      MPI_Barrier(comm.comm());
      auto start = std::chrono::steady_clock::now();
      local = run();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, comm.comm());
      plan_t.push_back(s);
      MPI_Barrier(comm.comm());
      start = std::chrono::steady_clock::now();
      plan = dist::gather_plan(space, comm, local);
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, comm.comm());
      gather_t.push_back(s);
    }
    std::sort(plan_t.begin(), plan_t.end());
    std::sort(gather_t.begin(), gather_t.end());
    // Per rank: owned waves, planner device bytes at their high point, peak RSS.
    const std::uint64_t row[3] = {local.shard.wave_count_of(comm.rank()), local.peak_bytes,
                                  peak_rss_bytes()};
    std::vector<std::uint64_t> rows(comm.rank() == 0 ? 3 * std::size_t(comm.size()) : 0);
    MPI_Gather(row, 3, MPI_UINT64_T, rows.data(), 3, MPI_UINT64_T, 0, comm.comm());
    if (comm.rank() == 0) {
      std::cerr << std::setprecision(6) << "plan_seconds " << plan_t[plan_t.size() / 2]
                << " (distributed, slowest rank)\n"
                << "gather_seconds " << gather_t[gather_t.size() / 2] << "\n"
                << "backend " << Space::name() << " concurrency " << space.concurrency()
                << " ordinal_bits " << 8 * sizeof(Ordinal) << " repeats " << args.repeats
                << " ranks " << comm.size() << " rank_budget " << budget << " ranks_needed "
                << local.shard.ranks_needed << "\n";
      std::cerr << "gathered_plan_bytes "
                << (plan.level.span() + plan.waves.span() + plan.group_offsets.span()) *
                       sizeof(Ordinal)
                << " (rank 0)\n";
      for (int r = 0; r < comm.size(); ++r)
        std::cerr << "rank " << r << " waves " << rows[3 * std::size_t(r)] << " peak_bytes "
                  << rows[3 * std::size_t(r) + 1] << " max_rss_bytes "
                  << rows[3 * std::size_t(r) + 2] << "\n";
    }
  }
  if (comm.rank() == 0) io::write_plan(std::cout, plan, args.json);
  return exit_ok;
}

}  // namespace

int plan_distributed(const DistributedPlanArgs& args) {
  const dist::Communicator comm(MPI_COMM_WORLD);
  const dist::DistributedEdgeList list = dist::read_edge_list_distributed(comm, args.file);
  const std::uint64_t budget =
      args.rank_budget != 0 ? args.rank_budget
                            : physical_memory_bytes() / std::uint64_t(ranks_on_node(comm));
  // The ordinal width is chosen as `strata plan` chooses it (every rank
  // knows the global counts and the largest id).
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  if (list.wave_count <= max32 && list.dependency_count <= max32 && list.max_wave_id <= max32)
    return plan_and_print<std::uint32_t>(comm, list, args, budget);
  return plan_and_print<std::uint64_t>(comm, list, args, budget);
}

}  // namespace strata::tools
