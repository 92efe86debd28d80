#pragma once
// strata::distributed::Executor: runs a distributed plan's waves on their
// ranks, each wave once, after all its predecessors, local and remote.
//
//   auto plan  = distributed::plan_barriers_distributed(space, comm, waves, my_deps);
//   auto graph = distributed::local_graph(space, comm, plan, my_deps);
//   distributed::Executor<Space> executor(space, comm, plan, graph, config, {sizeof(Face)});
//   auto report = executor.run(wave_functor, message_hook);
//
// Each rank runs its own waves with the single-rank strata::Executor, one run
// per *segment* (detail/exchange_layout.hpp): a run of consecutive local
// levels that needs remote data only at its start and sends only at its end.
// A dependency whose ends live on two ranks is one message slot: when the
// segment holding `before` has finished, hook.pack(before, after, slot) writes
// what `after` needs into `message_bytes` bytes; the slots of a segment are
// sent as one message per destination rank (MPI_Isend). On the receiving
// rank, every expected message is posted once (MPI_Irecv) and progressed with
// MPI_Testsome while the rank works or waits; when every message a segment
// reads has arrived, hook.unpack(before, after, slot) runs for its slots and
// then the segment starts. There is no global barrier per layer: a rank waits
// only for the messages its next segment reads.
//
// ExchangeOptions::readiness = Readiness::Wave makes that wave-granular: the
// host counts, per wave, the local predecessors and message slots not in yet;
// the waves whose count is zero run in batches (one launch of the functor per
// batch, lowest level first, senders first within a level), a message is
// unpacked as it arrives and sent as soon as every wave it carries has
// completed (each message has its own tag, detail/message_engine.hpp, so
// they may leave in any order). A wave then waits for its own inputs,
// not for its segment's other messages nor for the slowest wave of the levels
// before it. What is said below of segments holds for batches (a batch's
// waves run once each; the wall time is checked between batches).
//
// Staging: pack and unpack run on the execution space, on device buffers.
// Where that memory is not host memory (CUDA, HIP), each message is copied to
// a host buffer before MPI_Isend and from it after it arrives, unless
// ExchangeOptions::gpu_aware_mpi says that the MPI reads device memory
// (Strata does not detect it); host backends send their buffers as they are.
//
// Collective (every rank calls the constructor, run() and reset() alike):
//  * options that shape the collective work (ExchangeOptions, the mode and
//    other RunOptions, LaunchConfig::max_wall_time) must be equal on every
//    rank: a difference is InvalidArgument on every rank, naming the field;
//  * a wave that returns TaskState::Faulted stops every rank (no segment
//    starts after the notice arrives) and run() throws WaveFaulted naming the
//    global wave on every rank (the lowest, when several faulted); run()
//    throws it again until reset();
//  * LaunchConfig::max_wall_time: once it has passed on a rank, that rank
//    starts no segment and tells the others, which stop too (a segment's own
//    run drains at the same limit, counted from its start, as the single-rank
//    Executor does); the running waves finish, every message sent is received, and run() returns
//    drained = true on every rank; run() again resumes, and the runs together
//    equal one uninterrupted run;
//  * a rank that dies or hangs ends the others in bounded time: every wait
//    runs under the MPI watchdog (watchdog.hpp, STRATA_MPI_TIMEOUT).
//
// The wave functor is a single-rank Executor's team-level or thread-level
// functor, called with global wave ids. Results are bitwise those of a
// single-rank run for a deterministic functor at every rank count: each wave
// reads the same inputs, whether they come from its rank or a message.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <queue>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>
#include <strata/distributed/communicator.hpp>
#include <strata/distributed/detail/exchange_layout.hpp>
#include <strata/distributed/detail/message_engine.hpp>
#include <strata/distributed/detail/small_range.hpp>
#include <strata/distributed/distributed_error.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/distributed/rank_storage.hpp>
#include <strata/execute/executor.hpp>
#include <strata/execute/run_options.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/execute/launch_config.hpp>
#include <strata/plan/barrier_plan.hpp>

