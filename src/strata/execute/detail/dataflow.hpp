#pragma once
// Dataflow mode: one launch, no barriers. Per-wave remaining-predecessor
// counters and a device ready queue, as in Kokkos::WorkGraphPolicy, but with
// team-level waves and waves that may run more than once (Yielded /
// Requeued go back on the queue), so the queue is a bounded multi-producer
// multi-consumer ring (Vyukov's sequence-numbered slots) instead of
// WorkGraphPolicy's one-push-per-item array:
//
//   slot k of `capacity` (the wave count rounded up to a power of two, so a
//   position's slot is a mask, not a division) holds a wave and a 64-bit sequence
//   word; a push at position p waits until seq(p % capacity) == p, writes the
//   wave, then seq = p + 1; a pop claims position p = head by compare-and-swap
//   once seq(p % capacity) == p + 1, reads the wave, then seq = p + capacity.
//   A wave is in the queue at most once at any time (it is pushed when its
//   last predecessor completes, or by the team that ran it, which holds it),
//   so at most `capacity` positions are pending and a push waits only for
//   the pop of the previous lap, which has already claimed its slot.
//   Positions are 64-bit and never wrap.
//
// A team pops a wave, runs it once, and on Completed decrements its
// successors' counters, pushing each that reaches zero. The run ends when
// `outstanding` (the waves not completed) reaches zero, or at a stop (drain
// or error). Two kernels share the loop's contract:
//  * teams of one thread (run_solo: every host backend by default) keep the
//    first successor that became ready as their next wave (a continuation:
//    a chain never touches the queue), subtract their completions from
//    `outstanding` in batches (when they find the queue empty), read the
//    deadline clock only every few short waves (DeadlinePoll), and use no
//    team collective;
//  * teams of several threads (run_team: every device backend) pop, record
//    and release on the leader, with the same continuation and batching;
//    a wave with many successors is released by the team's threads, and a
//    chain link (a wave whose only successor has no other predecessor,
//    DataflowStart::chain_next) passes to its successor with no counter, no
//    fence and one stop check per wave; the leader loads the abort and stop
//    words and the successor's own chain link together when the link
//    completes, one memory round trip per chain wave. Thread-level waves:
//    the leader runs a chain's inner links alone (run_links), with no team
//    collective between them.
// A wave's writes are fenced before its successors are released (a team
// barrier, then a release fence by each thread that decrements a counter);
// the thread that starts a wave fences (acquire) after the pop or the last
// decrement, and a team broadcast passes that on to the team's threads.
//
// prepare_dataflow() rebuilds the counters and the queue from the per-wave
// states when a dataflow run starts (in-degrees counting only predecessors
// that are not Completed; the ready waves in ascending order), so a dataflow
// run resumes a drained run of any mode; a run from scratch copies the
// in-degrees and the source waves that dataflow_start() computed once.
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include <strata/core/atomics.hpp>  // 16-bit counters: native on devices
#include <strata/core/device_barrier.hpp>
#include <strata/core/spin_wait.hpp>
#include <strata/core/storage.hpp>
#include <strata/execute/detail/executor_state.hpp>
#include <strata/execute/detail/wave_invoke.hpp>
#include <strata/graph/dependency_graph.hpp>

namespace strata::execute::detail {

/// The ready queue's slots for `waves` waves: the next power of two.
inline std::uint64_t queue_capacity(std::uint64_t waves) {
  std::uint64_t capacity = 1;
  while (capacity < waves) capacity *= 2;  // at most 64 doublings: waves < 2^63
  return capacity;
}

template <class ExecSpace, class Ordinal>
struct ReadyQueue {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<Ordinal*, memory_space> slots;
  Kokkos::View<std::uint64_t*, memory_space> sequence;
  Kokkos::View<std::uint64_t*, memory_space> control;  ///< queue_head, queue_tail, abort_word

  /// A power of two (queue_capacity()).
  KOKKOS_INLINE_FUNCTION std::uint64_t capacity() const { return slots.extent(0); }
  KOKKOS_INLINE_FUNCTION std::uint64_t slot_of(std::uint64_t p) const {
    return p & (capacity() - 1);
  }

