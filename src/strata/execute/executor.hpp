#pragma once
// strata::Executor: runs a user's wave functor for every wave of a
// BarrierPlan, each wave once to completion and after all its predecessors,
// in one of three modes (execute_mode.hpp), driven by a LaunchConfig:
//
//  * worker_count caps the league of the persistent and dataflow launches
//    (RunOptions::league_size forces one; above the co-resident bound that is
//    NotCoResident, see detail/residency.hpp);
//  * max_wall_time: once it has passed (measured on the device clock, see
//    core/device_clock.hpp) no new wave starts, running waves finish, and
//    run() returns drained = true; run() again resumes, and the runs together
//    equal one uninterrupted run. Each run completes at least one wave, so a
//    loop of runs always ends;
//  * a Yielded or Requeued wave runs again without a host round trip (on its
//    team in the layered and persistent modes, through the ready queue in
//    the dataflow mode); more than RunOptions::max_requeues_per_wave for one
//    wave (over all runs since reset) is RequeueLimit naming it;
//  * a Faulted wave ends the run with WaveFaulted naming the lowest faulted
//    wave of the run; no wave of a later group starts after it in the
//    layered and persistent modes (the dataflow mode starts no wave at all
//    once the fault is recorded; a wave independent of the faulted one may
//    have started concurrently). After either error the executor keeps its
//    state (task_snapshot() shows it) and run() throws the same error until
//    reset().
//
// Memory visibility: every wave's writes are fenced before its successors
// can start (a kernel boundary in the layered mode, the device-wide barrier
// in the persistent mode, fence + team barrier before the release in the
// dataflow mode).
//
// The executor owns its device state in labelled Views (per-wave TaskState
// words and requeue counts, the run's control words, the group barrier, and
// the dataflow counters and queue, allocated on first use) and keeps shallow
// copies of the plan's and the graph's Views. The host holds a copy of
// plan.group_offsets (made once, at construction: the layered mode sizes its
// launches from it), the count of completed waves and the first open group.
//
// Host round trips per run(): none between groups or waves; one copy of the
// control words at the end, and, when the run stopped early (drain or
// error), one reduction over the wave states (the completed count and the
// first open group). reset() launches nothing: the next run's first kernel
// clears the states.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/device_barrier.hpp>
#include <strata/core/device_limits.hpp>
#include <strata/core/error.hpp>
#include <strata/core/league_rendezvous.hpp>
#include <strata/core/profiling_region.hpp>
#include <strata/core/storage.hpp>
#include <strata/execute/detail/dataflow.hpp>
#include <strata/execute/detail/executor_state.hpp>
#include <strata/execute/detail/layered.hpp>
#include <strata/execute/detail/persistent.hpp>
#include <strata/execute/detail/residency.hpp>
#include <strata/execute/detail/wave_invoke.hpp>
#include <strata/execute/execute_mode.hpp>
#include <strata/execute/execute_policy.hpp>
#include <strata/execute/launch_config.hpp>
#include <strata/execute/run_options.hpp>
#include <strata/execute/run_report.hpp>
#include <strata/execute/task_queue.hpp>
#include <strata/graph/dependency_graph.hpp>
#include <strata/plan/barrier_plan.hpp>

namespace strata {

template <class ExecSpace, class Ordinal = std::uint32_t, class Offset = std::uint32_t>
class Executor {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using team_member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using plan_type = BarrierPlan<ExecSpace, Ordinal>;
  using graph_type = DependencyGraph<ExecSpace, Ordinal, Offset>;

  /// `plan` and `graph` come from plan_barriers / build_dependency_graph on
  /// the same space (InvalidArgument if their wave counts differ);
  /// InvalidLaunchConfig for an unschedulable `config`.
  Executor(const ExecSpace& space, const plan_type& plan, const graph_type& graph,
           const LaunchConfig& config = {})
      : space_(space), plan_(plan), graph_(graph), config_(config),
        limits_(DeviceLimits::query(space)) {
    config_.validate();
    if (plan_.wave_count() != graph_.wave_count())
      throw PlanError::invalid_argument(
          "the plan has " + std::to_string(plan_.wave_count()) + " waves but the graph has " +
              std::to_string(graph_.wave_count()),
          "build the Executor from a plan and the DependencyGraph it was planned from");
    const auto offsets =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan_.group_offsets);
    host_offsets_.assign(offsets.data(), offsets.data() + offsets.extent(0));
    for (std::size_t g = 0; g + 1 < host_offsets_.size(); ++g)  // per group, not per wave
      widest_group_ = std::max(widest_group_, host_offsets_[g + 1] - host_offsets_[g]);
    const std::uint64_t waves = plan_.wave_count();
    state_ = allocate_view<decltype(state_)>(waves, "execute::wave_state");
    requeues_ = allocate_view<decltype(requeues_)>(waves, "execute::wave_requeues");
    control_ = allocate_view<decltype(control_)>(execute::detail::control_words,
                                                 "execute::control", true);
    control_host_ = Kokkos::create_mirror_view(control_);
    barrier_ = DeviceBarrier<memory_space>("strata::execute::group_barrier");
    rendezvous_ = LeagueRendezvous<memory_space>("strata::execute::league_rendezvous");
    reset();
  }

