#include <strata/core/error.hpp>

#include <utility>

namespace strata {

namespace {
std::string prefixed(ErrorKind kind, const std::string& body) {
  return std::string(error_kind_name(kind)) + ": " + body;
}
const char* const kShardFix =
    "Fix: shard the dependency graph before barrier planning (strata's distributed/ "
    "layer), or plan with 64-bit ordinals.";
}  // namespace

const char* error_kind_name(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::InvalidWave: return "InvalidWave";
    case ErrorKind::SelfDependency: return "SelfDependency";
    case ErrorKind::Cycle: return "Cycle";
    case ErrorKind::CountOverflow: return "CountOverflow";
    case ErrorKind::StorageReserveFailed: return "StorageReserveFailed";
    case ErrorKind::InvalidArgument: return "InvalidArgument";
    case ErrorKind::ParseError: return "ParseError";
    case ErrorKind::IoError: return "IoError";
    case ErrorKind::InvalidLaunchConfig: return "InvalidLaunchConfig";
    case ErrorKind::InvalidDeviceLimits: return "InvalidDeviceLimits";
    case ErrorKind::InvalidTaskState: return "InvalidTaskState";
    case ErrorKind::MemoryConstrained: return "MemoryConstrained";
    case ErrorKind::InsufficientRanks: return "InsufficientRanks";
    case ErrorKind::WaveFaulted: return "WaveFaulted";
    case ErrorKind::RequeueLimit: return "RequeueLimit";
    case ErrorKind::NotCoResident: return "NotCoResident";
    case ErrorKind::RankTimeout: return "RankTimeout";
  }
  return "Unknown";
}

PlanError PlanError::invalid_wave(std::uint64_t wave_count, std::uint64_t before,
                                  std::uint64_t after) {
  PlanError e(ErrorKind::InvalidWave,
              prefixed(ErrorKind::InvalidWave,
                       "dependency references invalid wave before=" + std::to_string(before) +
                           " after=" + std::to_string(after) +
                           " for wave_count=" + std::to_string(wave_count) +
                           ". Fix: emit dependencies only over normalized wave indices "
                           "0..wave_count-1."));
  e.wave_count_ = wave_count;
  e.before_ = before;
  e.after_ = after;
  return e;
}

PlanError PlanError::self_dependency(std::uint64_t wave) {
  PlanError e(ErrorKind::SelfDependency,
              prefixed(ErrorKind::SelfDependency,
                       "wave " + std::to_string(wave) +
                           " depends on itself. Fix: remove the self-edge or split the wave "
                           "into distinct producer/consumer phases."));
  e.wave_ = wave;
  return e;
}

PlanError PlanError::cycle(std::uint64_t unscheduled_waves) {
  PlanError e(ErrorKind::Cycle,
              prefixed(ErrorKind::Cycle,
                       "wave dependency graph contains a cycle with " +
                           std::to_string(unscheduled_waves) +
                           " unscheduled waves. Fix: break the cyclic dataflow edge or insert "
                           "an explicit iterative fixed-point kernel."));
  e.unscheduled_waves_ = unscheduled_waves;
  return e;
}

PlanError PlanError::count_overflow(std::string field) {
  PlanError e(ErrorKind::CountOverflow,
              prefixed(ErrorKind::CountOverflow,
                       "barrier planner overflowed while computing " + field + ". " + kShardFix));
  e.field_ = std::move(field);
  return e;
}

PlanError PlanError::storage_reserve_failed(std::string field, std::uint64_t requested,
                                            std::string message) {
  PlanError e(ErrorKind::StorageReserveFailed,
              prefixed(ErrorKind::StorageReserveFailed,
                       "barrier planner could not reserve " + std::to_string(requested) + " " +
                           field + " entries: " + message + ". " + kShardFix));
  e.field_ = std::move(field);
  e.requested_ = requested;
  e.message_ = std::move(message);
  return e;
}

PlanError PlanError::invalid_argument(std::string what, std::string fix) {
  PlanError e(ErrorKind::InvalidArgument,
              prefixed(ErrorKind::InvalidArgument, what + ". Fix: " + fix));
  e.message_ = std::move(what);
  return e;
}

