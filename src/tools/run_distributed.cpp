// strata run FILE --distributed: the file read and planned over the MPI ranks
// as `strata plan FILE --distributed` does (same reader, budget and planner
// calls, so a bad graph answers with the same error and exit code), then the
// synthetic wave of `strata run` on every wave through
// strata::distributed::Executor, verified:
//   each wave spins --wave-work iterations, takes a start ticket from its
//   rank's clock, checks that every local predecessor holds an earlier finish
//   ticket and that the message of every remote predecessor was unpacked
//   before it started, and takes a finish ticket. A message carries its
//   wave's finish ticket; unpacking it advances the receiving rank's clock
//   past that ticket (a Lamport clock), so "earlier" holds across ranks too.
//   Afterwards every wave must have executed exactly once, on every rank.
// Rank 0 prints what `strata run FILE` prints; --time adds the time, the
// messages and where the ranks' time went. Errors are collective (main prints them on rank 0 only).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/spin_wait.hpp>
#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distributed_executor.hpp>
#include <strata/distributed/local_graph.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/distributed/read_edge_list_distributed.hpp>
#include <strata/distributed/watchdog.hpp>
#include <strata/version.hpp>

#include "commands.hpp"
#include "memory_budget.hpp"

namespace strata::tools {

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;

/// Every rank compares the arguments that shape the collective work with
/// rank 0's first: a mismatch is InvalidArgument on every rank (exit 2).
void agree_on_run_arguments(const distributed::Communicator& comm, const DistributedRunArgs& a) {
  const std::string mine = std::string("strata " STRATA_VERSION_STRING) + "\nFILE " + a.file +
                           "\n--mode " + execute_mode_name(a.mode) + "\n--wave-work " +
                           std::to_string(a.wave_work) + "\n--max-wall-time " +
                           std::to_string(a.max_wall_seconds) + "\n--time " +
                           (a.time ? "given" : "not given") + "\n";
  std::uint64_t size = mine.size();
  comm.broadcast_bytes(&size, sizeof size, 0);
  std::string root = mine;
  root.resize(static_cast<std::size_t>(size));
  comm.broadcast_bytes(root.data(), root.size(), 0);
  distributed::collective_phase(comm, [&] {
    distributed::check_mpi_timeout_environment();
    if (root == mine) return;
    throw distributed::OrderedError{
        std::uint64_t(comm.rank()),
        PlanError::invalid_argument("MPI rank " + std::to_string(comm.rank()) +
                                        " was started with other arguments than rank 0",
                                    "start every rank with the same 'strata run FILE "
                                    "--distributed ...' arguments")};
  });
}

/// The synthetic wave (thread-level), global wave ids; see the file comment.
template <class Ordinal, class Offset>
struct SyntheticWave {
  Kokkos::View<std::uint64_t*, Mem> finish, executions;  ///< per owned wave
  Kokkos::View<std::uint64_t*, Mem> remote_seen, remote_max;  ///< per owned wave
  Kokkos::View<std::uint64_t*, Mem> counters;  ///< the rank's clock, order violations
  Kokkos::View<Offset*, Mem> pred_row_map;     ///< owned wave -> its predecessors (global)
  Kokkos::View<Ordinal*, Mem> pred_entries;
  std::uint64_t lo = 0, n = 0, work = 0;

