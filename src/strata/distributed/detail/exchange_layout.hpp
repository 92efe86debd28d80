#pragma once
// The distributed Executor's static schedule of one rank, built once, on the
// host, when the Executor is constructed (collective):
//
//  * segments: the rank's waves in (global level, id) order, cut into runs of
//    consecutive local levels. A segment starts at a level where some wave
//    has a remote predecessor (its messages must be in first) and ends after
//    `output_levels_per_message` levels that have a wave with a remote
//    successor (its messages leave when the segment ends: the aggregation
//    knob; 0 closes it like 1). A segment is one run of the single-rank
//    Executor.
//  * messages: the cross-rank dependencies a segment sends, one MPI message
//    per (segment, destination rank) — per (segment, destination, sending
//    wave) when `output_levels_per_message` is 0 — each dependency one slot
//    of message_bytes bytes, ordered by the sending wave's level; the slots
//    of a segment are contiguous in the send buffer, grouped by destination. Every receiver learns, through one
//    MPI_Alltoallv, the dependencies of each message it will receive, in the
//    order they are sent, and lays its receive buffer out by source rank and
//    message.
//
// Deadlock freedom: a segment only waits for waves of lower levels, and a
// segment sends when it ends, so the unfinished segment with the lowest first
// level over all ranks can always run.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include <mpi.h>

#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distribute_dependencies.hpp>