namespace strata::distributed {

/// When a wave whose predecessors live on other ranks may start.
enum class Readiness : std::uint32_t {
  /// When every message its segment reads has arrived; each segment is one
  /// run of the single-rank Executor (in RunOptions::mode).
  Segment = 0,
  /// When its own messages and local predecessors are in: the rank runs its
  /// ready waves in batches (one launch each, at most
  /// ExchangeOptions::wave_batch waves, lowest level first) and sends a
  /// message as soon as every wave it carries has completed.
  Wave = 1,
};

/// The choices that shape the exchange (equal on every rank).
struct ExchangeOptions {
  /// Bytes per cross-rank dependency (one message slot); 0: the messages only
  /// order the waves (the hook's pack and unpack are not called).
  std::uint64_t message_bytes = 0;
  /// A segment sends after this many of its levels with remote successors
  /// (the aggregation knob: larger sends fewer, larger messages later); 0:
  /// like 1, and one message per sending wave and destination (with
  /// Readiness::Wave each leaves as soon as its wave completes).
  std::uint64_t output_levels_per_message = 1;
  /// The MPI reads and writes device memory: no host staging (not detected).
  bool gpu_aware_mpi = false;
  /// Segment- or wave-granular start of waves with remote predecessors.
  Readiness readiness = Readiness::Segment;
  /// Readiness::Wave: most waves per batch (one launch); 0: the larger of 4
  /// and the execution space's concurrency. Fewer: the first waves' messages
  /// leave sooner, more launches.
  std::uint64_t wave_batch = 0;
};

/// The hook of a run whose messages carry no data.
template <class Ordinal>
struct NoMessages {
  KOKKOS_FUNCTION void pack(Ordinal, Ordinal, char*) const {}
  KOKKOS_FUNCTION void unpack(Ordinal, Ordinal, const char*) const {}
};

/// What one run() did; counts are over all ranks (equal on every rank), the
/// time is this rank's.
struct DistributedRunReport {
  ExecuteMode mode = ExecuteMode::Automatic;  ///< as requested (segments choose in Automatic)
  std::uint64_t waves_run = 0;       ///< waves completed in this call
  std::uint64_t waves_total = 0;     ///< waves completed since the last reset
  std::uint64_t segments_run = 0;    ///< single-rank executor runs in this call
  std::uint64_t requeues = 0;        ///< Yielded + Requeued re-executions in this call
  std::uint64_t messages_sent = 0;   ///< MPI messages of wave data in this call
  std::uint64_t bytes_sent = 0;      ///< their payload
  std::uint64_t cross_rank_dependencies = 0;  ///< message slots of a whole run
  double elapsed_seconds = 0;        ///< this rank's host wall time of the call
  /// This rank's share of elapsed_seconds inside its wave launches (segments
  /// or batches, their fences included) and waiting with nothing ready to
  /// run (the final stop, where a rank waits for the others, included); the
  /// rest went to packing, sending, receiving and unpacking messages. A rank
  /// that mostly waits is held up by its predecessors on other ranks (the
  /// pipeline), one that mostly runs waves by its own work.
  double wave_seconds = 0;
  double idle_seconds = 0;
  bool drained = false;              ///< stopped at max_wall_time: run() resumes
  bool complete = false;             ///< every wave of every rank completed
};

namespace detail {

/// The wave functor called with global ids (team-level or thread-level form).
template <class F, class Ordinal, class Memory, class Team>
struct GlobalTeamWave {
  F f;
  Kokkos::View<const Ordinal*, Memory> global;
  Ordinal first;
  KOKKOS_FUNCTION TaskState operator()(const Team& team, const Ordinal w) const {
    return f(team, global(first + w));
  }
};
template <class F, class Ordinal, class Memory>
struct GlobalThreadWave {
  F f;
  Kokkos::View<const Ordinal*, Memory> global;
  Ordinal first;
  KOKKOS_FUNCTION TaskState operator()(const Ordinal w) const { return f(global(first + w)); }
};

/// One batch of ready waves (Readiness::Wave): each runs until it completes,
/// faults or passes its requeue limit (a Yielded or Requeued wave runs again
/// on its team, as in the single-rank layered mode). outcome(2i) is the last
/// state of batch entry i, outcome(2i + 1) the re-executions it took.
template <class F, class Ordinal, class Memory>
struct BatchWaves {
  F f;
  Kokkos::View<const Ordinal*, Memory> batch;   ///< positions
  Kokkos::View<const Ordinal*, Memory> global;  ///< position -> global wave
  Kokkos::View<std::uint32_t*, Memory> tries;   ///< per position: re-executions since reset
  Kokkos::View<std::uint32_t*, Memory> outcome;
  std::uint32_t max_requeues = 0;

  static KOKKOS_FUNCTION bool again(TaskState s) {
    return s == TaskState::Yielded || s == TaskState::Requeued;
  }
  // A team member, not a RangePolicy index (whose type is the backend's size_type).
  template <class Team, class = std::enable_if_t<!std::is_integral_v<Team>>>
  KOKKOS_FUNCTION void operator()(const Team& team) const {
    const std::size_t i = std::size_t(team.league_rank());
    const Ordinal p = batch(i);
    const std::uint32_t before = tries(p);
    std::uint32_t t = before;
    TaskState s = f(team, global(p));
    while (again(s) && ++t <= max_requeues) s = f(team, global(p));
    team.team_barrier();  // every thread has read tries(p)
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      tries(p) = t;
      outcome(2 * i) = std::uint32_t(s);
      outcome(2 * i + 1) = t - before;
    });
  }
  KOKKOS_FUNCTION void operator()(const std::size_t i) const {
    const Ordinal p = batch(i);
    const std::uint32_t before = tries(p);
    std::uint32_t t = before;
    TaskState s = f(global(p));
    while (again(s) && ++t <= max_requeues) s = f(global(p));
    tries(p) = t;
    outcome(2 * i) = std::uint32_t(s);
    outcome(2 * i + 1) = t - before;
  }
};

/// hook.pack of the send slots in a range (slot i at i * bytes).
template <class Hook, class Ordinal, class Memory>
struct PackSlots {
  Hook hook;
  Kokkos::View<const Ordinal*, Memory> before, after;
  Kokkos::View<char*, Memory> buffer;
  std::uint64_t bytes = 0;
  KOKKOS_FUNCTION void operator()(const std::size_t i) const {
    hook.pack(before(i), after(i), buffer.data() + i * bytes);
  }
};

/// hook.unpack of the receive slots in a range (slot i at i * bytes).
template <class Hook, class Ordinal, class Memory>
struct UnpackSlots {
  Hook hook;
  Kokkos::View<const Ordinal*, Memory> before, after;
  Kokkos::View<const char*, Memory> buffer;
  std::uint64_t bytes = 0;
  KOKKOS_FUNCTION void operator()(const std::size_t i) const {
    hook.unpack(before(i), after(i), buffer.data() + i * bytes);
  }
};

/// The fields of a run's collective options, for the agreement check.
inline std::vector<std::pair<const char*, std::uint64_t>> collective_fields(
    const ExchangeOptions& x, const LaunchConfig& c, const RunOptions& o) {
  return {{"ExchangeOptions::message_bytes", x.message_bytes},
          {"ExchangeOptions::output_levels_per_message", x.output_levels_per_message},
          {"ExchangeOptions::gpu_aware_mpi", x.gpu_aware_mpi ? 1u : 0u},
          {"ExchangeOptions::readiness", std::uint64_t(x.readiness)},
          {"ExchangeOptions::wave_batch", x.wave_batch},
          {"LaunchConfig::max_wall_time", std::uint64_t(c.max_wall_time.count())},
          {"RunOptions::mode", std::uint64_t(o.mode)},
          {"RunOptions::max_requeues_per_wave", o.max_requeues_per_wave},
          {"RunOptions::team_size", std::uint64_t(std::int64_t(o.team_size))},
          {"RunOptions::league_size", o.league_size}};
}

