#pragma once
// The row kernels of TriangularSolve. They run rows in the handle's level
// order: position p of the layout is a row, the rows of a level are
// contiguous, and every row a row reads sits at a lower position. Each
// position also keeps its row's entry range and diagonal offset (made at
// symbolic time, row_layout.hpp), so a kernel streams them in position order
// instead of reaching row_map and the diagonal through the row index.
//
//  * layered, host: one launch for a stretch of levels (LevelSyncRows):
//    every level is cut into `parts` equal slices, workers take the slices
//    in level order by ticket, and a slice starts once every slice of the
//    levels before has counted itself done (one done counter per stretch).
//    No launch or fork/join per level,
//    no per-row flag. Forward progress needs no co-residency: a slice waits
//    only on slices of lower tickets, all taken by workers already running.
//  * layered, device: one launch per level over the level's positions, a
//    TeamPolicy, a row per team thread and its entries over the vector lanes
//    (a ThreadVectorRange reduction: long rows use the whole warp).
//  * dataflow ("sync-free", Liu et al.): one launch for a stretch of levels.
//    Workers take the stretch's positions in increasing order by ticket (an
//    atomic counter), a chunk at a time; a row waits until every row it reads
//    has set its ready flag to this solve's epoch, then writes x and sets its
//    own flag. Forward progress needs no co-residency: a row waits only on
//    lower positions, which were all taken, by workers already running, before
//    its own; the lowest unfinished position therefore never waits, whatever
//    the scheduler does. On a device a worker is a team thread (its vector
//    lanes take the row's entries: rule R of policy.hpp; several rows share
//    a warp only where its lanes progress independently), flags and x are
//    polled with volatile loads (no stale L1 line), and a release fence
//    orders x before the flag.
//
// Rule V (policy.hpp): on a device a dataflow stretch may instead poll x
// itself (RowSystem::value_ready): x starts the solve holding
// ValueBits::unset, a signalling NaN no arithmetic produces (an operation on a NaN yields a
// quiet one), a row stores its x once, as one aligned word, and a reader
// waits until the word it reads changes. It needs nothing else from the
// writer, so neither side fences. A result that has exactly those bits (a b
// that held them, passed through unchanged) is stored as the quiet NaN.
//
// The layered and in-order kernels set a row's flag only where a later
// dataflow stretch of the schedule reads it (RowSystem::flags). Flags hold
// the epoch of the solve that set them: a new solve only steps the epoch
// instead of clearing them.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/spin_wait.hpp>
#include <strata/solve/detail/row_layout.hpp>

namespace strata::solve::detail {

/// A row's ready flag: the epoch (solve count, wrapping at 255) of its x.
using ready_flag = std::uint8_t;

/// b(i) or b(i, j) for a rank-1 or rank-2 right-hand side.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) at(const V& v, std::size_t i, std::size_t j) {
  if constexpr (V::rank == 1) {
    (void)j;
    return v(i);
  } else {
    return v(i, j);
  }
}

/// Rule V's bit patterns of x: `unset` before a row's x is stored (a
/// signalling NaN, payload "STRATA"), `quiet` what a row stores instead of
/// a result with the unset bits.
template <class Scalar>
struct ValueBits {
  static constexpr bool polled = false;  ///< x can be its own ready flag
};
template <>
struct ValueBits<double> {
  static constexpr bool polled = true;
  using word = std::uint64_t;
  static constexpr word unset = 0x7ff4535452415441ull;
  static constexpr word quiet = 0x7ff8000000000000ull;
};
template <>
struct ValueBits<float> {
  static constexpr bool polled = true;
  using word = std::uint32_t;
  static constexpr word unset = 0x7fa55354u;
  static constexpr word quiet = 0x7fc00000u;
};

/// memcpy of `bytes` bytes where device code may call it: HIP's device
/// compiler has no std::memcpy (nvcc and host compilers do).
KOKKOS_FORCEINLINE_FUNCTION void copy_bytes(void* to, const void* from, std::size_t bytes) {
#if defined(__HIP_DEVICE_COMPILE__)
  __builtin_memcpy(to, from, bytes);
#else
  std::memcpy(to, from, bytes);
#endif
}

template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION bool is_unset(const Scalar v) {
  if constexpr (ValueBits<Scalar>::polled) {
    typename ValueBits<Scalar>::word w;
    copy_bytes(&w, &v, sizeof w);
    return w == ValueBits<Scalar>::unset;
  } else {
    (void)v;
    return false;
  }
}