namespace strata::distributed::detail {

struct SegmentSend {
  int destination = 0;
  std::uint64_t slot_begin = 0, slot_end = 0;  ///< into the send buffer
};

struct SegmentLayout {
  std::uint64_t position_begin = 0, position_end = 0;  ///< into the (level, id) order
  std::uint64_t first_level = 0, level_count = 0;      ///< local levels it spans
  std::uint64_t in_begin = 0, in_end = 0;    ///< into the incoming slot lists
  std::uint64_t out_begin = 0, out_end = 0;  ///< send-buffer slots it packs
  std::vector<SegmentSend> sends;            ///< one message per destination
  std::uint64_t messages_needed = 0;         ///< distinct messages its waves read
};

struct IncomingMessage {
  int source = 0;
  std::uint64_t slot_begin = 0, slot_end = 0;  ///< into the receive buffer
  std::vector<std::uint64_t> segments;         ///< segments that read it (ascending)
};

/// The host schedule (see the file comment).
struct ExchangeLayout {
  std::vector<std::uint64_t> order;  ///< position -> owned wave (local id), by (level, id)
  std::vector<std::uint64_t> level_of_position;
  std::vector<SegmentLayout> segments;
  std::vector<std::uint64_t> segment_of_wave;  ///< local id -> segment
  // outgoing slots, in send-buffer order
  std::vector<std::uint64_t> out_before, out_after;
  // incoming slots grouped by the segment that reads them
  std::vector<std::uint64_t> in_before, in_after, in_slot;
  std::vector<IncomingMessage> incoming;  ///< in the order of the receive buffer
  std::uint64_t incoming_slots = 0;
};

inline int owner_of_wave(const std::vector<std::uint64_t>& begin, std::uint64_t w) {
  return int(std::upper_bound(begin.begin(), begin.end(), w) - begin.begin()) - 1;
}

/// MPI_Alltoallv of uint64 records of `width` words, grouped by destination.
inline std::vector<std::uint64_t> exchange_records(const Communicator& comm,
                                                   const std::vector<std::uint64_t>& send,
                                                   const std::vector<int>& send_records,
                                                   int width, std::vector<int>& recv_records) {
  recv_records = comm.exchange_counts(send_records);
  std::uint64_t total = 0;
  for (int c : recv_records) total += std::uint64_t(c);
  std::vector<std::uint64_t> recv(total * std::uint64_t(width));
  const ContiguousType<std::uint64_t> record(width);
  comm.all_to_all(send.data(), send_records, recv.data(), recv_records, record.get());
  return recv;
}

/// Builds the schedule from the owned waves' levels and out-edges (host
/// copies: row_map over the local ids, entries the global targets).
template <class Offset, class Ordinal>
ExchangeLayout build_exchange_layout(const Communicator& comm,
                                     const std::vector<std::uint64_t>& wave_begin,
                                     const Ordinal* level, const Offset* row_map,
                                     const Ordinal* entries, std::uint64_t output_levels_per_message) {
  const int ranks = comm.size(), rank = comm.rank();
  const std::uint64_t lo = wave_begin[std::size_t(rank)];
  const std::uint64_t n = wave_begin[std::size_t(rank) + 1] - lo;
  ExchangeLayout L;

  // Remote out-edges, grouped by destination, announced to their owners.
  std::vector<std::vector<std::uint64_t>> by_dest(static_cast<std::size_t>(ranks));
  std::vector<char> has_out(n, 0), has_in(n, 0);
  for (std::uint64_t u = 0; u < n; ++u)
    for (Offset e = row_map[u]; e < row_map[u + 1]; ++e) {
      const std::uint64_t t = entries[e];
      if (t - lo < n) continue;
      has_out[u] = 1;
      auto& d = by_dest[std::size_t(owner_of_wave(wave_begin, t))];
      d.push_back(lo + u);
      d.push_back(t);
    }
  {
    std::vector<std::uint64_t> send;
    std::vector<int> counts(static_cast<std::size_t>(ranks)), recv_counts;
    for (int r = 0; r < ranks; ++r) {
      counts[std::size_t(r)] = mpi_count(by_dest[std::size_t(r)].size() / 2);
      send.insert(send.end(), by_dest[std::size_t(r)].begin(), by_dest[std::size_t(r)].end());
    }
    const auto recv = exchange_records(comm, send, counts, 2, recv_counts);
    for (std::size_t i = 0; i < recv.size(); i += 2) has_in[recv[i + 1] - lo] = 1;
  }

  // Positions in (level, id) order, and the segments over them.
  L.order.resize(n);
  std::iota(L.order.begin(), L.order.end(), std::uint64_t(0));
  std::stable_sort(L.order.begin(), L.order.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return level[a] < level[b]; });
  L.level_of_position.resize(n);
  for (std::uint64_t p = 0; p < n; ++p) L.level_of_position[p] = level[L.order[p]];
  L.segment_of_wave.assign(n, 0);
  const std::uint64_t per_message = std::max<std::uint64_t>(1, output_levels_per_message);
  std::uint64_t outputs = 0;  // levels with remote successors in the open segment
  bool closed = true;         // the next level opens a segment
  for (std::uint64_t p = 0; p < n;) {
    std::uint64_t q = p;
    bool in = false, out = false;
    while (q < n && L.level_of_position[q] == L.level_of_position[p]) {
      in = in || has_in[L.order[q]];
      out = out || has_out[L.order[q]];
      ++q;
    }
    if (closed || in) {
      SegmentLayout s;
      s.position_begin = p;
      s.first_level = L.level_of_position[p];
      L.segments.push_back(s);
      outputs = 0;
      closed = false;
    }
    SegmentLayout& s = L.segments.back();
    s.position_end = q;
    ++s.level_count;
    for (std::uint64_t i = p; i < q; ++i) L.segment_of_wave[L.order[i]] = L.segments.size() - 1;
    if (out && ++outputs >= per_message) closed = true;
    p = q;
  }