  // One executor owns one device state: copies would share it behind
  // separate host counters.
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  Executor(Executor&&) = default;
  Executor& operator=(Executor&&) = default;

  /// Runs the waves not completed yet (see the header comment). Functor:
  ///   team-level   KOKKOS_FUNCTION TaskState operator()(const team_member&, Ordinal) const
  ///   thread-level KOKKOS_FUNCTION TaskState operator()(Ordinal) const
  ///   staged       KOKKOS_FUNCTION P prepare(Ordinal) const, and
  ///                KOKKOS_FUNCTION TaskState operator()(Ordinal, const P&) const
  /// The staged form is thread-level in two halves: prepare() may read only
  /// what no wave writes (a matrix row, its values; P default-constructible),
  /// and the persistent mode runs it for a thread's wave of the next group
  /// while the device-wide barrier is crossed; the other modes call the two
  /// back to back. A wave that runs again reuses its P.
  /// run() after completion is a no-op report (waves_run 0, complete true).
  template <class Functor>
  RunReport run(const Functor& f, const RunOptions& options = {});

  bool complete() const { return completed_ == plan_.wave_count(); }
  std::uint64_t waves_completed() const { return completed_; }

  /// Every wave pending again (same plan), requeue counts and errors cleared.
  /// Nothing is launched here: the next run() clears the device state in its
  /// first kernel.
  void reset() {
    states_pending_reset_ = true;
    completed_ = 0;
    first_open_group_ = 0;
    error_.reset();
  }

  /// The live slot states: one TaskWorkItem per wave (state_word the wave's
  /// TaskState, priority_age its requeues so far, payload the wave id).
  std::vector<TaskWorkItem> task_snapshot() const {
    std::vector<TaskWorkItem> tasks(plan_.wave_count());
    if (states_pending_reset_) {  // reset() and no run since: every wave Queued
      for (std::size_t w = 0; w < tasks.size(); ++w)
        tasks[w] = TaskWorkItem{execute::detail::word_of(TaskState::Queued), 0, w};
      return tasks;
    }
    const auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), state_);
    const auto requeues = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), requeues_);
    for (std::size_t w = 0; w < tasks.size(); ++w)
      tasks[w] = TaskWorkItem{state(w), requeues(w), w};
    return tasks;
  }

  /// LaunchConfig::launch_request_for_tasks fed from task_snapshot() and the
  /// device's limits.
  LaunchRequest launch_request() const {
    LaunchRequest r = config_.launch_request_for_tasks(
        task_snapshot(), limits_.max_team_size, limits_.max_league_size,
        limits_.max_invocations_per_team);
    r.device_concurrency = limits_.concurrency;
    return r;
  }

  const LaunchConfig& config() const { return config_; }
  const DeviceLimits& device_limits() const { return limits_; }

 private:
  execute::detail::WaveState<ExecSpace, Ordinal> wave_state(std::uint32_t max_requeues) const {
    return execute::detail::WaveState<ExecSpace, Ordinal>{state_, requeues_, control_,
                                                         max_requeues};
  }
  void ensure_dataflow_storage() {
    const std::uint64_t waves = plan_.wave_count();
    const std::uint64_t capacity = execute::detail::queue_capacity(waves);
    if (remaining_.extent(0) == waves && queue_slots_.extent(0) == capacity) return;
    remaining_ = allocate_view<decltype(remaining_)>(waves, "execute::remaining_predecessors");
    queue_slots_ = allocate_view<decltype(queue_slots_)>(capacity, "execute::ready_queue");
    queue_sequence_ =
        allocate_view<decltype(queue_sequence_)>(capacity, "execute::ready_queue_sequence");
    dataflow_start_ =
        execute::detail::dataflow_start<ExecSpace, Ordinal, Offset>(space_, graph_.row_map,
                                                                   graph_.entries, waves);
  }

  ExecSpace space_;
  plan_type plan_;
  graph_type graph_;
  LaunchConfig config_;
  DeviceLimits limits_;
  std::vector<std::uint64_t> host_offsets_;
  std::uint64_t widest_group_ = 0;  ///< waves in the widest group (sizes the persistent league)
  Kokkos::View<std::uint32_t*, memory_space> state_;
  Kokkos::View<std::uint32_t*, memory_space> requeues_;
  Kokkos::View<std::uint64_t*, memory_space> control_;
  typename Kokkos::View<std::uint64_t*, memory_space>::HostMirror control_host_;
  DeviceBarrier<memory_space> barrier_;
  LeagueRendezvous<memory_space> rendezvous_;
  Kokkos::View<Offset*, memory_space> remaining_;
  Kokkos::View<Ordinal*, memory_space> queue_slots_;
  Kokkos::View<std::uint64_t*, memory_space> queue_sequence_;
  execute::detail::DataflowStart<ExecSpace, Ordinal, Offset> dataflow_start_;
  std::uint64_t completed_ = 0;
  std::uint64_t first_open_group_ = 0;
  /// The last automatic choice and what it was made for (run() above).
  struct AutoChoice {
    std::type_index functor;
    int team_size;
    ExecuteMode mode;
    std::string reason;
  };
  std::optional<AutoChoice> auto_choice_;
  bool states_pending_reset_ = true;  ///< reset() since the last run: the device state is stale
  std::optional<PlanError> error_;
};