template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION Scalar from_bits(const typename ValueBits<Scalar>::word w) {
  Scalar v;
  copy_bytes(&v, &w, sizeof v);
  return v;
}

/// What every row kernel reads: the matrix, the level order, the flags.
template <class Mem, class Ordinal, class Offset, class Scalar, class PlanOrdinal,
          class PlanOffset, class B, class X, bool Wide>
struct RowSystem {
  using memory_space = Mem;
  using scalar_type = Scalar;
  Kokkos::View<const Ordinal*, Mem> entries;
  Kokkos::View<const Scalar*, Mem> values;
  RowLayout<Mem, PlanOrdinal, PlanOffset, Wide> layout;  ///< position -> row, its entries, diagonal
  /// row -> epoch its x was set in (a byte: the handle clears the flags when
  /// the epoch wraps, once every 255 solves); empty where no kernel of the
  /// schedule reads it
  Kokkos::View<ready_flag*, Mem> ready;
  B b;
  X x;
  std::size_t rhs = 1;
  ready_flag epoch = 1;
  bool unit = false;
  bool flags = true;  ///< layered rows set their ready flag (a later dataflow stretch reads it)
  /// rule V: x started the solve unset and is its own ready flag (devices,
  /// float and double)
  bool value_ready = false;

  KOKKOS_FORCEINLINE_FUNCTION Scalar pivot(PlanOffset diagonal) const {
    return unit ? Scalar(1) : values(diagonal);
  }
  /// A row's result as it is stored: under rule V never the unset bits.
  KOKKOS_FORCEINLINE_FUNCTION Scalar stored(const Scalar v) const {
    if constexpr (ValueBits<Scalar>::polled) {
      if (value_ready && is_unset(v)) return from_bits<Scalar>(ValueBits<Scalar>::quiet);
    }
    return v;
  }
};

/// Rule V: every x(i, j) set to the unset bits before the solve.
template <class X>
struct UnsetX {
  using Scalar = typename X::non_const_value_type;
  X x;
  std::size_t rows = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const {
    at(x, i % rows, i / rows) = from_bits<Scalar>(ValueBits<Scalar>::unset);
  }
};

/// Layered, host: a row per iteration over positions [begin, end).
template <class System>
struct LayeredRows {
  System s;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t p) const {
    const std::size_t r = s.layout.row(p);
    const auto span = s.layout.span(p);
    const auto begin = span.begin, end = span.end;
    for (std::size_t j = 0; j < s.rhs; ++j) {
      typename System::scalar_type sum = at(s.b, r, j);
      for (auto e = begin; e < end; ++e) {
        const std::size_t c = static_cast<std::size_t>(s.entries(e));
        if (c != r) sum -= s.values(e) * at(s.x, c, j);
      }
      at(s.x, r, j) = sum / s.pivot(span.diagonal);
    }
    if (s.flags) s.ready(r) = s.epoch;
  }
};

/// One worker, host: positions [first, last) one after another (level order
/// is a substitution order: nothing to wait for).
template <class System>
struct InOrderRows {
  System s;
  std::size_t first = 0, last = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t) const {
    const LayeredRows<System> row{s};
    for (std::size_t p = first; p < last; ++p) row(p);
  }
};

/// x(r, j) from row r's CSR entries [begin, end) in their stored order, the
/// diagonal wherever it sits: the arithmetic of the host row-order kernels
/// (RowOrderRows, PipelinedRows), the same as LayeredRows' (the same x,
/// bitwise). The caller passes the Views it reads (local copies on a hot
/// path, so that the functor's members are not reloaded per row).
template <class Scalar, class Entries, class Values, class B, class X, class Offset>
KOKKOS_FORCEINLINE_FUNCTION void substitute_csr_row(const Entries& entries, const Values& values,
                                                    const B& b, const X& x, const bool unit,
                                                    const std::size_t r, const Offset begin,
                                                    const Offset end, const std::size_t j) {
  Scalar sum = at(b, r, j);
  Scalar pivot = Scalar(1);
  for (auto e = begin; e < end; ++e) {
    const std::size_t c = static_cast<std::size_t>(entries(e));
    if (c != r) sum -= values(e) * at(x, c, j);
    else if (!unit) pivot = values(e);
  }
  at(x, r, j) = sum / pivot;
}