  KOKKOS_INLINE_FUNCTION TaskState operator()(Ordinal global) const {
    const std::uint64_t w = std::uint64_t(global) - lo;
    Kokkos::atomic_fetch_add(&executions(w), std::uint64_t(1));
    std::uint64_t busy = w;
    for (std::uint64_t i = 0; i < work; ++i) busy = busy * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t t = Kokkos::atomic_fetch_add(&counters(0), std::uint64_t(1)) + 1;
    std::uint64_t late = busy == 0x5eed5eed5eed5eedull ? 1 : 0;  // keeps the spin (never 1)
    std::uint64_t remote = 0;
    for (Offset e = pred_row_map(w); e < pred_row_map(w + 1); ++e) {
      const std::uint64_t p = std::uint64_t(pred_entries(e)) - lo;
      if (p < n) {
        const std::uint64_t f = volatile_load(&finish(p));
        if (f == 0 || f >= t) ++late;
      } else {
        ++remote;
      }
    }
    if (remote_seen(w) != remote || remote_max(w) >= t) ++late;
    if (late != 0) Kokkos::atomic_fetch_add(&counters(1), late);
    Kokkos::memory_fence();
    finish(w) = Kokkos::atomic_fetch_add(&counters(0), std::uint64_t(1)) + 1;
    return TaskState::Completed;
  }
};

/// A message carries the finish ticket of its `before`.
struct TicketMessages {
  Kokkos::View<std::uint64_t*, Mem> finish, remote_seen, remote_max, counters;
  std::uint64_t lo = 0;
  template <class Ordinal>
  KOKKOS_INLINE_FUNCTION void pack(Ordinal before, Ordinal, char* slot) const {
    const std::uint64_t v = finish(std::uint64_t(before) - lo);
    for (int b = 0; b < 8; ++b) slot[b] = char((v >> (8 * b)) & 0xff);
  }
  template <class Ordinal>
  KOKKOS_INLINE_FUNCTION void unpack(Ordinal, Ordinal after, const char* slot) const {
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= std::uint64_t(std::uint8_t(slot[b])) << (8 * b);
    const std::uint64_t w = std::uint64_t(after) - lo;
    Kokkos::atomic_fetch_add(&remote_seen(w), std::uint64_t(1));
    Kokkos::atomic_fetch_max(&remote_max(w), v);
    Kokkos::atomic_fetch_max(&counters(0), v);
  }
};

template <class Ordinal>
int plan_and_run(const distributed::Communicator& comm, const distributed::DistributedEdgeList& list,
                 const DistributedRunArgs& args, std::uint64_t budget) {
  using Dep = WaveDependency<Ordinal>;
  Space space;
  std::vector<Dep> deps, reversed;
  distributed::collective_phase(comm, [&] {
    distributed::reserve_entries(deps, list.dependencies.size(), "dependencies (planning copy)");
    distributed::reserve_entries(reversed, list.dependencies.size(), "dependencies (reversed)");
    for (const auto& d : list.dependencies) {
      deps.push_back({static_cast<Ordinal>(d.before), static_cast<Ordinal>(d.after)});
      reversed.push_back({static_cast<Ordinal>(d.after), static_cast<Ordinal>(d.before)});
    }
  });
  distributed::DistributedOptions options;
  options.rank_budget_bytes = budget;
  const auto plan = distributed::plan_barriers_distributed<Ordinal>(space, comm, list.wave_count,
                                                                    deps.data(), deps.size(), options);
  const auto graph = distributed::local_graph<Ordinal>(space, comm, plan, deps.data(), deps.size());
  // Predecessors: the reversed dependencies go to the owner of their `after`.
  const auto preds =
      distributed::local_graph<Ordinal>(space, comm, plan, reversed.data(), reversed.size());
  deps = {};
  reversed = {};
  const std::uint64_t lo = plan.first_wave, n = plan.shard.wave_count_of(comm.rank());

  SyntheticWave<Ordinal, Ordinal> wave;
  wave.finish = Kokkos::View<std::uint64_t*, Mem>("strata::run::finish", n);
  wave.executions = Kokkos::View<std::uint64_t*, Mem>("strata::run::executions", n);
  wave.remote_seen = Kokkos::View<std::uint64_t*, Mem>("strata::run::remote_seen", n);
  wave.remote_max = Kokkos::View<std::uint64_t*, Mem>("strata::run::remote_max", n);
  wave.counters = Kokkos::View<std::uint64_t*, Mem>("strata::run::counters", 2);
  wave.pred_row_map = preds.row_map;
  wave.pred_entries = preds.entries;
  wave.lo = lo;
  wave.n = n;
  wave.work = args.wave_work;
  const TicketMessages messages{wave.finish, wave.remote_seen, wave.remote_max, wave.counters, lo};

  LaunchConfig config;
  if (args.max_wall_seconds > 0)
    config.max_wall_time = std::chrono::nanoseconds(
        static_cast<std::int64_t>(std::llround(args.max_wall_seconds * 1e9)));
  distributed::ExchangeOptions exchange;
  exchange.message_bytes = sizeof(std::uint64_t);
  distributed::Executor<Space, Ordinal, Ordinal> executor(space, comm, plan, graph, config, exchange);
  RunOptions run_options;
  run_options.mode = args.mode;
  run_options.label = "strata::run";
  std::uint64_t runs = 0, drained = 0, requeues = 0, sent = 0, bytes = 0, segments = 0;
  double seconds = 0, rank_seconds = 0, wave_seconds = 0, idle_seconds = 0;
  distributed::DistributedRunReport report;
  // Every run completes at least one wave: at most `waves` runs.
  do {
    report = executor.run(wave, messages, run_options);
    ++runs;
    drained += report.drained ? 1 : 0;
    requeues += report.requeues;
    sent += report.messages_sent;
    bytes += report.bytes_sent;
    segments += report.segments_run;
    seconds += comm.max_double(report.elapsed_seconds);
    rank_seconds += report.elapsed_seconds;
    wave_seconds += report.wave_seconds;
    idle_seconds += report.idle_seconds;
  } while (!report.complete && runs <= list.wave_count);

  std::uint64_t wrong = 0;
  const auto executions = wave.executions;
  const auto finish = wave.finish;
  Kokkos::parallel_reduce(
      "strata::run::verify", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& count) {
        if (executions(w) != 1 || finish(w) == 0) ++count;
      },
      wrong);
  const auto counters = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wave.counters);
  wrong = comm.sum(wrong);
  const std::uint64_t late = comm.sum(std::uint64_t(counters(1)));
  if (!report.complete || wrong != 0 || late != 0)
    throw std::runtime_error("distributed run verification failed: " + std::to_string(wrong) +
                             " waves did not execute exactly once, " + std::to_string(late) +
                             " started before a predecessor finished (mode " +
                             execute_mode_name(args.mode) + ")");
  // --time: each rank's shares of its own run time, mean over the ranks
  // (DistributedRunReport::wave_seconds, idle_seconds).
  std::vector<double> shares = {0, 0};
  if (args.time) {
    const double own = rank_seconds > 0 ? rank_seconds : 1;
    shares = {wave_seconds / own, idle_seconds / own};
    comm.all_reduce_in_place(shares, MPI_SUM);
    for (double& share : shares) share /= comm.size();
  }
  if (comm.rank() != 0) return exit_ok;
  std::cout << "mode: " << execute_mode_name(args.mode) << "\n"
            << "reason: "
            << (args.mode == ExecuteMode::Automatic
                    ? std::string("each rank's executor chooses per segment (ExecutePolicy)")
                    : std::string("RunOptions::mode ") + execute_mode_name(args.mode))
            << "\n"
            << "verified " << list.wave_count << " waves, " << plan.group_count() << " layers\n"
            << "runs: " << runs << " (" << drained << " drained at the wall-time budget), "
            << requeues << " requeues\n";
  if (args.time) {
    const double per_wave =
        list.wave_count == 0 ? 0.0 : seconds * 1e6 / static_cast<double>(list.wave_count);
    std::cout << std::setprecision(6) << "time: " << seconds << " s, " << per_wave
              << " us per wave (" << Space::name() << ", " << comm.size() << " ranks, slowest rank)\n"
              << "messages: " << sent << " sent, " << bytes << " bytes, "
              << report.cross_rank_dependencies << " cross-rank dependencies, " << segments
              << " segments\n"
              << std::setprecision(3) << "ranks: " << 100 * shares[0] << " % running waves, "
              << 100 * shares[1] << " % waiting, "
              << 100 * std::max(0.0, 1 - shares[0] - shares[1])
              << " % exchanging messages (mean over the ranks)\n";
  }
  return exit_ok;
}

}  // namespace

int run_distributed(const DistributedRunArgs& args) {
  const distributed::Communicator comm(MPI_COMM_WORLD);
  agree_on_run_arguments(comm, args);
  const distributed::DistributedEdgeList list =
      distributed::read_edge_list_distributed(comm, args.file);
  // The budget and the ordinal width as `strata plan --distributed` picks them.
  const std::uint64_t budget =
      comm.min(physical_memory_bytes() / std::uint64_t(comm.ranks_on_node()));
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  if (list.wave_count <= max32 && list.dependency_count <= max32 && list.max_wave_id <= max32)
    return plan_and_run<std::uint32_t>(comm, list, args, budget);
  return plan_and_run<std::uint64_t>(comm, list, args, budget);
}

}  // namespace strata::tools
