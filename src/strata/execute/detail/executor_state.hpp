#pragma once
// The executor's device state, owned by Executor in labelled Views and kept
// across drained runs:
//   state     one TaskState word per wave (Queued, Running, Yielded, Requeued,
//             Completed, Faulted): the truth every mode resumes from
//   requeues  per wave, the re-executions so far (bounded by
//             RunOptions::max_requeues_per_wave)
//   control   the run's shared words (Control below)
// The dataflow mode's counters and ready queue live in dataflow.hpp; they are
// rebuilt from `state` when a dataflow run starts, so a run of any mode can
// resume a drained run of any other mode.
//
// WaveState is what the kernels capture: shallow copies of those Views and
// the device functions that every mode shares: may_start() (the drain and
// error check before a wave starts) and record() (the outcome of one
// execution of a wave). Both are called by one thread of a team (its leader).
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

#include <strata/core/device_clock.hpp>
#include <strata/core/spin_wait.hpp>
#include <strata/execute/task_queue.hpp>

namespace strata::execute::detail {

/// The words of the `control` View, spread over cache lines (`control_line`
/// words, 128 bytes, apart) by how often they are written, so that the words
/// every team reads before each wave (line 0, written once per run or at a
/// stop) never share a line with the per-wave atomics of the queue and the
/// group cursor.
inline constexpr std::size_t control_line = 16;
enum Control : std::size_t {
  stop_word = 0,      ///< 0 running, stop_drain, stop_error (only ever raised, atomic max)
  fault_wave,         ///< lowest wave that returned Faulted this run (none: no_wave)
  requeue_wave,       ///< lowest wave over the requeue bound this run (none: no_wave)
  deadline_ns,        ///< device_clock_ns() at which the run drains
  run_completed,      ///< non-zero once a wave completed in this run
  abort_word,         ///< a team gave up waiting (a stalled queue slot): everyone leaves
  barrier_stop,       ///< persistent: the stop word as the last barrier arrival saw it
  run_requeues = 1 * control_line,  ///< re-executions in this run
  outstanding = 2 * control_line,   ///< dataflow: waves not yet completed (teams batch it)
  group_next = 3 * control_line,    ///< persistent: next index into the current group
  queue_head = 4 * control_line,    ///< dataflow: next position to pop
  queue_tail = 5 * control_line,    ///< dataflow: next position to push
  control_words = 6 * control_line
};

inline constexpr std::uint64_t stop_drain = 1;
inline constexpr std::uint64_t stop_error = 2;
inline constexpr std::uint64_t no_wave = std::numeric_limits<std::uint64_t>::max();

/// WaveState::team_start(): the run stops; waves may start; waves may start
/// and one has completed in this run already.
enum LanesStart : int { lanes_stop = 0, lanes_go = 1, lanes_go_flagged = 2 };

/// What record() tells the team after one execution of a wave.
enum Outcome : int { outcome_done = 0, outcome_again = 1, outcome_stop = 2 };

KOKKOS_INLINE_FUNCTION constexpr std::uint32_t word_of(TaskState s) {
  return static_cast<std::uint32_t>(s);
}

/// A thread's state for WaveState::may_start(DeadlinePoll&).
struct DeadlinePoll {
  static constexpr std::uint64_t short_ns = 2000;
  static constexpr std::uint32_t max_stride = 16;
  std::uint64_t last_ns = 0;
  std::uint32_t stride = 1;
  std::uint32_t countdown = 0;
};

template <class ExecSpace, class Ordinal>
struct WaveState {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<std::uint32_t*, memory_space> state;
  Kokkos::View<std::uint32_t*, memory_space> requeues;
  Kokkos::View<std::uint64_t*, memory_space> control;
  std::uint32_t max_requeues = 64;

  KOKKOS_INLINE_FUNCTION std::uint64_t* word(Control c) const { return &control(c); }

  KOKKOS_INLINE_FUNCTION bool completed(Ordinal w) const {
    return volatile_load(&state(w)) == word_of(TaskState::Completed);
  }

  /// Leader only. False once the run stops: an error, the drain flag, or the
  /// deadline passed after this run completed at least one wave (so every
  /// run makes progress and a loop of runs always finishes).
  KOKKOS_INLINE_FUNCTION bool may_start() const { return start_code() != lanes_stop; }