  /// Any thread. Returns false only if the slot never frees (the abort word
  /// is raised then: a team stopped making progress).
  KOKKOS_INLINE_FUNCTION bool push(Ordinal w) const {
    const std::uint64_t p = Kokkos::atomic_fetch_add(&control(queue_tail), std::uint64_t(1));
    const std::uint64_t k = slot_of(p);
    for (std::uint64_t spins = 0; volatile_load(&sequence(k)) != p; ++spins) {
      if (spins >= DeviceBarrier<memory_space>::default_spin_limit) {
        Kokkos::atomic_fetch_max(&control(abort_word), std::uint64_t(1));
        Kokkos::atomic_fetch_max(&control(stop_word), stop_error);  // every team leaves
        return false;
      }
      spin_pause(spins);
    }
    acquire_fence();  // the previous lap's pop, before the slot is overwritten
    volatile_store(&slots(k), w);
    release_fence();  // the wave before its sequence word
    volatile_store(&sequence(k), p + 1);
    return true;
  }

  /// One thread: claims up to `max` consecutive filled positions with one
  /// compare-and-swap of the head and copies their waves to `out`; returns
  /// how many (0: the queue looks empty, or stayed contended for 64
  /// attempts). Filled positions stay filled until popped (the next lap's
  /// push waits for the pop), so the positions counted before the CAS are
  /// the claimed ones.
  KOKKOS_INLINE_FUNCTION std::uint32_t try_pop_many(Ordinal* out, std::uint32_t max) const {
    for (int attempt = 0; attempt < 64; ++attempt) {
      const std::uint64_t p = volatile_load(&control(queue_head));
      const std::uint64_t seq = volatile_load(&sequence(slot_of(p)));
      if (seq == p + 1) {
        std::uint32_t n = 1;
        while (n < max && volatile_load(&sequence(slot_of(p + n))) == p + n + 1) ++n;
        if (Kokkos::atomic_compare_exchange(&control(queue_head), p, p + n) == p) {
          acquire_fence();  // the sequence words before the waves
          for (std::uint32_t i = 0; i < n; ++i) out[i] = volatile_load(&slots(slot_of(p + i)));
          release_fence();  // the waves read before the slots are handed back
          for (std::uint32_t i = 0; i < n; ++i)
            volatile_store(&sequence(slot_of(p + i)), p + i + capacity());
          return n;
        }
      } else if (seq <= p) {
        return 0;  // not filled yet: empty (or a push in flight)
      }
    }
    return 0;
  }

  /// Waves queued beyond position `head` (a racy estimate: pushes in flight
  /// count).
  KOKKOS_INLINE_FUNCTION std::uint64_t backlog() const {
    const std::uint64_t head = volatile_load(&control(queue_head));
    const std::uint64_t tail = volatile_load(&control(queue_tail));
    return tail > head ? tail - head : 0;
  }

  /// One thread. False when the queue looks empty (or stayed contended for
  /// 64 attempts: the caller retries later).
  KOKKOS_INLINE_FUNCTION bool try_pop(Ordinal& w) const {
    for (int attempt = 0; attempt < 64; ++attempt) {
      const std::uint64_t p = volatile_load(&control(queue_head));
      const std::uint64_t k = slot_of(p);
      const std::uint64_t seq = volatile_load(&sequence(k));
      if (seq == p + 1) {
        if (Kokkos::atomic_compare_exchange(&control(queue_head), p, p + 1) == p) {
          acquire_fence();  // the sequence word before the wave
          w = volatile_load(&slots(k));
          release_fence();  // the wave read before the slot is handed back
          volatile_store(&sequence(k), p + capacity());
          return true;
        }
      } else if (seq <= p) {
        return false;  // not filled yet: empty (or a push in flight)
      }
      // else: head moved past p meanwhile; reload
    }
    return false;
  }
};

template <class ExecSpace, class Ordinal, class Offset, class Functor>
struct DataflowKernel {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr std::uint64_t code_stop = no_wave;
  static constexpr std::uint64_t code_idle = no_wave - 1;
  /// The most waves a team of one thread pops at once.
  static constexpr std::uint32_t pop_batch = 8;
  /// Successors a team's leader releases alone (more: the team's threads).
  static constexpr std::uint64_t serial_release_max = 8;
  /// run_team: the leader asks the team to release a wide wave's successors.
  static constexpr int release_by_team = outcome_stop + 1;