/// One worker, host, over the whole solve (rule O): the rows in index order
/// (ascending for a lower triangle, descending for an upper one), straight
/// from the CSR, with the arithmetic of LayeredRows (the same x, bitwise).
template <class System, class RowMap>
struct RowOrderRows {
  System s;
  RowMap row_map;
  bool lower = true;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t) const {
    using Scalar = typename System::scalar_type;
    const std::size_t n = row_map.extent(0) - 1;
    if (s.rhs == 1 && !s.flags) {  // the common case: one right-hand side, no flags to set
      const auto entries = s.entries;
      const auto values = s.values;
      const auto b = s.b;
      const auto x = s.x;
      const bool unit = s.unit;
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t r = lower ? i : n - 1 - i;
        substitute_csr_row<Scalar>(entries, values, b, x, unit, r, row_map(r), row_map(r + 1), 0);
      }
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t r = lower ? i : n - 1 - i;
      const auto begin = row_map(r), end = row_map(r + 1);
      for (std::size_t j = 0; j < s.rhs; ++j)
        substitute_csr_row<Scalar>(s.entries, s.values, s.b, s.x, s.unit, r, begin, end, j);
      if (s.flags) s.ready(r) = s.epoch;
    }
  }
};

/// Rule P's progress counters: block k's at slot (k % 8) * stride + k / 8,
/// so that consecutive blocks, which different workers run at once, write
/// different cache lines.
struct PipelineSlots {
  std::size_t stride = 8;
  static PipelineSlots for_blocks(std::size_t blocks) {
    const std::size_t per = (blocks + 7) / 8;
    return PipelineSlots{per < 8 ? 8 : per};
  }
  std::size_t size() const { return 8 * stride; }
  KOKKOS_INLINE_FUNCTION std::size_t operator()(std::size_t block) const {
    return (block % 8) * stride + block / 8;
  }
};

/// Pipelined row order, host (rule P): `workers` iterations take blocks of
/// `block` rows in substitution order by ticket and run each block's rows in
/// that order, with RowOrderRows' arithmetic (the same x, bitwise). A row
/// that reads a row of an earlier block waits until that block's progress
/// counter (the substitution index + 1 of its last published row, zeroed
/// before the solve) has passed it; a block publishes every publish_rows
/// rows and at its end. Forward progress needs no co-residency: a block
/// waits only on blocks of lower tickets, taken by workers already running,
/// so the lowest unfinished block never waits.
template <class System, class RowMap>
struct PipelinedRows {
  using Counters = Kokkos::View<std::uint64_t*, typename System::memory_space>;
  /// Rows between two publications of a block's progress: a reader's cache
  /// line of x and of the counter then moves once per so many rows, not per row.
  static constexpr std::size_t publish_rows = 32;
  System s;
  RowMap row_map;
  Counters tickets;
  std::size_t ticket = 0;  ///< this stretch's counter in `tickets`
  Counters progress;       ///< a counter per block, at slots(block)
  PipelineSlots slots;
  std::size_t block = 1;
  bool lower = true;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t) const {
    using Scalar = typename System::scalar_type;
    const std::size_t n = row_map.extent(0) - 1;
    const std::uint64_t blocks = (n + block - 1) / block;
    for (;;) {
      const std::uint64_t t = Kokkos::atomic_fetch_add(&tickets(ticket), std::uint64_t(1));
      if (t >= blocks) return;  // at most `workers` tickets past the end: no wrap
      const std::size_t first = std::size_t(t) * block;
      const std::size_t end = first + block < n ? first + block : n;
      // The last counter read: its block's rows [seen_first, seen_first +
      // block) are final below `seen` (no division on the common path).
      std::size_t seen_first = n, seen = 0;
      for (std::size_t k = first; k < end; ++k) {
        const std::size_t r = lower ? k : n - 1 - k;
        const auto begin = row_map(r), stop = row_map(r + 1);
        // First wait for the rows of earlier blocks it reads, then sum: no
        // call inside the arithmetic loop (a call would spill the sum).
        for (auto e = begin; e < stop; ++e) {
          const std::size_t c = static_cast<std::size_t>(s.entries(e));
          const std::size_t sc = lower ? c : n - 1 - c;  // < k unless c == r
          // unsigned: true where sc is below seen_first too
          if (c != r && sc < first && (sc - seen_first >= block || seen <= sc)) {
            const std::size_t cb = sc / block;
            seen_first = cb * block;
            const std::uint64_t* counter = &progress(slots(cb));
            std::uint64_t done = 0;
            for (std::uint64_t spins = 0; (done = volatile_load(counter)) <= sc; ++spins)
              spin_pause(spins);
            seen = static_cast<std::size_t>(done);
            acquire_fence();
          }
        }
        for (std::size_t j = 0; j < s.rhs; ++j)
          substitute_csr_row<Scalar>(s.entries, s.values, s.b, s.x, s.unit, r, begin, stop, j);
        if ((k + 1 - first) % publish_rows == 0 || k + 1 == end) {
          release_fence();
          volatile_store(&progress(slots(t)), std::uint64_t(k + 1));
        }
      }
    }
  }
};