  /// may_start() for a team whose threads each start a wave of their own
  /// (thread-level waves, a wave per thread): the leader decides once for
  /// the team and broadcasts the decision, which also says whether a wave
  /// has completed in this run, so the lanes' record() need not read that
  /// flag again. Every thread of the team calls it.
  template <class Member>
  KOKKOS_INLINE_FUNCTION int team_start(const Member& team) const {
    int code = lanes_stop;
    Kokkos::single(
        Kokkos::PerTeam(team), [&](int& c) { c = start_code(); }, code);
    return code;
  }

  /// The decision of may_start() and team_start(), as a LanesStart code. The
  /// three words are loaded together: one memory round trip, not up to
  /// three dependent ones (the deadline is fixed for the run).
  KOKKOS_INLINE_FUNCTION int start_code() const {
    const std::uint64_t stop = volatile_load(word(stop_word));
    const std::uint64_t done = volatile_load(word(run_completed));
    const std::uint64_t deadline = volatile_load(word(deadline_ns));
    if (stop != 0) return lanes_stop;
    if (done == 0) return lanes_go;
    if (device_clock_ns() >= deadline) {
      Kokkos::atomic_fetch_max(word(stop_word), stop_drain);
      return lanes_stop;
    }
    return lanes_go_flagged;
  }

  /// may_start() for a thread that checks before every wave it starts: the
  /// clock is read every `poll.stride` checks, the stride doubling (up to
  /// DeadlinePoll::max_stride) while reads come less than
  /// DeadlinePoll::short_ns apart and back to 1 after a longer gap. Waves of
  /// a few hundred nanoseconds thus pay a fraction of a clock read each, and
  /// past the deadline a thread starts at most max_stride - 1 more waves; the
  /// stride is above 1 only after reads less than short_ns apart, so those
  /// waves are short unless the waves' length jumps from one to the next.
  KOKKOS_INLINE_FUNCTION bool may_start(DeadlinePoll& poll) const {
    return may_start(poll, volatile_load(word(stop_word)));
  }

  /// may_start(poll) with the stop word already loaded (a caller that loads
  /// it together with another word pays one memory round trip for both).
  KOKKOS_INLINE_FUNCTION bool may_start(DeadlinePoll& poll, std::uint64_t stop) const {
    if (stop != 0) return false;
    if (poll.countdown > 0) {
      --poll.countdown;
      return true;
    }
    if (volatile_load(word(run_completed)) == 0) return true;
    const std::uint64_t now = device_clock_ns();
    if (now >= volatile_load(word(deadline_ns))) {
      Kokkos::atomic_fetch_max(word(stop_word), stop_drain);
      return false;
    }
    if (now - poll.last_ns < DeadlinePoll::short_ns) {
      if (poll.stride < DeadlinePoll::max_stride) poll.stride *= 2;
    } else {
      poll.stride = 1;
    }
    poll.last_ns = now;
    poll.countdown = poll.stride - 1;
    return true;
  }

  /// Leader only: wave w is about to execute.
  KOKKOS_INLINE_FUNCTION void mark_running(Ordinal w) const {
    volatile_store(&state(w), word_of(TaskState::Running));
  }