PlanError PlanError::parse_error(std::string source, std::uint64_t line, std::string what,
                                 std::string fix) {
  PlanError e(ErrorKind::ParseError,
              prefixed(ErrorKind::ParseError, source + ":" + std::to_string(line) + ": " +
                                                  what + ". Fix: " + fix));
  e.field_ = std::move(source);
  e.line_ = line;
  e.message_ = std::move(what);
  return e;
}

PlanError PlanError::io_error(std::string source, std::string what) {
  PlanError e(ErrorKind::IoError,
              prefixed(ErrorKind::IoError, source + ": " + what +
                                               ". Fix: check that the file exists and is "
                                               "readable."));
  e.field_ = std::move(source);
  e.message_ = std::move(what);
  return e;
}

PlanError PlanError::invalid_launch_config(std::string field, std::string what, std::string fix) {
  PlanError e(ErrorKind::InvalidLaunchConfig,
              prefixed(ErrorKind::InvalidLaunchConfig, what + ". Fix: " + fix));
  e.field_ = std::move(field);
  e.message_ = std::move(what);
  return e;
}

PlanError PlanError::invalid_device_limits(std::string field, std::string what) {
  PlanError e(ErrorKind::InvalidDeviceLimits,
              prefixed(ErrorKind::InvalidDeviceLimits,
                       "malformed adapter limits: " + what +
                           ". Fix: pass the limits DeviceLimits::query<ExecSpace>() reports, or "
                           "check the values read from the backend."));
  e.field_ = std::move(field);
  e.message_ = std::move(what);
  return e;
}

PlanError PlanError::invalid_task_state(std::uint64_t slot, std::uint32_t word) {
  PlanError e(ErrorKind::InvalidTaskState,
              prefixed(ErrorKind::InvalidTaskState,
                       "task slot " + std::to_string(slot) + " holds unknown state word " +
                           std::to_string(word) +
                           ". Fix: write one of the TaskState values (Empty=0 .. Faulted=7) "
                           "into every slot before building a launch request."));
  e.slot_ = slot;
  e.state_word_ = word;
  return e;
}

PlanError PlanError::memory_constrained(std::uint64_t needed_bytes, std::uint64_t budget_bytes) {
  PlanError e(ErrorKind::MemoryConstrained,
              prefixed(ErrorKind::MemoryConstrained,
                       "planning needs " + std::to_string(needed_bytes) +
                           " bytes of device memory but the budget is " +
                           std::to_string(budget_bytes) +
                           " bytes. Fix: shard the graph over MPI ranks (distributed "
                           "planning), raise device_memory_budget_bytes, or plan with "
                           "32-bit ordinals."));
  e.needed_bytes_ = needed_bytes;
  e.budget_bytes_ = budget_bytes;
  return e;
}

PlanError PlanError::insufficient_ranks(std::uint64_t needed_ranks, std::uint64_t available_ranks,
                                        std::uint64_t budget_bytes) {
  PlanError e(ErrorKind::InsufficientRanks,
              prefixed(ErrorKind::InsufficientRanks,
                       "distributed planning needs at least " + std::to_string(needed_ranks) +
                           " ranks for a per-rank budget of " + std::to_string(budget_bytes) +
                           " bytes but runs on " + std::to_string(available_ranks) +
                           ". Fix: run with at least " + std::to_string(needed_ranks) +
                           " ranks or raise DistributedOptions::rank_budget_bytes."));
  e.needed_ranks_ = needed_ranks;
  e.available_ranks_ = available_ranks;
  e.budget_bytes_ = budget_bytes;
  return e;
}

PlanError PlanError::wave_faulted(std::uint64_t wave) {
  PlanError e(ErrorKind::WaveFaulted,
              prefixed(ErrorKind::WaveFaulted,
                       "wave " + std::to_string(wave) +
                           " returned TaskState::Faulted; the run stopped and no wave of a later "
                           "layer started. Fix: check the wave's inputs (Executor::task_snapshot() "
                           "shows the faulted slot), then reset() the executor to run the plan "
                           "again."));
  e.wave_ = wave;
  return e;
}

