#pragma once
// The CSR build of the host backends, without a locked instruction and with
// every scattered store inside a cache-sized range:
//
//   histogram  each thread takes an equal slice of the dependency list and
//              counts how many of its dependencies fall into each bucket of
//              2^14 consecutive rows (fewer where rows have many
//              dependencies), and, for the in-degrees, of targets;
//   scatter    each thread copies its slice into the buckets, stably: a
//              bucket holds its dependencies in input order (its rows in a
//              spare index array, its targets already in their bucket's
//              range of `entries`);
//   buckets    each bucket, on its own (a dynamic schedule), counts its
//              rows, scans them into row_map and moves its targets to their
//              slots, all inside the bucket's row counters and its range of
//              `entries`, which stay in a core's cache;
//   in-degrees (when asked) the targets are scattered into the spare by
//              their bucket, and each bucket counts its own.
//
// Each row lists its targets in input order, on every thread count (the
// scatter is stable and the move within a bucket keeps the order). The
// spare (one index per dependency) is freed on return. It replaced a build
// in which every thread read the whole list and kept the rows it owned,
// which read the list once per thread.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <strata/core/even_parts.hpp>
#include <strata/core/scan.hpp>
#include <strata/core/storage.hpp>

namespace strata::graph::detail {

/// Rows (and targets) per bucket, as a power of two: a bucket's row
/// counters (64 KiB of 32-bit offsets) and in-degrees stay in a core's L2.
inline constexpr unsigned csr_bucket_rows_log2 = 14;
/// Where rows have many dependencies a bucket takes fewer rows (down to
/// 2^10), so that its dependencies (their targets and spare indices) stay
/// about 2^15, i.e. 256 KiB, within a core's cache while they are placed.
inline constexpr unsigned csr_bucket_edges_log2 = 15;
inline constexpr unsigned csr_bucket_rows_min_log2 = 10;

/// The spare's element: holds a row (below the wave count, an Ordinal) and a
/// position within a bucket (below the dependency count, an Offset).
template <class Ordinal, class Offset>
using csr_bucket_index_t =
    std::conditional_t<(sizeof(Offset) > sizeof(Ordinal)), Offset, Ordinal>;

/// One past the last row (or target) of bucket k: buckets hold 2^shift
/// consecutive ids, the last one fewer.
KOKKOS_INLINE_FUNCTION std::uint64_t bucket_end(std::uint64_t k, unsigned shift,
                                                std::uint64_t waves) {
  const std::uint64_t end = (k + 1) << shift;
  return end < waves ? end : waves;
}

/// Bucket cursors of the scatter: counted per (part, bucket) with each
/// part's counters together (no shared cache line while counting), scanned
/// in (bucket, part) order so that a bucket takes part 0's dependencies,
/// then part 1's, ... (the input order), and handed back per part.
template <class ExecSpace, class Offset>
class BucketCursors {
 public:
  using View = Kokkos::View<Offset*, typename ExecSpace::memory_space>;

  BucketCursors(std::size_t parts, std::size_t buckets, const char* label)
      : parts_(parts), buckets_(buckets),
        counts_(allocate_view<View>(parts * buckets, std::string("graph::") + label)),
        starts_(allocate_view<View>(parts * buckets + 1, std::string("graph::") + label +
                                                             " starts")) {}

  /// Counter of (part p, bucket k); zeroed by `zero(p)`.
  KOKKOS_INLINE_FUNCTION Offset& at(std::size_t p, std::size_t k) const {
    return counts_(p * buckets_ + k);
  }
  KOKKOS_INLINE_FUNCTION void zero(std::size_t p) const {
    for (std::size_t k = 0; k < buckets_; ++k) counts_(p * buckets_ + k) = 0;
  }
  /// First position of bucket k (valid after `scan`, up to k = buckets).
  KOKKOS_INLINE_FUNCTION Offset bucket_begin(std::size_t k) const { return starts_(k * parts_); }