  /// Leader only, after the team's writes of one execution of w are fenced.
  /// Completed: the wave is done. Yielded / Requeued: it runs again (the
  /// caller decides where), unless that exceeds the bound (RequeueLimit).
  /// Faulted, or any word that is not an outcome: the run stops (WaveFaulted).
  /// `flagged` (optional, the caller's own): true once this thread has seen
  /// or set the run_completed flag, so it is not read again per wave.
  KOKKOS_INLINE_FUNCTION int record(Ordinal w, std::uint32_t outcome,
                                    bool* flagged = nullptr) const {
    if (outcome == word_of(TaskState::Completed)) {
      volatile_store(&state(w), outcome);
      // A flag, not a count: one global atomic per wave serialises every
      // team on one word (the count comes from the state words afterwards).
      if (flagged == nullptr || !*flagged) {
        if (volatile_load(word(run_completed)) == 0)
          volatile_store(word(run_completed), std::uint64_t(1));
        if (flagged != nullptr) *flagged = true;
      }
      return outcome_done;
    }
    if (outcome == word_of(TaskState::Yielded) || outcome == word_of(TaskState::Requeued)) {
      volatile_store(&state(w), outcome);
      // Only the team holding w touches its counter.
      const std::uint32_t before = requeues(w);
      if (before >= max_requeues) {
        Kokkos::atomic_fetch_min(word(requeue_wave), std::uint64_t(w));
        Kokkos::atomic_fetch_max(word(stop_word), stop_error);
        return outcome_stop;
      }
      requeues(w) = before + 1;
      Kokkos::atomic_fetch_add(word(run_requeues), std::uint64_t(1));
      return outcome_again;
    }
    volatile_store(&state(w), word_of(TaskState::Faulted));
    Kokkos::atomic_fetch_min(word(fault_wave), std::uint64_t(w));
    Kokkos::atomic_fetch_max(word(stop_word), stop_error);
    return outcome_stop;
  }
};

/// The run's control words, set on the execution space instance before the
/// run's kernels (so the deadline is read on the clock the kernels compare
/// it with). With `reset_states` (the first run after Executor::reset()) the
/// same kernel also sets every wave Queued with no requeues: reset() itself
/// launches nothing.
template <class ExecSpace, class Ordinal>
void start_run(const ExecSpace& space, const WaveState<ExecSpace, Ordinal>& s,
               std::uint64_t budget_ns, std::uint64_t outstanding_waves, bool reset_states) {
  const auto control = s.control;
  const auto state = s.state;
  const auto requeues = s.requeues;
  const std::size_t n = reset_states && state.extent(0) > 0 ? state.extent(0) : 1;
  Kokkos::parallel_for(
      "strata::execute::start_run", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) {
        if (reset_states && i < state.extent(0)) {
          state(i) = word_of(TaskState::Queued);
          requeues(i) = 0;
        }
        if (i != 0) return;
        control(stop_word) = 0;
        control(fault_wave) = no_wave;
        control(requeue_wave) = no_wave;
        const std::uint64_t now = device_clock_ns();
        control(deadline_ns) = budget_ns > no_wave - now ? no_wave : now + budget_ns;
        control(run_completed) = 0;
        control(run_requeues) = 0;
        control(outstanding) = outstanding_waves;
        control(group_next) = 0;
        control(queue_head) = 0;
        control(queue_tail) = 0;
        control(abort_word) = 0;
        control(barrier_stop) = 0;
      });
}

/// What a run leaves behind: the waves whose state word is Completed, and
/// the first group holding a wave that is not (`groups` if none: where the
/// layered and persistent modes resume).
struct Progress {
  std::uint64_t completed;
  std::uint64_t first_open_group;
};

/// Kokkos reducer of Progress: sum of the counts, minimum of the groups.
template <class Space = Kokkos::HostSpace>
struct ProgressReducer {
  using reducer = ProgressReducer<Space>;
  using value_type = Progress;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryUnmanaged>;

  result_view_type result;

  KOKKOS_INLINE_FUNCTION explicit ProgressReducer(value_type& value) : result(&value) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    dest.completed += src.completed;
    if (src.first_open_group < dest.first_open_group) dest.first_open_group = src.first_open_group;
  }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    dest.completed += src.completed;
    if (src.first_open_group < dest.first_open_group) dest.first_open_group = src.first_open_group;
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const {
    value.completed = 0;
    value.first_open_group = ~std::uint64_t(0);  // none open (no numeric_limits: device code)
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *result.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return result; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

/// Progress in one pass over the state words.
template <class ExecSpace, class Ordinal>
Progress progress_of(const ExecSpace& space, const WaveState<ExecSpace, Ordinal>& s,
                     const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& level,
                     std::uint64_t groups) {
  Progress p{0, groups};
  const auto state = s.state;
  Kokkos::parallel_reduce(
      "strata::execute::progress", Kokkos::RangePolicy<ExecSpace>(space, 0, state.extent(0)),
      KOKKOS_LAMBDA(const std::size_t w, Progress& r) {
        if (state(w) == word_of(TaskState::Completed)) {
          ++r.completed;
        } else if (std::uint64_t(level(w)) < r.first_open_group) {
          r.first_open_group = level(w);
        }
      },
      ProgressReducer<>(p));
  if (p.first_open_group > groups) p.first_open_group = groups;  // the identity: none open
  return p;
}

}  // namespace strata::execute::detail
