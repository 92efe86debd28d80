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

#include <strata/distributed/communicator.hpp>
#include <strata/distributed/gather_plan.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/distributed/read_edge_list_distributed.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/distributed/watchdog.hpp>
#include <strata/io/plan_writer.hpp>
#include <strata/version.hpp>

#include "commands.hpp"
#include "memory_budget.hpp"
#include "output.hpp"

namespace strata::tools {

namespace {

/// The arguments that shape the collective work, one per line; every rank
/// of a well-formed launch has the same (Kokkos options and the watchdog's
/// timeout are per rank and do not enter).
std::vector<std::string> collective_arguments(const DistributedPlanArgs& a) {
  return {"strata " STRATA_VERSION_STRING,
          "FILE " + a.file,
          std::string("--output ") + (a.json ? "json" : "text"),
          std::string("--time ") + (a.time ? "given" : "not given"),
          "--repeats " + std::to_string(a.repeats),
          "--rank-budget " + (a.rank_budget != 0 ? std::to_string(a.rank_budget) + " bytes"
                                                 : std::string("not given"))};
}

/// Every rank compares its arguments with rank 0's before any collective
/// work: a rank started with other arguments (an MPMD launch, a wrapper
/// script) would run other collectives and leave the rest waiting. A
/// mismatch is InvalidArgument on every rank (exit 2), naming the lowest
/// such rank and the first argument that differs.
void agree_on_arguments(const distributed::Communicator& comm, const DistributedPlanArgs& args) {
  const std::vector<std::string> mine = collective_arguments(args);
  std::string joined;
  for (const auto& a : mine) joined += a + '\n';
  std::uint64_t size = joined.size();
  comm.broadcast_bytes(&size, sizeof size, 0);
  std::string root = joined;
  root.resize(static_cast<std::size_t>(size));
  comm.broadcast_bytes(root.data(), root.size(), 0);
  distributed::collective_phase(comm, [&] {
    distributed::check_mpi_timeout_environment();
    if (root == joined) return;
    std::vector<std::string> theirs;
    for (std::size_t at = 0, nl; (nl = root.find('\n', at)) != std::string::npos; at = nl + 1)
      theirs.push_back(root.substr(at, nl - at));
    std::size_t i = 0;
    while (i < mine.size() && i < theirs.size() && mine[i] == theirs[i]) ++i;
    const std::string ours = i < mine.size() ? mine[i] : "(nothing)";
    const std::string root_has = i < theirs.size() ? theirs[i] : "(nothing)";
    throw distributed::OrderedError{
        std::uint64_t(comm.rank()),
        PlanError::invalid_argument(
            "MPI rank " + std::to_string(comm.rank()) +
                " was started with other arguments than rank 0 ('" + ours + "' where rank 0 has '" +
                root_has + "')",
            "start every rank with the same 'strata plan FILE --distributed ...' arguments")};
  });
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux: kilobytes
}

template <class Ordinal>
int plan_and_print(const distributed::Communicator& comm,
                   const distributed::DistributedEdgeList& list, const DistributedPlanArgs& args,
                   std::uint64_t budget) {
  using Space = Kokkos::DefaultExecutionSpace;
  std::vector<WaveDependency<Ordinal>> deps;
  distributed::collective_phase(comm, [&] {
    distributed::reserve_entries(deps, list.dependencies.size(), "dependencies (planning copy)");
    for (const auto& d : list.dependencies)
      deps.push_back({static_cast<Ordinal>(d.before), static_cast<Ordinal>(d.after)});
  });
  Space space;
  distributed::DistributedOptions options;
  options.rank_budget_bytes = budget;
  const auto run = [&] {
    return distributed::plan_barriers_distributed<Ordinal>(space, comm, list.wave_count,
                                                           deps.data(), deps.size(), options);
  };
  auto local = run();
  auto plan = distributed::gather_plan(space, comm, local);
  if (args.time) {
    // Planning only (reading excluded), the slowest rank of each repeat.
    std::vector<double> plan_t, gather_t;
    for (int r = 0; r < args.repeats; ++r) {
      comm.barrier();
      auto start = std::chrono::steady_clock::now();
      local = run();
      plan_t.push_back(comm.max_double(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
      comm.barrier();
      start = std::chrono::steady_clock::now();
      plan = distributed::gather_plan(space, comm, local);
      gather_t.push_back(comm.max_double(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    }
    std::sort(plan_t.begin(), plan_t.end());
    std::sort(gather_t.begin(), gather_t.end());
    // Per rank: owned waves, planner device bytes at their high point, peak RSS.
    const std::uint64_t row[3] = {local.shard.wave_count_of(comm.rank()), local.peak_bytes,
                                  peak_rss_bytes()};
    const std::vector<std::uint64_t> rows = comm.gather(row, 3, 0);
    if (comm.rank() == 0) {
      std::ostream& out = diagnostics();
      out << std::setprecision(6) << "plan_seconds " << plan_t[plan_t.size() / 2]
                << " (distributed, slowest rank, median of " << args.repeats
                << " timed repeats after the planned one)\n"
                << "gather_seconds " << gather_t[gather_t.size() / 2] << "\n"
                << "backend " << Space::name() << " concurrency " << space.concurrency()
                << " ordinal_bits " << 8 * sizeof(Ordinal) << " repeats " << args.repeats
                << " ranks " << comm.size() << " rank_budget " << budget << " ranks_needed "
                << local.shard.ranks_needed << "\n";
      out << runtime::describe(rank_threads()) << "\n";
      out << "gathered_plan_bytes "
                << (plan.level.span() + plan.waves.span() + plan.group_offsets.span()) *
                       sizeof(Ordinal)
                << " (rank 0)\n";
      for (int r = 0; r < comm.size(); ++r)
        out << "rank " << r << " waves " << rows[3 * std::size_t(r)] << " peak_bytes "
                  << rows[3 * std::size_t(r) + 1] << " max_rss_bytes "
                  << rows[3 * std::size_t(r) + 2] << "\n";
    }
  }
  if (comm.rank() == 0) io::write_plan(std::cout, plan, args.json);
  return exit_ok;
}

}  // namespace

int plan_distributed(const DistributedPlanArgs& args) {
  const distributed::Communicator comm(MPI_COMM_WORLD);
  agree_on_arguments(comm, args);
  const distributed::DistributedEdgeList list =
      distributed::read_edge_list_distributed(comm, args.file);
  // One budget for all (the smallest: nodes may differ in memory), so the
  // shard plan is the same on every rank.
  const std::uint64_t budget = comm.min(
      args.rank_budget != 0 ? args.rank_budget
                            : physical_memory_bytes() / std::uint64_t(comm.ranks_on_node()));
  // The ordinal width is chosen as `strata plan` chooses it (every rank
  // knows the global counts and the largest id).
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  if (list.wave_count <= max32 && list.dependency_count <= max32 && list.max_wave_id <= max32)
    return plan_and_print<std::uint32_t>(comm, list, args, budget);
  return plan_and_print<std::uint64_t>(comm, list, args, budget);
}

}  // namespace strata::tools