  WaveState<ExecSpace, Ordinal> s;
  ReadyQueue<ExecSpace, Ordinal> queue;
  Kokkos::View<Offset*, memory_space> remaining;
  // Read-only during the run: through the read-only cache where a device has one.
  Kokkos::View<const Offset*, memory_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>> row_map;
  Kokkos::View<const Ordinal*, memory_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>> entries;
  /// chain_next(w): w's only successor when w has one and w is its only
  /// predecessor, else w itself (DataflowStart::chain_next).
  Kokkos::View<const Ordinal*, memory_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>> chain_next;
  Functor f;
  static constexpr bool team_level = is_team_wave_functor<Functor, member_type, Ordinal>::value;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    if (team.team_size() == 1) {
      run_solo(team);
    } else {
      run_team(team);
    }
  }

  /// Teams of one thread (the default on every host backend): no team
  /// collective, and two things a shared queue does not need to see:
  ///  * a continuation: of the successors that a completed wave makes ready,
  ///    the team runs the first itself, next (it would pop one anyway), and
  ///    pushes only the others, so a chain never passes through the queue
  ///    and a wide front sends one wave in (successors - 1) through it;
  ///  * batched completions: the team subtracts its completed waves from
  ///    `outstanding` when it finds the queue empty (and when it leaves), not
  ///    one global atomic per wave. outstanding reaches zero only once every
  ///    wave completed and every team flushed, so the run still ends exactly
  ///    then.
  /// A wave held as the continuation when the run stops stays Queued (not in
  /// the queue): prepare_dataflow() rebuilds the queue from the states.
  KOKKOS_INLINE_FUNCTION void run_solo(const member_type& team) const {
    std::uint64_t* const outstanding_word = s.word(outstanding);
    std::uint64_t done = 0;  // completions not yet subtracted from outstanding
    std::uint64_t idle = 0;  // empty polls in a row
    DeadlinePoll poll;
    const std::uint64_t teams = static_cast<std::uint64_t>(team.league_size());
    Ordinal batch[pop_batch];  // popped, not started yet: batch[first .. count)
    std::uint32_t first = 0, count = 0;
    Ordinal w = 0;
    bool held = false;  // w is a continuation
    for (;;) {
      if (!held) {
        if (first == count) {
          if (volatile_load(s.word(stop_word)) != 0 || volatile_load(s.word(abort_word)) != 0)
            break;
          // A long queue is shared out in batches (one CAS for several
          // waves); a short one wave at a time, so no team hides waves that
          // another team could run.
          const std::uint64_t share = queue.backlog() / (2 * teams);
          const std::uint32_t want =
              share >= pop_batch ? pop_batch : (share < 1 ? 1u : static_cast<std::uint32_t>(share));
          first = 0;
          count = queue.try_pop_many(batch, want);
          if (count == 0) {
            if (done != 0) {
              Kokkos::atomic_fetch_sub(outstanding_word, done);
              done = 0;
            }
            if (volatile_load(outstanding_word) == 0) break;
            spin_pause(idle);
            ++idle;
            continue;
          }
          idle = 0;
        }
        w = batch[first++];
      }
      held = false;
      if (!s.may_start(poll)) break;
      s.mark_running(w);
      acquire_fence();  // the predecessors' writes, seen before the wave reads them
      const std::uint32_t outcome = invoke_wave(f, team, w);
      release_fence();  // this execution's writes, before anything is released
      const int next = s.record(w, outcome);
      if (next == outcome_stop) break;
      if (next == outcome_again) {
        queue.push(w);
        continue;
      }
      ++done;
      const Ordinal completed = w;
      const std::uint64_t last = row_map(completed + 1);
      for (std::uint64_t e = row_map(completed); e < last; ++e) {
        const Ordinal t = entries(e);
        if (strata::fetch_sub<ExecSpace>(&remaining(t), Offset(1)) != Offset(1)) continue;
        if (held) {
          queue.push(t);
        } else {
          w = t;
          held = true;
        }
      }
    }
    if (done != 0) Kokkos::atomic_fetch_sub(outstanding_word, done);
  }

  /// run_team's leader state (the other threads' copies stay untouched).
  struct Leader {
    std::uint64_t idle = 0;          ///< empty polls in a row
    std::uint64_t done = 0;          ///< completions not yet subtracted from outstanding
    std::uint64_t held = code_idle;  ///< a continuation, or code_idle
    bool flagged = false;            ///< run_completed seen set (WaveState::record)
    DeadlinePoll poll;
    // A chain link's successor is held with what its start needs, loaded
    // when the link completed (one round trip with the link's record): the
    // successor's own chain successor and the abort and stop words.
    Ordinal link = 0;       ///< the running wave's chain successor (itself: none)
    Ordinal held_link = 0;  ///< the held wave's, when held_loaded
    bool held_loaded = false;
    std::uint64_t held_aborted = 0, held_stopped = 0;
  };