/// InvalidArgument on every rank when a field differs between ranks.
inline void agree_on_options(const Communicator& comm,
                             const std::vector<std::pair<const char*, std::uint64_t>>& fields) {
  std::vector<std::uint64_t> lo, hi;
  for (const auto& f : fields) lo.push_back(f.second);
  hi = lo;
  comm.all_reduce_in_place(lo, MPI_MIN);
  comm.all_reduce_in_place(hi, MPI_MAX);
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (lo[i] != hi[i])
      throw PlanError::invalid_argument(
          std::string(fields[i].first) + " differs between the MPI ranks (from " +
              std::to_string(lo[i]) + " to " + std::to_string(hi[i]) + ")",
          "give every rank the same options: the distributed executor's ranks run one "
          "schedule together");
}

}  // namespace detail

template <class ExecSpace, class Ordinal = DefaultOrdinal, class Offset = DefaultOffset>
class Executor {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using team_member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using plan_type = DistributedPlan<ExecSpace, Ordinal>;
  using graph_type = DependencyGraph<ExecSpace, Ordinal, Offset>;

  /// `plan` from plan_barriers_distributed, `graph` from local_graph (same
  /// comm, same space). Collective. InvalidArgument when the graph's rows are
  /// not the rank's waves or an exchange option differs between ranks;
  /// InvalidLaunchConfig for an unschedulable `config`.
  Executor(const ExecSpace& space, const Communicator& comm, const plan_type& plan,
           const graph_type& graph, const LaunchConfig& config = {},
           const ExchangeOptions& exchange = {})
      : space_(space), comm_(comm), config_(config), exchange_(exchange) {
    config_.validate();
    const std::uint64_t n = plan.shard.wave_count_of(comm.rank());
    collective_phase(comm, [&] {
      if (graph.wave_count() != n || plan.level.extent(0) != n)
        throw PlanError::invalid_argument(
            "rank " + std::to_string(comm.rank()) + " owns " + std::to_string(n) +
                " waves but its local graph has " + std::to_string(graph.wave_count()) + " rows",
            "build the graph with distributed::local_graph from the same plan");
    });
    detail::agree_on_options(comm, detail::collective_fields(exchange_, config_, RunOptions{}));
    first_wave_ = plan.first_wave;
    wave_count_ = plan.wave_count();
    const auto level = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.level);
    const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.row_map);
    const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), graph.entries);
    static const Offset no_rows[1] = {0};
    layout_ = detail::build_exchange_layout<Offset, Ordinal>(
        comm, plan.shard.wave_begin, level.data(), n != 0 ? row_map.data() : no_rows,
        entries.data(), exchange_.output_levels_per_message);
    cross_rank_dependencies_ = comm.sum(std::uint64_t(layout_.out_before.size()));
    // A rank without cross-rank dependencies has nothing to wait for: it runs
    // as segments (one single-rank Executor run) in either readiness.
    wave_mode_ = exchange_.readiness == Readiness::Wave &&
                 (!layout_.out_before.empty() || layout_.incoming_slots != 0);
    collective_phase(comm, [&] {
      build_segments(row_map, entries);
      if (wave_mode_) build_wave_schedule(row_map, entries);
    });
    // Collective: a rank whose engine cannot be built (a message beyond
    // MPI's int counts, a failed MPI_Comm_dup) fails every rank, not just
    // itself while the others wait in run().
    collective_phase(comm, [&] {
      engine_ = std::make_unique<detail::MessageEngine>(comm.comm(), layout_, exchange_.message_bytes);
    });
    reset();
  }

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Runs the waves not completed yet (see the file comment). Collective.
  /// Hook: KOKKOS_FUNCTION void pack(Ordinal before, Ordinal after, char* slot) const
  ///       KOKKOS_FUNCTION void unpack(Ordinal before, Ordinal after, const char* slot) const
  /// (slot: message_bytes bytes; NoMessages when the messages carry nothing).
  template <class Functor, class Hook = NoMessages<Ordinal>>
  DistributedRunReport run(const Functor& f, const Hook& hook = {}, const RunOptions& options = {});

  /// Every wave pending again. Call it on every rank before the next run().
  void reset() {
    engine_->cancel_receives();
    next_segment_ = 0;
    unpacked_ = ~std::size_t(0);
    completed_ = 0;
    error_.reset();
    missing_.resize(layout_.segments.size());
    for (std::size_t s = 0; s < missing_.size(); ++s) missing_[s] = layout_.segments[s].messages_needed;
    for (auto& e : executors_) e->reset();
    if (wave_mode_) {
      pending_ = inputs_;
      ready_ = {};
      for (std::uint64_t p = 0; p < pending_.size(); ++p)
        if (pending_[p] == 0) ready_.push(priority_[p]);
      for (std::size_t k = 0; k < outgoing_.size(); ++k) unfilled_[k] = outgoing_[k].waves;
      std::fill(sent_.begin(), sent_.end(), 0);
      filled_.clear();
      Kokkos::deep_copy(tries_, 0u);
    }
  }

  /// Whether every wave of this rank has completed.
  bool rank_complete() const {
    return wave_mode_ ? completed_ == layout_.order.size() : next_segment_ == layout_.segments.size();
  }
  /// Waves of this rank completed since the last reset.
  std::uint64_t waves_completed() const { return local_completed(); }
  /// Single-rank executor runs a whole run takes on this rank (its static
  /// segments; under Readiness::Wave the batches are counted as they run).
  std::size_t segment_count() const { return layout_.segments.size(); }
  std::uint64_t cross_rank_dependencies() const { return cross_rank_dependencies_; }

 private:
  using SegmentExecutor = strata::Executor<ExecSpace, Ordinal, Offset>;
  using OrdinalView = Kokkos::View<Ordinal*, memory_space>;
  using ByteView = Kokkos::View<char*, memory_space>;

  template <class RowMap, class Entries>
  void build_segments(const RowMap& row_map, const Entries& entries) {
    const std::uint64_t n = layout_.order.size();
    std::vector<std::uint64_t> position(n);
    for (std::uint64_t p = 0; p < n; ++p) position[layout_.order[p]] = p;
    // position -> global wave, on the device (the functor adapter reads it)
    global_ = allocate_view<OrdinalView>(n, "distributed::global_wave");
    auto global_host = Kokkos::create_mirror_view(global_);
    for (std::uint64_t p = 0; p < n; ++p) global_host(p) = Ordinal(first_wave_ + layout_.order[p]);
    Kokkos::deep_copy(global_, global_host);
    const std::uint64_t lo = first_wave_;
    // A segment's run drains at max_wall_time too (measured from its own
    // start), so one long segment (a rank's whole graph on one rank) stops in time.
    const LaunchConfig segment_config = config_;
    // Readiness::Wave runs batches, not segments: no single-rank executors.
    const std::size_t segment_runs = wave_mode_ ? 0 : layout_.segments.size();
    for (std::size_t si = 0; si < segment_runs; ++si) {
      const auto& s = layout_.segments[si];
      const std::uint64_t count = s.position_end - s.position_begin;
      BarrierPlan<ExecSpace, Ordinal> plan;
      plan.group_offsets = allocate_view<OrdinalView>(s.level_count + 1, "distributed::segment_groups");
      plan.waves = allocate_view<OrdinalView>(count, "distributed::segment_waves");
      plan.level = allocate_view<OrdinalView>(count, "distributed::segment_levels");
      auto offsets = Kokkos::create_mirror_view(plan.group_offsets);
      auto waves = Kokkos::create_mirror_view(plan.waves);
      auto levels = Kokkos::create_mirror_view(plan.level);
      std::uint64_t group = 0;
      offsets(0) = 0;
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t p = s.position_begin + i;
        if (i > 0 && layout_.level_of_position[p] != layout_.level_of_position[p - 1])
          offsets(++group) = Ordinal(i);
        waves(i) = Ordinal(i);
        levels(i) = Ordinal(group);
      }
      offsets(s.level_count) = Ordinal(count);
      Kokkos::deep_copy(plan.group_offsets, offsets);
      Kokkos::deep_copy(plan.waves, waves);
      Kokkos::deep_copy(plan.level, levels);
      // The segment's own edges, in segment ids (positions - position_begin).
      graph_type g;
      g.row_map = allocate_view<typename graph_type::row_map_type>(count + 1, "distributed::segment_row_map");
      auto rows = Kokkos::create_mirror_view(g.row_map);
      std::vector<Ordinal> targets;
      rows(0) = 0;
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t u = layout_.order[s.position_begin + i];
        for (Offset e = row_map(u); e < row_map(u + 1); ++e) {
          const std::uint64_t t = std::uint64_t(entries(e)) - lo;
          if (t >= n) continue;
          const std::uint64_t q = position[t];
          if (q >= s.position_begin && q < s.position_end)
            targets.push_back(Ordinal(q - s.position_begin));
        }
        rows(i + 1) = Offset(targets.size());
      }
      g.entries = allocate_view<typename graph_type::entries_type>(targets.size(), "distributed::segment_entries");
      Kokkos::deep_copy(g.row_map, rows);
      Kokkos::deep_copy(g.entries, Kokkos::View<const Ordinal*, Kokkos::HostSpace,
                                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                       targets.data(), targets.size()));
      executors_.push_back(std::make_unique<SegmentExecutor>(space_, plan, g, segment_config));
    }

    // The message slots on the device, and their host staging.
    const std::uint64_t bytes = exchange_.message_bytes;
    const auto to_device = [&](const std::vector<std::uint64_t>& v, const char* label) {
      OrdinalView d = allocate_view<OrdinalView>(v.size(), label);
      auto h = Kokkos::create_mirror_view(d);
      for (std::size_t i = 0; i < v.size(); ++i) h(i) = Ordinal(v[i]);
      Kokkos::deep_copy(d, h);
      return d;
    };
    out_before_ = to_device(layout_.out_before, "distributed::out_before");
    out_after_ = to_device(layout_.out_after, "distributed::out_after");
    in_before_ = to_device(layout_.in_before, "distributed::in_before");
    in_after_ = to_device(layout_.in_after, "distributed::in_after");
    in_slot_ = to_device(layout_.in_slot, "distributed::in_slot");
    send_ = allocate_view<ByteView>(layout_.out_before.size() * bytes, "distributed::send_slots");
    recv_ = allocate_view<ByteView>(layout_.incoming_slots * bytes, "distributed::recv_slots");
    if (exchange_.gpu_aware_mpi) {
      send_host_ = typename ByteView::HostMirror(send_.data(), send_.extent(0));
      recv_host_ = typename ByteView::HostMirror(recv_.data(), recv_.extent(0));
    } else {
      send_host_ = host_mirror(send_, "distributed::send_slots (host staging)");
      recv_host_ = host_mirror(recv_, "distributed::recv_slots (host staging)");
    }
  }

  /// Readiness::Wave: the rank's graph by position, the receive slots'
  /// readers and the outgoing messages' senders (host), and the batch views.
  template <class RowMap, class Entries>
  void build_wave_schedule(const RowMap& row_map, const Entries& entries) {
    const std::uint64_t n = layout_.order.size(), lo = first_wave_;
    std::vector<std::uint64_t> position(n);
    for (std::uint64_t p = 0; p < n; ++p) position[layout_.order[p]] = p;
    inputs_.assign(n, 0);
    succ_row_.assign(n + 1, 0);
    succ_.clear();
    for (std::uint64_t p = 0; p < n; ++p) {
      const std::uint64_t u = layout_.order[p];
      for (Offset e = row_map(u); e < row_map(u + 1); ++e) {
        const std::uint64_t t = std::uint64_t(entries(e)) - lo;
        if (t >= n) continue;
        succ_.push_back(position[t]);
        ++inputs_[position[t]];
      }
      succ_row_[p + 1] = succ_.size();
    }
    // Receive slots, in receive-buffer order: who reads each.
    reader_.assign(layout_.incoming_slots, 0);
    std::vector<std::uint64_t> before(layout_.incoming_slots), after(layout_.incoming_slots);
    for (std::size_t j = 0; j < layout_.in_slot.size(); ++j) {
      const std::uint64_t slot = layout_.in_slot[j];
      before[slot] = layout_.in_before[j];
      after[slot] = layout_.in_after[j];
      reader_[slot] = position[layout_.in_after[j] - lo];
      ++inputs_[reader_[slot]];
    }
    const auto to_device = [&](const std::vector<std::uint64_t>& v, const char* label) {
      OrdinalView d = allocate_view<OrdinalView>(v.size(), label);
      auto h = Kokkos::create_mirror_view(d);
      for (std::size_t i = 0; i < v.size(); ++i) h(i) = Ordinal(v[i]);
      Kokkos::deep_copy(d, h);
      return d;
    };
    recv_before_ = to_device(before, "distributed::recv_before");
    recv_after_ = to_device(after, "distributed::recv_after");
    // Outgoing messages: per destination in the layout's order (the receiver
    // matches them in that order), each sent once all its waves completed.
    outgoing_.clear();
    feeds_.assign(n, {});
    send_order_.assign(std::size_t(comm_.size()), {});
    for (const auto& seg : layout_.segments)
      for (const auto& to : seg.sends) {
        const std::size_t k = outgoing_.size();
        Outgoing m{to.destination, send_order_[std::size_t(to.destination)].size(), to.slot_begin,
                   to.slot_end, 0};
        for (std::uint64_t i = to.slot_begin; i < to.slot_end; ++i)
          if (i == to.slot_begin || layout_.out_before[i] != layout_.out_before[i - 1]) {
            ++m.waves;  // slots are sorted by `before` within a message
            feeds_[position[layout_.out_before[i] - lo]].push_back(k);
          }
        outgoing_.push_back(m);
        send_order_[std::size_t(to.destination)].push_back(k);
      }
    unfilled_.assign(outgoing_.size(), 0);
    sent_.assign(outgoing_.size(), 0);
    // Ready waves run lowest level first and, within a level, those with
    // remote successors first: their messages are what other ranks wait for.
    by_priority_.resize(n);
    std::iota(by_priority_.begin(), by_priority_.end(), std::uint64_t(0));
    std::stable_sort(by_priority_.begin(), by_priority_.end(), [&](std::uint64_t a, std::uint64_t b) {
      if (layout_.level_of_position[a] != layout_.level_of_position[b])
        return layout_.level_of_position[a] < layout_.level_of_position[b];
      return !feeds_[a].empty() && feeds_[b].empty();
    });
    priority_.resize(n);
    for (std::uint64_t q = 0; q < n; ++q) priority_[by_priority_[q]] = q;
    batch_ = allocate_view<OrdinalView>(std::max<std::uint64_t>(n, 1), "distributed::batch");
    batch_host_ = host_mirror(batch_, "distributed::batch (host)");
    outcome_ = allocate_view<U32View>(2 * std::max<std::uint64_t>(n, 1), "distributed::batch_outcome");
    outcome_host_ = host_mirror(outcome_, "distributed::batch_outcome (host)");
    tries_ = allocate_view<U32View>(std::max<std::uint64_t>(n, 1), "distributed::requeues");
  }

  /// This rank's time in wave launches and waiting (DistributedRunReport).
  struct RankTimes {
    double waves = 0, idle = 0;
  };
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  /// Readiness::Wave: runs ready batches until the rank completes, a stop
  /// notice arrives, the wall time passes or a wave does not complete.
  template <class Functor, class Hook, class Arrival>
  void run_waves(const Functor& f, const Hook& hook, const RunOptions& options,
                 std::chrono::steady_clock::time_point deadline, const Arrival& on_arrival,
                 std::uint64_t& batches_run, std::uint64_t& requeues,
                 std::optional<OrderedError>& local_error, RankTimes& times);

  /// Readiness::Wave: a wave completed; its successors and messages count it.
  void wave_completed(std::uint64_t p) {
    ++completed_;
    for (std::uint64_t e = succ_row_[p]; e < succ_row_[p + 1]; ++e)
      if (--pending_[succ_[e]] == 0) ready_.push(priority_[succ_[e]]);
    for (std::uint64_t k : feeds_[p])
      if (--unfilled_[k] == 0) filled_.push_back(k);
  }

  /// Readiness::Wave: packs and sends every message whose waves completed,
  /// unless an earlier message to its destination with the same tag is still
  /// unsent (the engine's tag_space(); then it waits for that one).
  template <class Hook>
  void send_filled(const Hook& hook) {
    const std::uint64_t bytes = exchange_.message_bytes;
    const std::uint64_t tags = engine_->tag_space();
    sendable_.clear();
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t i = 0; i < filled_.size();) {
        const std::size_t k = filled_[i];
        const Outgoing& m = outgoing_[k];
        if (m.number >= tags &&
            !sent_[send_order_[std::size_t(m.destination)][m.number - tags]]) {
          ++i;
          continue;
        }
        sent_[k] = 1;  // marked now, sent below in this order
        sendable_.push_back(k);
        filled_[i] = filled_.back();
        filled_.pop_back();
        moved = true;
      }
    }
    if (sendable_.empty()) return;
    auto& order = pack_order_;  // sendable_ keeps the send order
    order = sendable_;
    if (bytes != 0) {
      std::sort(order.begin(), order.end());  // adjacent messages: one launch
      for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i + 1;
        while (j < order.size() && outgoing_[order[j]].slot_begin == outgoing_[order[j - 1]].slot_end) ++j;
        const std::uint64_t b = outgoing_[order[i]].slot_begin, e = outgoing_[order[j - 1]].slot_end;
        detail::for_range(space_, "strata::distributed::pack", b, e,
                          detail::PackSlots<Hook, Ordinal, memory_space>{hook, out_before_, out_after_, send_, bytes});
        if (staged() && !exchange_.gpu_aware_mpi) {
          const Kokkos::pair<std::size_t, std::size_t> range(b * bytes, e * bytes);
          Kokkos::deep_copy(space_, Kokkos::subview(send_host_, range), Kokkos::subview(send_, range));
        }
        i = j;
      }
      space_.fence();
    }
    for (std::size_t k : sendable_) {
      const Outgoing& m = outgoing_[k];
      engine_->send(m.destination, m.number, send_host_.data() + m.slot_begin * bytes,
                    m.slot_end - m.slot_begin);
    }
  }

  /// Readiness::Wave: a message arrived: unpacked at once, its readers count it.
  template <class Hook>
  void wave_arrived(std::size_t m, const Hook& hook) {
    const auto& in = layout_.incoming[m];
    const std::uint64_t bytes = exchange_.message_bytes;
    if (bytes != 0 && in.slot_end > in.slot_begin) {
      if (staged() && !exchange_.gpu_aware_mpi) {
        const Kokkos::pair<std::size_t, std::size_t> range(in.slot_begin * bytes, in.slot_end * bytes);
        Kokkos::deep_copy(space_, Kokkos::subview(recv_, range), Kokkos::subview(recv_host_, range));
      }
      detail::for_range(space_, "strata::distributed::unpack", in.slot_begin, in.slot_end,
                        detail::UnpackSlots<Hook, Ordinal, memory_space>{hook, recv_before_, recv_after_, recv_, bytes});
    }
    for (std::uint64_t slot = in.slot_begin; slot < in.slot_end; ++slot)
      if (--pending_[reader_[slot]] == 0) ready_.push(priority_[reader_[slot]]);
  }

  /// Waves of the finished segments, and of the one a drain interrupted.
  std::uint64_t local_completed() const {
    if (wave_mode_) return completed_;
    return completed_ +
           (next_segment_ < executors_.size() ? executors_[next_segment_]->waves_completed() : 0);
  }

  static constexpr bool staged() {
    return !std::is_same_v<typename ByteView::HostMirror::memory_space, memory_space>;
  }

  /// A message arrived: its slots go to the device, its readers count it.
  void arrived(std::size_t m) {
    const auto& in = layout_.incoming[m];
    const std::uint64_t bytes = exchange_.message_bytes;
    if (staged() && !exchange_.gpu_aware_mpi && bytes != 0) {
      const Kokkos::pair<std::size_t, std::size_t> range(in.slot_begin * bytes, in.slot_end * bytes);
      Kokkos::deep_copy(space_, Kokkos::subview(recv_, range), Kokkos::subview(recv_host_, range));
    }
    for (std::uint64_t s : in.segments) --missing_[s];
  }

  ExecSpace space_;
  Communicator comm_;
  LaunchConfig config_;
  ExchangeOptions exchange_;
  std::uint64_t first_wave_ = 0, wave_count_ = 0, cross_rank_dependencies_ = 0;
  detail::ExchangeLayout layout_;
  std::vector<std::unique_ptr<SegmentExecutor>> executors_;
  OrdinalView global_, out_before_, out_after_, in_before_, in_after_, in_slot_;
  ByteView send_, recv_;
  typename ByteView::HostMirror send_host_, recv_host_;
  std::unique_ptr<detail::MessageEngine> engine_;
  std::vector<std::uint64_t> missing_;  ///< per segment: messages not arrived yet
  std::size_t next_segment_ = 0;
  std::size_t unpacked_ = ~std::size_t(0);  ///< the segment whose messages are unpacked
  std::uint64_t completed_ = 0;
  std::optional<PlanError> error_;
  // Readiness::Wave (build_wave_schedule)
  using U32View = Kokkos::View<std::uint32_t*, memory_space>;
  struct Outgoing {
    int destination = 0;
    std::uint64_t number = 0;                    ///< its place among the messages to `destination`
    std::uint64_t slot_begin = 0, slot_end = 0;  ///< into the send buffer
    std::uint64_t waves = 0;                     ///< distinct waves whose slots it carries
  };
  bool wave_mode_ = false;
  std::vector<std::uint64_t> inputs_;             ///< per position: local predecessors + receive slots
  std::vector<std::uint64_t> pending_;            ///< per position: inputs not in yet
  std::vector<std::uint64_t> succ_row_, succ_;    ///< per position: local successors
  std::vector<std::vector<std::size_t>> feeds_;   ///< per position: outgoing messages it fills
  std::vector<std::uint64_t> reader_;             ///< per receive slot: the position reading it
  std::vector<Outgoing> outgoing_;
  std::vector<std::uint64_t> unfilled_;           ///< per outgoing message: its waves not completed
  std::vector<std::vector<std::size_t>> send_order_;  ///< per destination: its messages in order
  std::vector<char> sent_;                        ///< per outgoing message
  std::vector<std::size_t> filled_, sendable_;     ///< filled and not sent; to send now
  std::vector<std::size_t> pack_order_;
  std::vector<std::uint64_t> by_priority_, priority_;  ///< priority <-> position
  std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<std::uint64_t>> ready_;  ///< priorities
  OrdinalView batch_, recv_before_, recv_after_;
  typename OrdinalView::HostMirror batch_host_;
  U32View outcome_, tries_;
  typename U32View::HostMirror outcome_host_;
};

