#pragma once
// Strata reports every failure through one exception type, strata::PlanError.
//
// Why exceptions rather than a result type: Kokkos itself reports failed
// allocations by throwing, planning runs inside constructors and template code
// where a result type would have to be threaded through every layer, and the
// C interface (the one boundary that must not throw) catches at a single
// place. A PlanError is thrown before anything is written to the caller's
// outputs, so a caller never sees half a plan.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace strata {

enum class ErrorKind : int {
  InvalidWave = 1,        ///< a dependency names a wave outside 0..wave_count
  SelfDependency,         ///< a wave depends on itself
  Cycle,                  ///< the graph is not a DAG
  CountOverflow,          ///< a count does not fit the ordinal or offset type
  StorageReserveFailed,   ///< an allocation of planner storage failed
  InvalidArgument,        ///< an API argument is malformed (e.g. unknown option)
  ParseError,             ///< an input file is malformed
  IoError,                ///< an input file cannot be read
  InvalidLaunchConfig,    ///< a LaunchConfig field makes dispatch unschedulable
  InvalidDeviceLimits,    ///< adapter / device limits are malformed
  InvalidTaskState,       ///< a task slot holds an unknown state word
  MemoryConstrained,      ///< graph + planner storage exceed the device memory budget
  InsufficientRanks,      ///< distributed planning: too few MPI ranks for the per-rank budget
  WaveFaulted,            ///< executor: a wave functor returned TaskState::Faulted
  RequeueLimit,           ///< executor: a wave yielded / requeued more often than allowed
  NotCoResident,          ///< executor: a persistent league cannot all be resident at once
  RankTimeout,            ///< distributed planning: the other ranks did not join an MPI call in time
};

/// Name of an error kind as it appears at the start of messages ("Cycle").
const char* error_kind_name(ErrorKind kind) noexcept;

class PlanError : public std::runtime_error {
 public:
  // Named constructors, one per kind; each builds the message with its Fix: hint.
  static PlanError invalid_wave(std::uint64_t wave_count, std::uint64_t before,
                                std::uint64_t after);
  static PlanError self_dependency(std::uint64_t wave);
  static PlanError cycle(std::uint64_t unscheduled_waves);
  static PlanError count_overflow(std::string field);
  static PlanError storage_reserve_failed(std::string field, std::uint64_t requested,
                                          std::string message);
  static PlanError invalid_argument(std::string what, std::string fix);
  static PlanError parse_error(std::string source, std::uint64_t line, std::string what,
                               std::string fix);
  static PlanError io_error(std::string source, std::string what);
  static PlanError invalid_launch_config(std::string field, std::string what, std::string fix);
  static PlanError invalid_device_limits(std::string field, std::string what);
  static PlanError invalid_task_state(std::uint64_t slot, std::uint32_t word);
  static PlanError memory_constrained(std::uint64_t needed_bytes, std::uint64_t budget_bytes);
  static PlanError insufficient_ranks(std::uint64_t needed_ranks, std::uint64_t available_ranks,
                                      std::uint64_t budget_bytes);
  /// The executor's kinds (strata/execute/): the wave that faulted; the wave
  /// that exceeded `bound` requeues (requested() is the bound); a league of
  /// `league` teams of `team_size` threads where only `available` can be
  /// resident on `backend` (requested() is the league, field() the backend).
  static PlanError wave_faulted(std::uint64_t wave);
  static PlanError requeue_limit(std::uint64_t wave, std::uint64_t bound);
  static PlanError not_co_resident(std::uint64_t league, std::uint64_t team_size,
                                   std::uint64_t available, std::string backend);
  /// The planner's persistent walk (kind NotCoResident): every team of its
  /// `league` of `team_size` threads was running at its start, yet one of its
  /// bounded waits ran out (requested() and available() are the league,
  /// field() the backend).
  static PlanError persistent_walk_stalled(std::uint64_t league, std::uint64_t team_size,
                                           std::string backend);
  /// `rank` waited `seconds` in the MPI call `call` for the other ranks (field(): the
  /// call, requested(): the seconds).
  static PlanError rank_timeout(std::string call, std::uint64_t seconds, int rank);

  /// Every field of an error (its text included), so that an error can be
  /// carried to another process and rebuilt there identically (distributed/).
  struct Fields {
    ErrorKind kind = ErrorKind::InvalidArgument;
    std::string text, field, message;
    std::uint64_t wave_count = 0, before = 0, after = 0, wave = 0, unscheduled_waves = 0,
                  requested = 0, line = 0, slot = 0, needed_bytes = 0, budget_bytes = 0,
                  needed_ranks = 0, available_ranks = 0, available = 0;
    std::uint32_t state_word = 0;
  };
  Fields fields() const;
  static PlanError from_fields(const Fields& fields);

  ErrorKind kind() const noexcept { return kind_; }
  // The seed's fields; a field that does not belong to kind() is zero / empty.
  std::uint64_t wave_count() const noexcept { return wave_count_; }
  std::uint64_t before() const noexcept { return before_; }
  std::uint64_t after() const noexcept { return after_; }
  std::uint64_t wave() const noexcept { return wave_; }
  std::uint64_t unscheduled_waves() const noexcept { return unscheduled_waves_; }
  const std::string& field() const noexcept { return field_; }
  std::uint64_t requested() const noexcept { return requested_; }
  const std::string& message() const noexcept { return message_; }
  /// For ParseError: the 1-based line of the input (0 when not line-bound).
  std::uint64_t line() const noexcept { return line_; }
  /// For InvalidTaskState: the slot index and the state word found there.
  std::uint64_t slot() const noexcept { return slot_; }
  std::uint32_t state_word() const noexcept { return state_word_; }
  /// For MemoryConstrained: bytes the plan needs and the budget it was given.
  std::uint64_t needed_bytes() const noexcept { return needed_bytes_; }
  std::uint64_t budget_bytes() const noexcept { return budget_bytes_; }
  /// For InsufficientRanks: ranks the budget needs and ranks available
  /// (the budget is budget_bytes()).
  std::uint64_t needed_ranks() const noexcept { return needed_ranks_; }
  std::uint64_t available_ranks() const noexcept { return available_ranks_; }
  /// For NotCoResident: the teams that can be resident at once.
  std::uint64_t available() const noexcept { return available_; }

 private:
  PlanError(ErrorKind kind, const std::string& text) : std::runtime_error(text), kind_(kind) {}

  ErrorKind kind_;
  std::uint64_t wave_count_ = 0, before_ = 0, after_ = 0, wave_ = 0;
  std::uint64_t unscheduled_waves_ = 0, requested_ = 0, line_ = 0;
  std::uint64_t slot_ = 0, needed_bytes_ = 0, budget_bytes_ = 0;
  std::uint64_t needed_ranks_ = 0, available_ranks_ = 0, available_ = 0;
  std::uint32_t state_word_ = 0;
  std::string field_, message_;
};

}  // namespace strata