/// Layered, host: levels [first_level, end_level) in one launch of
/// `workers` iterations. Ticket t is slice t % parts of level first_level +
/// t / parts; a slice waits until the stretch's done counter counts every
/// slice of the levels before its own, runs its rows one after another, and
/// counts itself done. One counter serves every level: no slice of a level
/// starts before the level below has ended, so slices end in level order and
/// the count reaches (level - first_level) * parts exactly when the levels
/// below `level` have all ended.
template <class System>
struct LevelSyncRows {
  System s;
  Kokkos::View<const std::uint64_t*, typename System::memory_space> level_offsets;
  Kokkos::View<std::uint64_t*, typename System::memory_space> counters;
  std::size_t ticket = 0;      ///< this stretch's ticket counter in `counters`
  std::size_t done = 0;        ///< counters(done): the stretch's slices done
  std::size_t first_level = 0, end_level = 0;
  std::uint64_t parts = 1;     ///< slices per level
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t) const {
    const std::uint64_t slices = std::uint64_t(end_level - first_level) * parts;
    const LayeredRows<System> row{s};
    for (;;) {
      const std::uint64_t t = Kokkos::atomic_fetch_add(&counters(ticket), std::uint64_t(1));
      if (t >= slices) return;  // at most `workers` tickets past the end: no wrap
      const std::size_t level = first_level + std::size_t(t / parts);
      const std::uint64_t part = t % parts;
      if (level > first_level) {
        // A level's hand-off takes well under a microsecond, a wide level's
        // slices may end some tens of us apart: the first pure_spins waits
        // (about half a millisecond of x86 pauses) only pause, then each
        // wait sleeps (spin_pause's long-wait step), never yields. A worker
        // that yields keeps its core busy, so a preempted worker holding a
        // slice stays queued behind whatever else runs on the other core for
        // a whole time slice; a sleeping one leaves its core idle for it.
        constexpr std::uint64_t pure_spins = 16384;
        const std::uint64_t* ended = &counters(done);
        const std::uint64_t below = std::uint64_t(level - first_level) * parts;
        for (std::uint64_t spins = 0; volatile_load(ended) < below; ++spins)
          spin_pause(spins < pure_spins ? 0 : spins);
        acquire_fence();
      }
      const std::uint64_t begin = level_offsets(level), width = level_offsets(level + 1) - begin;
      const std::uint64_t lo = begin + width * part / parts;
      const std::uint64_t hi = begin + width * (part + 1) / parts;
      for (std::uint64_t p = lo; p < hi; ++p) row(std::size_t(p));
      release_fence();
      Kokkos::atomic_fetch_add(&counters(done), std::uint64_t(1));
    }
  }
};

/// Layered, device: a row per team thread, its entries over the vector lanes.
template <class System, class ExecSpace>
struct LayeredTeamRows {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  System s;
  std::size_t first = 0, last = 0;  ///< the level's positions
  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const std::size_t base = first + std::size_t(team.league_rank()) * team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](const int t) {
      const std::size_t p = base + std::size_t(t);
      if (p >= last) return;
      const std::size_t r = s.layout.row(p);
      const auto span = s.layout.span(p);
      const auto begin = span.begin, end = span.end;
      for (std::size_t j = 0; j < s.rhs; ++j) {
        using Scalar = typename System::scalar_type;
        Scalar sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, static_cast<std::size_t>(end - begin)),
            [&](const std::size_t k, Scalar& acc) {
              const std::size_t c = static_cast<std::size_t>(s.entries(begin + k));
              if (c != r) acc += s.values(begin + k) * at(s.x, c, j);
            },
            sum);
        Kokkos::single(Kokkos::PerThread(team), [&] {
          at(s.x, r, j) = s.stored((at(s.b, r, j) - sum) / s.pivot(span.diagonal));
        });
      }
      if (s.flags) Kokkos::single(Kokkos::PerThread(team), [&] { s.ready(r) = s.epoch; });
    });
  }
};