template <class ExecSpace, class Ordinal, class Offset>
template <class Functor, class Hook>
DistributedRunReport Executor<ExecSpace, Ordinal, Offset>::run(const Functor& f, const Hook& hook,
                                                                const RunOptions& options) {
  constexpr bool team_level =
      std::is_invocable_r_v<TaskState, const Functor&, const team_member&, Ordinal>;
  static_assert(team_level || std::is_invocable_r_v<TaskState, const Functor&, Ordinal>,
                "the distributed executor's wave functor is callable as f(const team_member&, "
                "Ordinal) or f(Ordinal), with global wave ids, and returns TaskState");
  using Wave = std::conditional_t<team_level,
                                  detail::GlobalTeamWave<Functor, Ordinal, memory_space, team_member>,
                                  detail::GlobalThreadWave<Functor, Ordinal, memory_space>>;
  const auto start = std::chrono::steady_clock::now();
  detail::agree_on_options(comm_, detail::collective_fields(exchange_, config_, options));
  DistributedRunReport report;
  report.mode = options.mode;
  report.cross_rank_dependencies = cross_rank_dependencies_;
  if (error_) throw *error_;
  if (!engine_->posted()) engine_->post_receives(layout_, recv_host_.data());
  engine_->clear_counters();
  const std::uint64_t bytes = exchange_.message_bytes;
  const auto deadline = start + config_.max_wall_time;
  const std::uint64_t completed_before = local_completed();
  std::uint64_t segments_run = 0, requeues = 0;
  std::optional<OrderedError> local_error;
  RankTimes times;
  const auto on_arrival = [&](std::size_t m) {
    if (wave_mode_) wave_arrived(m, hook);
    else arrived(m);
  };
  if (wave_mode_) {
    run_waves(f, hook, options, deadline, on_arrival, segments_run, requeues, local_error, times);
  } else {
    detail::WatchedWait wait("MPI_Testsome (distributed executor)", comm_.rank());
    detail::Backoff backoff;
    while (next_segment_ < layout_.segments.size()) {
      const auto iteration = Clock::now();
      if (engine_->progress(on_arrival)) {
        wait.progressed();
        backoff.busy();
      }
      // A rank whose next segment is ready when run() starts runs it before it
      // looks at the wall time or a stop notice: the unfinished segment with
      // the lowest first level is always ready then (every message sent
      // before was received in the last stop), so a loop of runs always ends.
      const bool ready = missing_[next_segment_] == 0;
      if (!(ready && segments_run == 0)) {
        if (engine_->stop_noticed()) break;
        if (std::chrono::steady_clock::now() >= deadline) {
          engine_->notify_stop();
          break;
        }
      }
      if (!ready) {
        backoff.idle();
        times.idle += seconds_since(iteration);
        continue;
      }
      const auto& seg = layout_.segments[next_segment_];
      if (bytes != 0 && seg.in_end > seg.in_begin && unpacked_ != next_segment_) {
        const auto in_before = in_before_, in_after = in_after_, in_slot = in_slot_;
        const auto recv = recv_;
        detail::for_range(
            space_, "strata::distributed::unpack", seg.in_begin, seg.in_end,
            KOKKOS_LAMBDA(const std::size_t i) {
              hook.unpack(in_before(i), in_after(i), recv.data() + std::size_t(in_slot(i)) * bytes);
            });
      }
      unpacked_ = next_segment_;  // a segment resumed after a drain is not unpacked again
      wait.pause();                // a segment's own run time is no MPI wait
      try {
        const Wave wave{f, global_, Ordinal(seg.position_begin)};
        const auto launched = Clock::now();
        const RunReport segment = executors_[next_segment_]->run(wave, options);
        times.waves += seconds_since(launched);
        requeues += segment.requeues;
        if (!segment.complete) {
          engine_->notify_stop();  // drained inside the segment: run() resumes it
          break;
        }
      } catch (const PlanError& e) {
        PlanError global = e;
        std::uint64_t key = 0;
        if (e.kind() == ErrorKind::WaveFaulted || e.kind() == ErrorKind::RequeueLimit) {
          const auto ids = Kokkos::create_mirror_view_and_copy(
              Kokkos::HostSpace(),
              Kokkos::subview(global_, Kokkos::pair<std::size_t, std::size_t>(
                                           seg.position_begin + e.fields().wave,
                                           seg.position_begin + e.fields().wave + 1)));
          key = ids(0);
          global = e.kind() == ErrorKind::WaveFaulted
                       ? PlanError::wave_faulted(key)
                       : PlanError::requeue_limit(key, options.max_requeues_per_wave);
        }
        local_error = OrderedError{key, global};
        engine_->notify_stop();
        break;
      } catch (const std::bad_alloc&) {
        // Any other failure of one rank's segment stops every rank, typed,
        // instead of leaving the others to the watchdog.
        local_error = OrderedError{
            0, PlanError::storage_reserve_failed("distributed executor segment", 0,
                                                 "a segment's run could not allocate")};
        engine_->notify_stop();
        break;
      }
      if (seg.out_end > seg.out_begin) {
        if (bytes != 0) {
          const auto out_before = out_before_, out_after = out_after_;
          const auto send = send_;
          detail::for_range(
              space_, "strata::distributed::pack", seg.out_begin, seg.out_end,
              KOKKOS_LAMBDA(const std::size_t i) {
                hook.pack(out_before(i), out_after(i), send.data() + i * bytes);
              });
          if (staged() && !exchange_.gpu_aware_mpi) {
            const Kokkos::pair<std::size_t, std::size_t> range(seg.out_begin * bytes,
                                                               seg.out_end * bytes);
            Kokkos::deep_copy(space_, Kokkos::subview(send_host_, range),
                              Kokkos::subview(send_, range));
          }
          space_.fence();
        }
        for (const auto& to : seg.sends)
          engine_->send(to.destination, engine_->sent_to(to.destination),
                        send_host_.data() + to.slot_begin * bytes,
                        to.slot_end - to.slot_begin);
      }
      completed_ += seg.position_end - seg.position_begin;
      ++next_segment_;
      ++segments_run;
      wait.progressed();
      backoff.busy();
    }
  }
  const auto stopping = Clock::now();
  engine_->stop(on_arrival);
  space_.fence();
  times.idle += seconds_since(stopping);  // waiting for the other ranks to stop
  const std::uint64_t messages = comm_.sum(engine_->messages_sent());
  const std::uint64_t sent = comm_.sum(engine_->bytes_sent());
  const std::uint64_t run_total = comm_.sum(local_completed() - completed_before);
  const std::uint64_t total = comm_.sum(local_completed());
  const std::uint64_t segments = comm_.sum(segments_run);
  const std::uint64_t all_requeues = comm_.sum(requeues);
  try {
    agree_on_errors(comm_, local_error);
  } catch (const PlanError& e) {
    error_ = e;
    throw;
  }
  report.waves_run = run_total;
  report.waves_total = total;
  report.segments_run = segments;
  report.requeues = all_requeues;
  report.messages_sent = messages;
  report.bytes_sent = sent;
  report.complete = total == wave_count_;
  report.drained = !report.complete;
  report.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.wave_seconds = times.waves;
  report.idle_seconds = times.idle;
  return report;
}