PlanError PlanError::requeue_limit(std::uint64_t wave, std::uint64_t bound) {
  PlanError e(ErrorKind::RequeueLimit,
              prefixed(ErrorKind::RequeueLimit,
                       "wave " + std::to_string(wave) + " yielded or requeued more than " +
                           std::to_string(bound) +
                           " times. Fix: raise RunOptions::max_requeues_per_wave, or let the wave "
                           "complete (a wave waiting on a wave of its own group never progresses: "
                           "make that a dependency)."));
  e.wave_ = wave;
  e.requested_ = bound;
  return e;
}

PlanError PlanError::not_co_resident(std::uint64_t league, std::uint64_t team_size,
                                     std::uint64_t available, std::string backend) {
  PlanError e(ErrorKind::NotCoResident,
              prefixed(ErrorKind::NotCoResident,
                       "a persistent league of " + std::to_string(league) + " teams of " +
                           std::to_string(team_size) + " threads cannot all be resident on " +
                           backend + " (at most " + std::to_string(available) +
                           " teams run at once), so its device-wide waits could never finish. "
                           "Fix: ask for at most " + std::to_string(available) +
                           " teams (RunOptions::league_size, LaunchConfig::worker_count), a "
                           "smaller team_size, or the layered mode."));
  e.requested_ = league;
  e.available_ = available;
  e.field_ = std::move(backend);
  return e;
}

PlanError PlanError::persistent_walk_stalled(std::uint64_t league, std::uint64_t team_size,
                                             std::string backend) {
  PlanError e(ErrorKind::NotCoResident,
              prefixed(ErrorKind::NotCoResident,
                       "the planner's persistent walk (" + std::to_string(league) + " teams of " +
                           std::to_string(team_size) + " threads on " + backend +
                           ", all running at its start) waited past its bound for a team that "
                           "made no progress, and gave up. Fix: plan with PlanOptions::mode = "
                           "PlanMode::Sparse or layers_per_sync > 1 (no persistent walk), and "
                           "report the graph: no input is known to reach this."));
  e.requested_ = league;
  e.available_ = league;
  e.field_ = std::move(backend);
  return e;
}

PlanError PlanError::rank_timeout(std::string call, std::uint64_t seconds, int rank) {
  PlanError e(ErrorKind::RankTimeout,
              prefixed(ErrorKind::RankTimeout,
                       "rank " + std::to_string(rank) + " waited " + std::to_string(seconds) +
                           " s in " + call +
                           " for the other MPI ranks (one died, hangs, or was started with "
                           "other arguments). Fix: read the other ranks' errors and the "
                           "launcher's report; if a rank is only slow, raise STRATA_MPI_TIMEOUT "
                           "(seconds, 0: wait forever)."));
  e.field_ = std::move(call);
  e.requested_ = seconds;
  return e;
}

PlanError::Fields PlanError::fields() const {
  Fields f;
  f.kind = kind_;
  f.text = what();
  f.field = field_;
  f.message = message_;
  f.wave_count = wave_count_;
  f.before = before_;
  f.after = after_;
  f.wave = wave_;
  f.unscheduled_waves = unscheduled_waves_;
  f.requested = requested_;
  f.line = line_;
  f.slot = slot_;
  f.needed_bytes = needed_bytes_;
  f.budget_bytes = budget_bytes_;
  f.needed_ranks = needed_ranks_;
  f.available_ranks = available_ranks_;
  f.available = available_;
  f.state_word = state_word_;
  return f;
}

PlanError PlanError::from_fields(const Fields& f) {
  PlanError e(f.kind, f.text);
  e.field_ = f.field;
  e.message_ = f.message;
  e.wave_count_ = f.wave_count;
  e.before_ = f.before;
  e.after_ = f.after;
  e.wave_ = f.wave;
  e.unscheduled_waves_ = f.unscheduled_waves;
  e.requested_ = f.requested;
  e.line_ = f.line;
  e.slot_ = f.slot;
  e.needed_bytes_ = f.needed_bytes;
  e.budget_bytes_ = f.budget_bytes;
  e.needed_ranks_ = f.needed_ranks;
  e.available_ranks_ = f.available_ranks;
  e.available_ = f.available;
  e.state_word_ = f.state_word;
  return e;
}

}  // namespace strata