  /// Leader: holds chain successor `t` of a completed link, with what its
  /// start reads, in one round trip (a stop raised after this load is
  /// concurrent with that start).
  KOKKOS_INLINE_FUNCTION void hold_link(Leader& L, Ordinal t) const {
    L.held = static_cast<std::uint64_t>(t);
    L.held_link = chain_next(t);
    L.held_aborted = volatile_load(s.word(abort_word));
    L.held_stopped = volatile_load(s.word(stop_word));
    L.held_loaded = true;
  }

  /// Thread-level waves: the leader runs the inner links of a chain itself,
  /// in the single that recorded the link before them, with no team
  /// collective between them (a thread-level wave runs on the leader alone
  /// anyway; the other threads would only meet it at two broadcasts and a
  /// barrier per wave). A held wave that is itself a chain link (its chain
  /// successor was loaded with it) runs here, checked as the team's loop
  /// checks a start; the chain's last wave, whose completion goes through
  /// the counters, stays held for the team's loop. Same thread, so no fence
  /// between a link and its successor. Returns outcome_stop when the run
  /// stops (the held wave stays Queued), outcome_again after a link went
  /// back on the queue (push fences), else outcome_done. Bounded: each pass
  /// completes a wave that no other pass runs, or returns.
  KOKKOS_INLINE_FUNCTION int run_links(Leader& L, std::true_type /*thread-level*/) const {
    while (L.held_loaded && L.held_link != static_cast<Ordinal>(L.held)) {
      if (L.held_aborted != 0 || !s.may_start(L.poll, L.held_stopped)) return outcome_stop;
      const Ordinal w = static_cast<Ordinal>(L.held);
      const Ordinal link = L.held_link;
      L.held = code_idle;
      L.held_loaded = false;
      s.mark_running(w);
      const int n = s.record(w, call_thread_wave(f, w), &L.flagged);
      if (n == outcome_again) {
        queue.push(w);
        return outcome_again;
      }
      if (n != outcome_done) return n;
      ++L.done;
      hold_link(L, link);
    }
    return outcome_done;
  }
  KOKKOS_INLINE_FUNCTION int run_links(Leader&, std::false_type /*team-level*/) const {
    return outcome_done;
  }