/// Layered, device: levels [first_level, end_level) in one launch (rule D).
/// Level l's slices are tickets slices(l) .. slices(l + 1) - 1 (slices is
/// over all levels), each team_size rows, a row per team thread and its
/// entries over the vector lanes. A team takes the stretch's slices by
/// ticket; its first thread waits until the stretch's done counter counts
/// every slice of the levels before (one counter for all levels, as in
/// LevelSyncRows: slices end in level order), and a team barrier lets the
/// other threads go.
/// Forward progress needs no co-residency: a slice waits only on slices of
/// lower tickets, taken by teams already running. The x of other rows is
/// read with volatile loads: another multiprocessor wrote it during this
/// launch, after this one may have cached its line.
template <class System, class ExecSpace>
struct LevelSyncTeamRows {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  System s;
  Kokkos::View<const std::uint64_t*, typename System::memory_space> level_offsets;
  Kokkos::View<const std::uint64_t*, typename System::memory_space> slices;
  Kokkos::View<std::uint64_t*, typename System::memory_space> counters;
  std::size_t ticket = 0;     ///< this stretch's ticket counter in `counters`
  std::size_t done = 0;       ///< counters(done): the stretch's slices done
  std::size_t first_level = 0, end_level = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    using Scalar = typename System::scalar_type;
    const std::uint64_t first_slice = slices(first_level);
    const std::uint64_t count = slices(end_level) - first_slice;
    const std::size_t rows_per_slice = std::size_t(team.team_size());
    for (;;) {
      std::uint64_t t = 0;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](std::uint64_t& mine) {
            mine = Kokkos::atomic_fetch_add(&counters(ticket), std::uint64_t(1));
          },
          t);
      if (t >= count) return;  // the same t in every thread: the team leaves together
      const std::uint64_t g = first_slice + t;
      // The level holding slice g: slices(lo) <= g < slices(hi), halved each
      // step (at most log2(levels) steps).
      std::size_t lo = first_level, hi = end_level;
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (slices(mid) <= g) lo = mid; else hi = mid;
      }
      const std::size_t level = lo;
      if (level > first_level) {
        Kokkos::single(Kokkos::PerTeam(team), [&] {
          const std::uint64_t below = slices(level) - first_slice;
          const std::uint64_t* ended = &counters(done);
          for (std::uint64_t spins = 0; volatile_load(ended) < below; ++spins) spin_pause(spins);
          acquire_fence();
        });
        team.team_barrier();
      }
      const std::size_t p = std::size_t(level_offsets(level)) +
                            std::size_t(g - slices(level)) * rows_per_slice +
                            std::size_t(team.team_rank());
      if (p < std::size_t(level_offsets(level + 1))) {
        const std::size_t r = s.layout.row(p);
        const auto span = s.layout.span(p);
        const auto begin = span.begin, end = span.end;
        for (std::size_t j = 0; j < s.rhs; ++j) {
          Scalar sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, static_cast<std::size_t>(end - begin)),
              [&](const std::size_t k, Scalar& acc) {
                const std::size_t c = static_cast<std::size_t>(s.entries(begin + k));
                if (c != r) acc += s.values(begin + k) * volatile_load(&at(s.x, c, j));
              },
              sum);
          Kokkos::single(Kokkos::PerThread(team), [&] {
            at(s.x, r, j) = s.stored((at(s.b, r, j) - sum) / s.pivot(span.diagonal));
          });
        }
        if (s.flags) Kokkos::single(Kokkos::PerThread(team), [&] { s.ready(r) = s.epoch; });
      }
      // Every row of the slice is written before its first thread counts it
      // done (the release fence is cumulative over the barrier).
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&] {
        release_fence();
        Kokkos::atomic_fetch_add(&counters(done), std::uint64_t(1));
      });
    }
  }
};

/// Waits until row c's x is set in this solve (bounded: c sits at a lower
/// position, so some running worker sets it; see the header comment).
template <class System>
KOKKOS_FORCEINLINE_FUNCTION void wait_ready(const System& s, std::size_t c) {
  const ready_flag* flag = &s.ready(c);
  for (std::uint64_t spins = 0; volatile_load(flag) != s.epoch; ++spins) spin_pause(spins);
  acquire_fence();
}

template <class System>
KOKKOS_FORCEINLINE_FUNCTION void publish(const System& s, std::size_t r) {
  release_fence();
  volatile_store(&s.ready(r), s.epoch);
}