  // Outgoing slots: by (segment, destination, before, after).
  struct Edge {
    std::uint64_t segment, level, before, after;
    int dest;
  };
  std::vector<Edge> out;
  for (int r = 0; r < ranks; ++r) {
    const auto& d = by_dest[std::size_t(r)];
    for (std::size_t i = 0; i < d.size(); i += 2)
      out.push_back({L.segment_of_wave[d[i] - lo], std::uint64_t(level[d[i] - lo]), d[i], d[i + 1], r});
  }
  // By the sending wave's level within a segment: a message that leaves as
  // soon as its waves complete (Readiness::Wave) is never queued behind one
  // of a later level to the same destination.
  std::sort(out.begin(), out.end(), [](const Edge& a, const Edge& b) {
    if (a.segment != b.segment) return a.segment < b.segment;
    if (a.dest != b.dest) return a.dest < b.dest;
    if (a.level != b.level) return a.level < b.level;
    if (a.before != b.before) return a.before < b.before;
    return a.after < b.after;
  });
  const bool per_wave = output_levels_per_message == 0;
  std::vector<std::vector<std::uint64_t>> manifest(static_cast<std::size_t>(ranks));
  std::vector<std::uint64_t> message_number(static_cast<std::size_t>(ranks), 0);
  for (std::size_t i = 0; i < out.size();) {
    std::size_t j = i;
    while (j < out.size() && out[j].segment == out[i].segment && out[j].dest == out[i].dest &&
           (!per_wave || out[j].before == out[i].before))
      ++j;
    SegmentLayout& s = L.segments[out[i].segment];
    if (s.sends.empty()) s.out_begin = i;
    s.out_end = j;
    s.sends.push_back({out[i].dest, i, j});
    const std::uint64_t m = message_number[std::size_t(out[i].dest)]++;
    for (std::size_t k = i; k < j; ++k) {
      auto& mf = manifest[std::size_t(out[k].dest)];
      mf.push_back(out[k].before);
      mf.push_back(out[k].after);
      mf.push_back(m);
    }
    i = j;
  }
  for (std::uint64_t s = 1; s < L.segments.size(); ++s)
    if (L.segments[s].sends.empty()) L.segments[s].out_begin = L.segments[s].out_end = L.segments[s - 1].out_end;
  for (const Edge& e : out) {
    L.out_before.push_back(e.before);
    L.out_after.push_back(e.after);
  }

  // Incoming: the receive buffer by source rank, then message, then slot.
  std::vector<int> counts(static_cast<std::size_t>(ranks)), recv_counts;
  std::vector<std::uint64_t> send;
  for (int r = 0; r < ranks; ++r) {
    counts[std::size_t(r)] = mpi_count(manifest[std::size_t(r)].size() / 3);
    send.insert(send.end(), manifest[std::size_t(r)].begin(), manifest[std::size_t(r)].end());
  }
  const auto recv = exchange_records(comm, send, counts, 3, recv_counts);
  L.incoming_slots = recv.size() / 3;
  std::vector<std::uint64_t> slot_segment(L.incoming_slots);
  std::uint64_t slot = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::uint64_t end = slot + std::uint64_t(recv_counts[std::size_t(r)]);
    while (slot < end) {
      IncomingMessage m;
      m.source = r;
      m.slot_begin = slot;
      const std::uint64_t number = recv[3 * slot + 2];
      while (slot < end && recv[3 * slot + 2] == number) {
        const std::uint64_t seg = L.segment_of_wave[recv[3 * slot + 1] - lo];
        slot_segment[slot] = seg;
        if (m.segments.empty() || m.segments.back() != seg) m.segments.push_back(seg);
        ++slot;
      }
      m.slot_end = slot;
      std::sort(m.segments.begin(), m.segments.end());
      m.segments.erase(std::unique(m.segments.begin(), m.segments.end()), m.segments.end());
      for (std::uint64_t seg : m.segments) ++L.segments[seg].messages_needed;
      L.incoming.push_back(std::move(m));
    }
  }
  std::vector<std::uint64_t> by_segment(L.incoming_slots);
  std::iota(by_segment.begin(), by_segment.end(), std::uint64_t(0));
  std::stable_sort(by_segment.begin(), by_segment.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return slot_segment[a] < slot_segment[b]; });
  std::uint64_t at = 0;
  for (std::uint64_t s = 0; s < L.segments.size(); ++s) {
    L.segments[s].in_begin = at;
    while (at < by_segment.size() && slot_segment[by_segment[at]] == s) ++at;
    L.segments[s].in_end = at;
  }
  for (std::uint64_t i : by_segment) {
    L.in_before.push_back(recv[3 * i]);
    L.in_after.push_back(recv[3 * i + 1]);
    L.in_slot.push_back(i);
  }
  return L;
}

}  // namespace strata::distributed::detail