  /// Part p's pass over its slice of the list (after `scan`): item i takes
  /// the next position of its bucket, key_of(i) >> shift, in list order,
  /// and place(position, i, key_of(i)) stores it there.
  template <class KeyOf, class Place>
  void scatter(const ExecSpace& space, const char* label, std::size_t items, unsigned shift,
               const KeyOf& key_of, const Place& place) const {
    const BucketCursors cursors = *this;
    const std::size_t parts = parts_;
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace>(space, 0, parts), KOKKOS_LAMBDA(const std::size_t p) {
          const std::uint64_t lo = even_part_begin(items, parts, p);
          const std::uint64_t hi = even_part_begin(items, parts, p + 1);
          for (std::uint64_t i = lo; i < hi; ++i) {
            const std::uint64_t key = key_of(i);
            place(cursors.at(p, key >> shift)++, i, key);
          }
        });
  }

  /// Turns the counts into each (part, bucket)'s first position.
  void scan(const ExecSpace& space) const {
    const auto counts = counts_;
    const auto starts = starts_;
    const std::size_t parts = parts_, buckets = buckets_;
    Kokkos::parallel_for(
        "strata::graph::bucket_counts", Kokkos::RangePolicy<ExecSpace>(space, 0, parts * buckets),
        KOKKOS_LAMBDA(const std::size_t c) {
          const std::size_t k = c / parts, p = c % parts;
          starts(c + 1) = counts(p * buckets + k);
          if (c == 0) starts(0) = 0;
        });
    strata::inclusive_scan_in_place(space, starts, "strata::graph::bucket_scan");
    Kokkos::parallel_for(
        "strata::graph::bucket_cursors", Kokkos::RangePolicy<ExecSpace>(space, 0, parts * buckets),
        KOKKOS_LAMBDA(const std::size_t c) {
          const std::size_t k = c / parts, p = c % parts;
          counts(p * buckets + k) = starts(c);
        });
  }

 private:
  std::size_t parts_, buckets_;
  View counts_;
  View starts_;
};

/// Builds row_map (waves + 1) and entries (edges > 0) from row_of / target_of
/// as described above, and the in-degrees into `in_degree` when it is not
/// empty. Throws StorageReserveFailed (nothing of the CSR is valid then).
template <class ExecSpace, class Ordinal, class Offset, class RowMap, class Entries, class RowOf,
          class TargetOf, class InDegree>