/// Dataflow, host: `workers` iterations, each taking chunks of `chunk`
/// positions of [first, last) by ticket until none is left.
template <class System>
struct DataflowRows {
  System s;
  Kokkos::View<std::uint64_t*, typename System::memory_space> tickets;
  std::size_t ticket = 0;  ///< this stretch's counter
  std::size_t first = 0, last = 0, chunk = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t) const {
    const std::uint64_t chunks = (last - first + chunk - 1) / chunk;
    for (;;) {
      const std::uint64_t t = Kokkos::atomic_fetch_add(&tickets(ticket), std::uint64_t(1));
      if (t >= chunks) return;  // at most `workers` tickets past the end: no wrap
      const std::size_t begin = first + std::size_t(t) * chunk;
      const std::size_t end = begin + chunk < last ? begin + chunk : last;
      for (std::size_t p = begin; p < end; ++p) row(p);
    }
  }
  KOKKOS_INLINE_FUNCTION void row(const std::size_t p) const {
    const std::size_t r = s.layout.row(p);
    const auto span = s.layout.span(p);
    const auto begin = span.begin, end = span.end;
    // First wait for every row it reads, then sum: no call inside the
    // arithmetic loop (a call would spill the sum to memory).
    for (auto e = begin; e < end; ++e) {
      const std::size_t c = static_cast<std::size_t>(s.entries(e));
      if (c != r) wait_ready(s, c);
    }
    for (std::size_t j = 0; j < s.rhs; ++j) {
      typename System::scalar_type sum = at(s.b, r, j);
      for (auto e = begin; e < end; ++e) {
        const std::size_t c = static_cast<std::size_t>(s.entries(e));
        if (c != r) sum -= s.values(e) * volatile_load(&at(s.x, c, j));
      }
      at(s.x, r, j) = sum / s.pivot(span.diagonal);
    }
    publish(s, r);
  }
};

/// Rule V: waits until x(c, j) is stored in this solve and returns it (a
/// bounded wait, as wait_ready's).
template <class System>
KOKKOS_FORCEINLINE_FUNCTION typename System::scalar_type wait_value(const System& s,
                                                                    std::size_t c,
                                                                    std::size_t j) {
  const auto* word = &at(s.x, c, j);
  auto v = volatile_load(word);
  for (std::uint64_t spins = 0; is_unset(v); ++spins) {
    spin_pause(spins);
    v = volatile_load(word);
  }
  return v;
}

/// Dataflow, device: a team takes team_size consecutive positions per ticket,
/// a team thread (rule R's vector lanes) per row. ValueReady: rule V (x is
/// its own ready flag), else the ready flags.
template <class System, class ExecSpace, bool ValueReady>
struct DataflowTeamRows {
  using member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  System s;
  Kokkos::View<std::uint64_t*, typename System::memory_space> tickets;
  std::size_t ticket = 0;
  std::size_t first = 0, last = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    using Scalar = typename System::scalar_type;
    const std::size_t per_ticket = std::size_t(team.team_size());
    const std::uint64_t chunks = (last - first + per_ticket - 1) / per_ticket;
    for (;;) {
      std::uint64_t t = 0;
      Kokkos::single(
          Kokkos::PerTeam(team),
          [&](std::uint64_t& mine) {
            mine = Kokkos::atomic_fetch_add(&tickets(ticket), std::uint64_t(1));
          },
          t);
      if (t >= chunks) return;  // the same t in every thread: the team leaves together
      const std::size_t p = first + std::size_t(t) * per_ticket + std::size_t(team.team_rank());
      if (p < last) {
        const std::size_t r = s.layout.row(p);
        const auto span = s.layout.span(p);
        const auto begin = span.begin, end = span.end;
        for (std::size_t j = 0; j < s.rhs; ++j) {
          Scalar sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, static_cast<std::size_t>(end - begin)),
              [&](const std::size_t k, Scalar& acc) {
                const std::size_t c = static_cast<std::size_t>(s.entries(begin + k));
                if (c == r) return;
                if constexpr (ValueReady) {
                  acc += s.values(begin + k) * wait_value(s, c, j);
                } else {
                  wait_ready(s, c);
                  acc += s.values(begin + k) * volatile_load(&at(s.x, c, j));
                }
              },
              sum);
          Kokkos::single(Kokkos::PerThread(team), [&] {
            const Scalar v = s.stored((at(s.b, r, j) - sum) / s.pivot(span.diagonal));
            if constexpr (ValueReady) volatile_store(&at(s.x, r, j), v);
            else at(s.x, r, j) = v;
          });
        }
        if constexpr (!ValueReady) Kokkos::single(Kokkos::PerThread(team), [&] { publish(s, r); });
      }
    }
  }
};

}  // namespace strata::solve::detail