  /// Teams of several threads (every device backend): the leader pops,
  /// records and releases, the team runs the wave. Like run_solo, the leader
  /// keeps the first successor its release makes ready as the team's next
  /// wave (a chain never touches the queue) and subtracts its completions
  /// from `outstanding` in batches. A wave with more than
  /// `serial_release_max` successors is released by the team's threads
  /// instead (all its ready successors then go through the queue).
  /// Only the leader fences: a team barrier orders the other threads' writes
  /// before its release fence (core/spin_wait.hpp), and the broadcast after
  /// its acquire orders what it acquired before every thread's reads; the
  /// threads of a parallel release fence each, since each publishes with its
  /// own atomics.
  KOKKOS_INLINE_FUNCTION void run_team(const member_type& team) const {
    std::uint64_t* const outstanding_word = s.word(outstanding);
    Leader L;
    for (;;) {
      std::uint64_t code = code_stop;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](std::uint64_t& c) {
            c = code_stop;
            // Both words in one round trip (neither load waits for the other),
            // or as loaded with the held wave.
            const std::uint64_t aborted =
                L.held_loaded ? L.held_aborted : volatile_load(s.word(abort_word));
            const std::uint64_t stopped =
                L.held_loaded ? L.held_stopped : volatile_load(s.word(stop_word));
            const bool linked = L.held_loaded;
            L.held_loaded = false;
            if (aborted != 0) return;
            Ordinal w = 0;
            if (L.held != code_idle) {
              w = static_cast<Ordinal>(L.held);
              L.held = code_idle;
            } else if (queue.try_pop(w)) {
              L.idle = 0;
            } else {
              if (L.done != 0) {
                Kokkos::atomic_fetch_sub(outstanding_word, L.done);
                L.done = 0;
              }
              if (volatile_load(outstanding_word) == 0 || stopped != 0) return;
              spin_pause(L.idle);
              ++L.idle;
              c = code_idle;
              return;
            }
            // A popped or held wave that does not start stays Queued:
            // prepare_dataflow() rebuilds the queue from the states.
            if (!s.may_start(L.poll, stopped)) return;
            s.mark_running(w);
            // w's chain successor: loaded with w when w was held, else now
            // (the load completes while the team runs the wave).
            L.link = linked ? L.held_link : chain_next(w);
            c = static_cast<std::uint64_t>(w);
          },
          code);
      if (code == code_stop) break;
      if (code == code_idle) continue;
      const Ordinal w = static_cast<Ordinal>(code);
      const std::uint32_t outcome = invoke_wave(f, team, w);
      team.team_barrier();  // every thread's writes, before the leader publishes
      int next = outcome_stop;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](int& n) {
            n = s.record(w, outcome, &L.flagged);
            if (n == outcome_again) queue.push(w);  // push fences before it publishes
            if (n != outcome_done) return;
            ++L.done;
            if (L.link != w) {
              // A chain link: w is the successor's only predecessor, and this
              // team runs it next, so nothing is counted or fenced (the team
              // barrier orders the team's writes before its next wave).
              hold_link(L, L.link);
              n = run_links(L, std::integral_constant<bool, !team_level>());
              return;
            }
            const std::uint64_t first = row_map(w), last = row_map(w + 1);
            if (last - first > serial_release_max) {
              n = release_by_team;
              return;
            }
            release_fence();  // the team's writes, before the counters
            for (std::uint64_t e = first; e < last; ++e) {
              const Ordinal t = entries(e);
              if (strata::fetch_sub<ExecSpace>(&remaining(t), Offset(1)) != Offset(1)) continue;
              if (L.held == code_idle)
                L.held = static_cast<std::uint64_t>(t);
              else
                queue.push(t);
            }
            // The other predecessors released their writes before their
            // decrements, which the last decrement observed.
            if (L.held != code_idle) acquire_fence();
          },
          next);
      if (next == outcome_stop) break;
      if (next != release_by_team) continue;
      const std::uint64_t first = row_map(w), last = row_map(w + 1);
      release_fence();  // this thread publishes with its own atomics
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::uint64_t e) {
        const Ordinal t = entries(e);
        if (strata::fetch_sub<ExecSpace>(&remaining(t), Offset(1)) == Offset(1)) queue.push(t);
      });
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (L.done != 0) Kokkos::atomic_fetch_sub(outstanding_word, L.done);
    });
  }
};

/// What a dataflow run that starts from scratch (no wave completed) begins
/// with, computed once per executor: every wave's in-degree and the waves
/// without predecessors, in ascending order.
template <class ExecSpace, class Ordinal, class Offset>
struct DataflowStart {
  Kokkos::View<Offset*, typename ExecSpace::memory_space> in_degree;
  Kokkos::View<Ordinal*, typename ExecSpace::memory_space> sources;
  std::uint64_t source_count = 0;
  /// Per wave: its successor t when it has exactly one and t has no other
  /// predecessor (a chain link: completing w makes t ready, no counter
  /// needed), else the wave itself.
  Kokkos::View<Ordinal*, typename ExecSpace::memory_space> chain_next;
};

template <class ExecSpace, class Ordinal, class Offset>
DataflowStart<ExecSpace, Ordinal, Offset> dataflow_start(
    const ExecSpace& space, const Kokkos::View<Offset*, typename ExecSpace::memory_space>& row_map,
    const Kokkos::View<Ordinal*, typename ExecSpace::memory_space>& entries,
    std::uint64_t waves) {
  DataflowStart<ExecSpace, Ordinal, Offset> start;
  start.in_degree = allocate_view<decltype(start.in_degree)>(waves, "execute::in_degree", true);
  const auto in_degree = start.in_degree;
  Kokkos::parallel_for(
      "strata::execute::dataflow_in_degrees",
      Kokkos::RangePolicy<ExecSpace>(space, 0, entries.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e) {
        strata::fetch_add<ExecSpace>(&in_degree(entries(e)), Offset(1));
      });
  std::uint64_t count = 0;
  Kokkos::parallel_reduce(
      "strata::execute::dataflow_source_count", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& n) { n += in_degree(w) == 0 ? 1 : 0; },
      count);
  start.source_count = count;
  start.chain_next = allocate_view<decltype(start.chain_next)>(waves, "execute::chain_next");
  const auto chain_next = start.chain_next;
  Kokkos::parallel_for(
      "strata::execute::dataflow_chain_links", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w) {
        Ordinal link = static_cast<Ordinal>(w);
        if (row_map(w + 1) - row_map(w) == Offset(1)) {
          const Ordinal t = entries(row_map(w));
          if (in_degree(t) == Offset(1)) link = t;
        }
        chain_next(w) = link;
      });
  start.sources = allocate_view<decltype(start.sources)>(count, "execute::dataflow_sources");
  const auto sources = start.sources;
  Kokkos::parallel_scan(
      "strata::execute::dataflow_sources", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& offset, const bool final) {
        if (in_degree(w) != 0) return;
        if (final) sources(offset) = static_cast<Ordinal>(w);
        ++offset;
      });
  space.fence();
  return start;
}