template <class ExecSpace, class Ordinal, class Offset>
template <class Functor>
RunReport Executor<ExecSpace, Ordinal, Offset>::run(const Functor& f,
                                                     const RunOptions& options) {
  static_assert(execute::detail::is_wave_functor_v<Functor, team_member, Ordinal>,
                "a wave functor is callable as f(const team_member&, Ordinal) or f(Ordinal), "
                "or is staged (f.prepare(Ordinal) and f(Ordinal, prepared)), and returns "
                "TaskState");
  using namespace execute::detail;
  constexpr bool team_level = is_team_wave_functor<Functor, team_member, Ordinal>::value;
  if (error_) throw *error_;
  const ProfilingRegion region(options.label);
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t waves = plan_.wave_count();
  const std::uint64_t groups = plan_.group_count();
  const auto s = wave_state(options.max_requeues_per_wave);

  if (options.residency_timeout.count() <= 0)
    throw PlanError::invalid_launch_config(
        "residency_timeout",
        "RunOptions::residency_timeout is " + std::to_string(options.residency_timeout.count()) +
            " ns",
        "give the persistent league a positive time to start, e.g. the default 5 s");
  // The views, the barriers and the functor (which need not be default
  // constructible) by position; every count by name.
  PersistentKernel<ExecSpace, Ordinal, Functor> persistent{
      s, plan_.waves, plan_.group_offsets, barrier_, rendezvous_, f};
  persistent.first_group = first_open_group_;
  persistent.groups = groups;
  persistent.league = 1;  // set from the co-resident league below
  persistent.rendezvous_timeout_ns = static_cast<std::uint64_t>(options.residency_timeout.count());
  // What every launch asks of its league; each launch adds its waves.
  LeagueRequest asked;
  asked.team_size = options.team_size;
  asked.team_level = team_level;
  asked.worker_count = config_.worker_count;
  const auto league_for = [&](std::uint64_t useful_waves, std::uint32_t forced_league,
                              bool wave_per_thread) {
    LeagueRequest r = asked;
    r.useful_waves = useful_waves;
    r.forced_league = forced_league;
    r.wave_per_thread = wave_per_thread;
    return r;
  };
  RunReport report;
  report.mode = options.mode;
  // The automatic choice depends on the plan, the device, the functor's type
  // and the team size asked, not on the run: it is made once per functor
  // type and team size (a run of a few waves, e.g. a distributed segment,
  // would otherwise spend more on the choice than on its waves).
  const std::type_index functor_type(typeid(Functor));
  if (options.mode == ExecuteMode::Automatic && auto_choice_ &&
      auto_choice_->functor == functor_type && auto_choice_->team_size == options.team_size) {
    report.mode = auto_choice_->mode;
    report.reason = auto_choice_->reason;
  } else if (options.mode == ExecuteMode::Automatic) {
    const TeamShape shape =
        co_resident_league(space_, persistent, limits_,
                           league_for(waves == 0 ? 1 : waves, /*forced_league=*/0,
                                      /*wave_per_thread=*/false));
    ExecutionShape plan_shape;
    plan_shape.waves = waves;
    plan_shape.groups = groups;
    plan_shape.device_concurrency = limits_.concurrency;
    plan_shape.resident_teams = shape.league;
    plan_shape.host_backend = is_host_backend_v<ExecSpace>;
    plan_shape.widest_group = widest_group_;
    const TeamShape lanes =  // as the persistent mode would launch
        co_resident_league(space_, persistent, limits_,
                           league_for(widest_group_, /*forced_league=*/0,
                                      /*wave_per_thread=*/!team_level));
    plan_shape.persistent_waves_at_once =
        std::uint64_t(lanes.league) * (team_level ? 1u : std::uint64_t(lanes.team_size));
    const auto rec = ExecutePolicy::standard().recommend(plan_shape);
    report.mode = rec.mode;
    report.reason = rec.reason;
    auto_choice_ = AutoChoice{functor_type, options.team_size, rec.mode, rec.reason};
  } else {
    report.reason = std::string("RunOptions::mode ") + execute_mode_name(options.mode);
  }
  const auto finish = [&] {
    report.waves_total = completed_;
    report.complete = complete();
    report.elapsed_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (complete()) {
    finish();
    return report;
  }

  const std::uint64_t budget_ns = static_cast<std::uint64_t>(config_.max_wall_time.count());
  const std::uint64_t groups_before = first_open_group_;
  std::uint32_t league = 0;
  int team_size = 0;
  switch (report.mode) {
    case ExecuteMode::Persistent: {
      const TeamShape shape =
          co_resident_league(space_, persistent, limits_,
                             league_for(widest_group_, options.league_size,
                                        /*wave_per_thread=*/!team_level));
      league = persistent.league = shape.league;
      persistent.resumed = completed_ != 0;  // every run completes a wave: 0 means none done
      team_size = shape.team_size;
      start_run(space_, s, budget_ns, waves - completed_, states_pending_reset_);
      states_pending_reset_ = false;
      run_persistent(space_, persistent, team_size, options.label);
      break;
    }
    case ExecuteMode::Dataflow: {
      ensure_dataflow_storage();
      const ReadyQueue<ExecSpace, Ordinal> queue{queue_slots_, queue_sequence_, control_};
      const DataflowKernel<ExecSpace, Ordinal, Offset, Functor> kernel{
          s, queue, remaining_, graph_.row_map, graph_.entries, dataflow_start_.chain_next, f};
      const TeamShape shape =
          co_resident_league(space_, kernel, limits_,
                             league_for(waves - completed_, options.league_size,
                                        /*wave_per_thread=*/false));
      league = shape.league;
      team_size = shape.team_size;
      start_run(space_, s, budget_ns, waves - completed_, states_pending_reset_);
      states_pending_reset_ = false;
      prepare_dataflow(space_, s, queue, remaining_, graph_, dataflow_start_, completed_ == 0);
      run_dataflow(space_, kernel, league, team_size, options.label);
      break;
    }
    default: {  // Layered
      start_run(space_, s, budget_ns, waves - completed_, states_pending_reset_);
      states_pending_reset_ = false;
      LayeredLaunch launch;
      launch.first_group = first_open_group_;
      launch.team_size = options.team_size;
      launch.resumed = completed_ != 0;
      launch.label = options.label;
      const LaunchShape shape =
          run_layered(space_, s, plan_.waves, host_offsets_, f, limits_, launch);
      league = shape.league;
      team_size = shape.team_size;
      break;
    }
  }
  Kokkos::deep_copy(space_, control_host_, control_);
  space_.fence();
  const auto& c = control_host_;
  const std::uint64_t completed_before = completed_;
  const auto rendezvous = report.mode == ExecuteMode::Persistent && league > 1
                              ? rendezvous_.outcome()
                              : typename LeagueRendezvous<memory_space>::Outcome{};
  if (c(stop_word) == 0 && c(abort_word) == 0 && !rendezvous.abandoned) {
    // Nothing stopped the run: every mode then ran every remaining wave to
    // completion (layered and persistent: every group; dataflow: until no
    // wave was outstanding), so no pass over the states is needed.
    completed_ = waves;
    first_open_group_ = groups;
  } else {
    const Progress progress = progress_of(space_, s, plan_.level, groups);
    completed_ = progress.completed;
    first_open_group_ = progress.first_open_group;
  }
  report.waves_run = completed_ - completed_before;
  report.requeues = c(run_requeues);
  report.layers = first_open_group_ - groups_before;
  report.league_size = league;
  report.team_size = team_size;
  finish();
  if (rendezvous.abandoned) {  // no team ran a wave
    error_ = PlanError::not_co_resident(league, static_cast<std::uint64_t>(team_size),
                                        rendezvous.arrived, ExecSpace::name());
  } else if (c(abort_word) != 0) {  // a queue slot never freed: a team stopped running
    error_ = PlanError::not_co_resident(league, static_cast<std::uint64_t>(team_size),
                                        league > 1 ? league - 1 : 1, ExecSpace::name());
  } else if (c(fault_wave) != no_wave) {
    error_ = PlanError::wave_faulted(c(fault_wave));
  } else if (c(requeue_wave) != no_wave) {
    error_ = PlanError::requeue_limit(c(requeue_wave), options.max_requeues_per_wave);
  }
  if (error_) throw *error_;
  report.drained = !report.complete && c(stop_word) == stop_drain;
  return report;
}

}  // namespace strata