template <class ExecSpace, class Ordinal, class Offset>
template <class Functor, class Hook, class Arrival>
void Executor<ExecSpace, Ordinal, Offset>::run_waves(
    const Functor& f, const Hook& hook, const RunOptions& options,
    std::chrono::steady_clock::time_point deadline, const Arrival& on_arrival,
    std::uint64_t& batches_run, std::uint64_t& requeues, std::optional<OrderedError>& local_error,
    RankTimes& times) {
  constexpr bool team_level =
      std::is_invocable_r_v<TaskState, const Functor&, const team_member&, Ordinal>;
  const std::uint64_t n = layout_.order.size();
  // A wide batch holds back the messages of its first waves until its last
  // has run; a narrow one pays a launch and a host round trip per few waves.
  // By default a batch fills the space once, and takes at least 4 waves (one
  // launch per wave costs more than the earlier messages gain on one thread).
  const std::uint64_t cap = exchange_.wave_batch != 0
                                ? exchange_.wave_batch
                                : std::max<std::uint64_t>(4, std::uint64_t(space_.concurrency()));
  const detail::BatchWaves<Functor, Ordinal, memory_space> kernel{
      f, batch_, global_, tries_, outcome_, options.max_requeues_per_wave};
  const std::string label = options.label + "::distributed_batch";
  detail::WatchedWait wait("MPI_Testsome (distributed executor)", comm_.rank());
  detail::Backoff backoff;
  send_filled(hook);  // messages held back by a drain
  while (completed_ < n) {
    const auto iteration = Clock::now();
    if (engine_->progress(on_arrival)) {
      wait.progressed();
      backoff.busy();
    }
    // As with segments: the first batch of a run goes before the wall time
    // and stop checks (the globally lowest unfinished wave is ready then).
    const bool ready = !ready_.empty();
    if (!(ready && batches_run == 0)) {
      if (engine_->stop_noticed()) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        engine_->notify_stop();
        break;
      }
    }
    if (!ready) {
      backoff.idle();
      times.idle += seconds_since(iteration);
      continue;
    }
    std::size_t count = 0;
    while (!ready_.empty() && count < cap) {
      batch_host_(count++) = Ordinal(by_priority_[ready_.top()]);
      ready_.pop();
    }
    wait.pause();  // the batch's own run time is no MPI wait
    const auto launched = Clock::now();
    try {
      const Kokkos::pair<std::size_t, std::size_t> entries(0, count), outcomes(0, 2 * count);
      Kokkos::deep_copy(space_, Kokkos::subview(batch_, entries), Kokkos::subview(batch_host_, entries));
      if constexpr (team_level) {
        const auto policy = options.team_size > 0
                                ? Kokkos::TeamPolicy<ExecSpace>(space_, int(count), options.team_size)
                                : Kokkos::TeamPolicy<ExecSpace>(space_, int(count), Kokkos::AUTO);
        Kokkos::parallel_for(label, policy, kernel);
      } else {
        Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(space_, 0, count), kernel);
      }
      Kokkos::deep_copy(space_, Kokkos::subview(outcome_host_, outcomes), Kokkos::subview(outcome_, outcomes));
      space_.fence();
      times.waves += seconds_since(launched);
    } catch (const std::bad_alloc&) {
      local_error = OrderedError{
          0, PlanError::storage_reserve_failed("distributed executor batch", 0,
                                               "a batch's run could not allocate")};
      engine_->notify_stop();
      break;
    }
    ++batches_run;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t p = std::uint64_t(batch_host_(i));
      const auto state = TaskState(outcome_host_(2 * i));
      requeues += outcome_host_(2 * i + 1);
      if (state == TaskState::Completed) {
        wave_completed(p);
        continue;
      }
      // A wave that did not complete: the lowest global wave of the batch names the error.
      const std::uint64_t key = first_wave_ + layout_.order[p];
      if (local_error && local_error->key <= key) continue;
      local_error = OrderedError{
          key, state == TaskState::Yielded || state == TaskState::Requeued
                   ? PlanError::requeue_limit(key, options.max_requeues_per_wave)
                   : PlanError::wave_faulted(key)};
    }
    if (local_error) {
      engine_->notify_stop();
      break;
    }
    send_filled(hook);
    wait.progressed();
    backoff.busy();
  }
}

}  // namespace strata::distributed