/// Rebuilds the counters and the ready queue from the wave states (queued
/// on `space` after start_run, which zeroes head and tail). A run from
/// scratch (`fresh`: no wave completed) copies them from `start` (one
/// pass); a resumed run recounts the in-degrees over the waves not completed
/// (three passes).
template <class ExecSpace, class Ordinal, class Offset>
void prepare_dataflow(const ExecSpace& space, const WaveState<ExecSpace, Ordinal>& s,
                      const ReadyQueue<ExecSpace, Ordinal>& queue,
                      const Kokkos::View<Offset*, typename ExecSpace::memory_space>& remaining,
                      const DependencyGraph<ExecSpace, Ordinal, Offset>& graph,
                      const DataflowStart<ExecSpace, Ordinal, Offset>& start, bool fresh) {
  const auto row_map = graph.row_map;
  const auto entries = graph.entries;
  const std::size_t waves = s.state.extent(0);
  const auto state = s.state;
  const auto control = s.control;
  const auto slots = queue.slots;
  const auto sequence = queue.sequence;
  if (fresh) {
    const auto sources = start.sources;
    const auto in_degree = start.in_degree;
    const std::uint64_t count = start.source_count;
    Kokkos::parallel_for(
        "strata::execute::dataflow_queue", Kokkos::RangePolicy<ExecSpace>(space, 0, sequence.extent(0)),
        KOKKOS_LAMBDA(const std::size_t i) {
          if (i < waves) remaining(i) = in_degree(i);
          if (i < count) {
            slots(i) = sources(i);
            sequence(i) = i + 1;  // filled: the pop at position i takes it
          } else {
            sequence(i) = i;  // empty: awaiting the push at position i
          }
          if (i == 0) control(queue_tail) = count;
        });
    return;
  }
  constexpr std::uint32_t done = word_of(TaskState::Completed);
  Kokkos::parallel_for(
      "strata::execute::dataflow_clear",
      Kokkos::RangePolicy<ExecSpace>(space, 0, sequence.extent(0)),  // >= waves
      KOKKOS_LAMBDA(const std::size_t i) {
        if (i < waves) remaining(i) = 0;
        sequence(i) = i;  // empty: awaiting the push at position i
      });
  Kokkos::parallel_for(
      "strata::execute::dataflow_in_degrees", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t u) {
        if (state(u) == done) return;
        const std::uint64_t last = row_map(u + 1);
        for (std::uint64_t e = row_map(u); e < last; ++e)
          strata::fetch_add<ExecSpace>(&remaining(entries(e)), Offset(1));
      });
  Kokkos::parallel_scan(
      "strata::execute::dataflow_ready", Kokkos::RangePolicy<ExecSpace>(space, 0, waves),
      KOKKOS_LAMBDA(const std::size_t w, std::uint64_t& offset, const bool final) {
        const bool ready = state(w) != done && remaining(w) == 0;
        if (final && ready) {
          slots(offset) = static_cast<Ordinal>(w);
          sequence(offset) = offset + 1;
        }
        if (ready) ++offset;
        if (final && w + 1 == waves) control(queue_tail) = offset;
      });
}

/// Launches the dataflow kernel.
template <class ExecSpace, class Ordinal, class Offset, class Functor>
void run_dataflow(const ExecSpace& space,
                  const DataflowKernel<ExecSpace, Ordinal, Offset, Functor>& kernel,
                  std::uint32_t league, int team_size, const std::string& label) {
  Kokkos::parallel_for(label + "::dataflow",
                       Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team_size),
                       kernel);
}

}  // namespace strata::execute::detail