void build_csr_by_row_buckets(const ExecSpace& space, std::size_t waves, std::size_t edges,
                              const RowMap& row_map, const Entries& entries, const RowOf& row_of,
                              const TargetOf& target_of, const InDegree& in_degree) {
  using Index = csr_bucket_index_t<Ordinal, Offset>;
  using Spare = Kokkos::View<Index*, typename ExecSpace::memory_space>;
  using Cursors = BucketCursors<ExecSpace, Offset>;
  unsigned shift = csr_bucket_rows_log2;
  while (shift > csr_bucket_rows_min_log2 &&
         (std::uint64_t(edges) >> (csr_bucket_edges_log2 - shift)) > std::uint64_t(waves))
    --shift;
  const bool in_degrees = in_degree.extent(0) != 0;
  const std::size_t buckets = ((waves - 1) >> shift) + 1;  // waves >= 1: edges > 0
  const std::size_t parts = thread_parts(space, edges);

  const Cursors rows(parts, buckets, "row bucket cursors");
  const Cursors targets(in_degrees ? parts : 0, in_degrees ? buckets : 0,
                        "target bucket cursors");
  const Spare spare = allocate_view<Spare>(edges, "graph::bucketed rows");

  // histogram: part p counts its slice of the list per bucket.
  Kokkos::parallel_for(
      "strata::graph::bucket_histogram", Kokkos::RangePolicy<ExecSpace>(space, 0, parts),
      KOKKOS_LAMBDA(const std::size_t p) {
        const std::uint64_t lo = even_part_begin(edges, parts, p);
        const std::uint64_t hi = even_part_begin(edges, parts, p + 1);
        rows.zero(p);
        if (in_degrees) targets.zero(p);
        for (std::uint64_t i = lo; i < hi; ++i) {
          ++rows.at(p, std::uint64_t(row_of(i)) >> shift);
          if (in_degrees) ++targets.at(p, std::uint64_t(target_of(i)) >> shift);
        }
      });
  rows.scan(space);

  // scatter: rows into the spare, targets into entries, bucket by bucket.
  rows.scatter(space, "strata::graph::bucket_scatter", edges, shift, row_of,
               KOKKOS_LAMBDA(const Offset at, const std::size_t i, const std::uint64_t row) {
                 spare(at) = Index(row);
                 entries(at) = Ordinal(target_of(i));
               });

  // buckets: count, scan and place each bucket's rows. row_map(r + 1) is
  // first row r's count, then its start, then (after the placement claims
  // its slots) its end, i.e. row r + 1's start.
  Kokkos::parallel_for(
      "strata::graph::bucket_rows",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, buckets,
                                                                        Kokkos::ChunkSize(1)),
      KOKKOS_LAMBDA(const std::size_t k) {
        const std::uint64_t r0 = std::uint64_t(k) << shift;
        const std::uint64_t r1 = bucket_end(k, shift, waves);
        const std::uint64_t begin = rows.bucket_begin(k);
        const std::uint64_t end = rows.bucket_begin(k + 1);
        if (k == 0) row_map(0) = 0;
        for (std::uint64_t r = r0; r < r1; ++r) row_map(r + 1) = 0;
        for (std::uint64_t i = begin; i < end; ++i) ++row_map(std::uint64_t(spare(i)) + 1);
        Offset start = Offset(begin);
        for (std::uint64_t r = r0; r < r1; ++r) {
          const Offset count = row_map(r + 1);
          row_map(r + 1) = start;
          start += count;
        }
        // Each dependency's slot, relative to the bucket, replaces its row.
        for (std::uint64_t i = begin; i < end; ++i) {
          Offset& cursor = row_map(std::uint64_t(spare(i)) + 1);
          spare(i) = Index(cursor - begin);
          ++cursor;
        }
        // Move every target to its slot by following the permutation's
        // cycles: each swap puts one target where it belongs.
        const std::uint64_t n = end - begin;
        for (std::uint64_t i = 0; i < n; ++i) {
          for (std::uint64_t to = spare(begin + i); to != i; to = spare(begin + i)) {
            const Ordinal target = entries(begin + to);
            entries(begin + to) = entries(begin + i);
            entries(begin + i) = target;
            spare(begin + i) = spare(begin + to);
            spare(begin + to) = Index(to);
          }
        }
      });
  if (!in_degrees) return;

  // in-degrees: the targets by bucket into the (now free) spare, then each
  // bucket counts its own.
  targets.scan(space);
  targets.scatter(space, "strata::graph::target_scatter", edges, shift, target_of,
                  KOKKOS_LAMBDA(const Offset at, std::size_t, const std::uint64_t target) {
                    spare(at) = Index(target);
                  });
  Kokkos::parallel_for(
      "strata::graph::bucket_in_degrees",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, buckets,
                                                                        Kokkos::ChunkSize(1)),
      KOKKOS_LAMBDA(const std::size_t k) {
        const std::uint64_t r0 = std::uint64_t(k) << shift;
        const std::uint64_t r1 = bucket_end(k, shift, waves);
        for (std::uint64_t r = r0; r < r1; ++r) in_degree(r) = 0;
        const std::uint64_t end = targets.bucket_begin(k + 1);
        for (std::uint64_t i = targets.bucket_begin(k); i < end; ++i)
          ++in_degree(std::uint64_t(spare(i)));
      });
}

}  // namespace strata::graph::detail
