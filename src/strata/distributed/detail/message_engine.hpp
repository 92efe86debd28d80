#pragma once
// The distributed Executor's MPI side: the receives of every message a rank
// expects (posted at once; the k-th message from a source carries tag
// first_data_tag + k mod tag_space(), so messages may arrive in any order,
// and two that share a tag match in the order sent: MPI's non-overtaking
// rule), the sends of each finished segment or wave, the stop notices, and
// the collective stop.
//
// Every wait is a polling loop (MPI_Testsome, MPI_Iprobe, MPI_Test) inside a
// watchdog scope that restarts whenever something arrives: a rank that died
// or hangs ends the others in bounded time (watchdog.hpp), while a rank that
// merely waits for a slower one's local work is not ended as long as any
// message arrives within the MPI timeout.
//
// The collective stop (after the last segment, the wall-time limit, or a
// fault): every rank joins an MPI_Ibarrier and keeps receiving while it waits
// (no rank starts a segment after joining); then the ranks exchange how many
// messages each sent to each, every rank completes exactly those receives
// (so nothing is in flight and run() can resume), and the stop notices are
// all received.
#include <cstdint>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include <mpi.h>

#include <strata/distributed/communicator.hpp>
#include <strata/distributed/distribute_dependencies.hpp>
#include <strata/distributed/detail/exchange_layout.hpp>
#include <strata/distributed/watchdog.hpp>

namespace strata::distributed::detail {

inline constexpr int stop_tag = 2;
inline constexpr int first_data_tag = 3;

/// Waiting: poll back to back at first (a message due within microseconds
/// is seen at once), then yield between polls, then, after `yields` idle polls
/// in a row, sleep briefly between polls (ranks that share cores, as on an
/// oversubscribed node, otherwise starve the one whose message they wait for).
class Backoff {
 public:
  void busy() { idle_ = 0; }
  void idle() {
    ++idle_;
    if (idle_ < spins) return;
    if (idle_ < yields) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(20));
  }

 private:
  static constexpr std::uint32_t spins = 200, yields = 2000;
  std::uint32_t idle_ = 0;
};

/// A watchdog scope that restarts on progress (see the file comment).
class WatchedWait {
 public:
  WatchedWait(const char* call, int rank) : call_(call), rank_(rank) { scope_.emplace(call_, rank_); }
  void progressed() {
    scope_.reset();
    scope_.emplace(call_, rank_);
  }
  void pause() { scope_.reset(); }

 private:
  const char* call_;
  int rank_;
  std::optional<BlockingCall> scope_;
};

class MessageEngine {
 public:
  MessageEngine(MPI_Comm comm, const ExchangeLayout& layout, std::uint64_t message_bytes)
      : message_bytes_(message_bytes) {
    for (const auto& m : layout.incoming) (void)mpi_count((m.slot_end - m.slot_begin) * message_bytes_);
    check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup", comm);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
    int* tag_ub = nullptr;
    int has_tag_ub = 0;
    MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &has_tag_ub);
    // MPI guarantees tags up to at least 32767.
    tag_space_ = std::uint64_t(has_tag_ub && tag_ub ? std::max(*tag_ub, 32767) : 32767) -
                 std::uint64_t(first_data_tag) + 1;
    recv_requests_.assign(layout.incoming.size(), MPI_REQUEST_NULL);
    first_message_of_.assign(std::size_t(ranks_) + 1, 0);
    for (const auto& m : layout.incoming) ++first_message_of_[std::size_t(m.source) + 1];
    for (int r = 0; r < ranks_; ++r)
      first_message_of_[std::size_t(r) + 1] += first_message_of_[std::size_t(r)];
    received_of_.assign(std::size_t(ranks_), 0);
    sent_to_.assign(std::size_t(ranks_), 0);
    cursor_.assign(first_message_of_.begin(), first_message_of_.end() - 1);
  }
  // Posted requests point into the owner's buffers: the engine stays where it is.
  MessageEngine(const MessageEngine&) = delete;
  MessageEngine& operator=(const MessageEngine&) = delete;
  ~MessageEngine() {
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (comm_ == MPI_COMM_NULL || finalized) return;
    cancel_receives();
    MPI_Comm_free(&comm_);
  }

  MPI_Comm comm() const { return comm_; }
  bool posted() const { return posted_; }
  /// Distinct data tags: messages k and k + tag_space() to one destination
  /// share a tag, so the later one must not be sent before the earlier.
  std::uint64_t tag_space() const { return tag_space_; }
  /// Messages sent to `destination` since the receives were posted.
  std::uint64_t sent_to(int destination) const { return sent_to_[std::size_t(destination)]; }

  /// Posts every expected receive into `buffer` (laid out as the layout's).
  void post_receives(const ExchangeLayout& layout, char* buffer) {
    for (std::size_t m = 0; m < layout.incoming.size(); ++m) {
      const auto& in = layout.incoming[m];
      const std::uint64_t k = m - first_message_of_[std::size_t(in.source)];
      check_mpi(MPI_Irecv(buffer + in.slot_begin * message_bytes_,
                          int((in.slot_end - in.slot_begin) * message_bytes_), MPI_BYTE, in.source,
                          tag_of(k), comm_, &recv_requests_[m]),
                "MPI_Irecv", comm_);
    }
    std::fill(received_of_.begin(), received_of_.end(), 0);
    std::fill(sent_to_.begin(), sent_to_.end(), 0);
    for (int r = 0; r < ranks_; ++r) cursor_[std::size_t(r)] = first_message_of_[std::size_t(r)];
    posted_ = true;
  }

  /// Cancels the receives still posted (reset, destruction).
  void cancel_receives() {
    for (auto& r : recv_requests_)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    posted_ = false;
  }

  /// Sends `slots` slots at `data` to `destination` as its message number
  /// `k` (in the layout's order of the messages to that destination).
  void send(int destination, std::uint64_t k, const char* data, std::uint64_t slots) {
    send_requests_.emplace_back();
    check_mpi(MPI_Isend(data, int(slots * message_bytes_), MPI_BYTE, destination, tag_of(k), comm_,
                        &send_requests_.back()),
              "MPI_Isend", comm_);
    ++sent_to_[std::size_t(destination)];
    ++messages_sent_;
    bytes_sent_ += slots * message_bytes_;
  }

  /// Completed receives since the last call: calls arrived(m) for each.
  /// Only the next `window` pending messages of each source are tested (a
  /// poll costs O(ranks x window), not O(messages posted)): messages mostly
  /// arrive in the layout's order, and one that arrives further ahead is
  /// completed by MPI and seen once the window reaches it.
  template <class Arrived>
  bool progress(Arrived&& arrived) {
    constexpr std::uint64_t window = 32;
    bool moved = false;
    indices_.resize(window);
    for (int r = 0; r < ranks_; ++r) {
      const std::uint64_t end = first_message_of_[std::size_t(r) + 1];
      std::uint64_t& at = cursor_[std::size_t(r)];
      if (at >= end) continue;
      const std::uint64_t n = std::min(window, end - at);
      int count = 0;
      check_mpi(MPI_Testsome(int(n), recv_requests_.data() + at, &count, indices_.data(),
                             MPI_STATUSES_IGNORE),
                "MPI_Testsome", comm_);
      if (count == MPI_UNDEFINED || count == 0) continue;
      moved = true;
      for (int i = 0; i < count; ++i) {
        ++received_of_[std::size_t(r)];
        arrived(std::size_t(at + std::uint64_t(indices_[std::size_t(i)])));
      }
      while (at < end && recv_requests_[at] == MPI_REQUEST_NULL) ++at;
    }
    return moved;
  }

  /// Tells every other rank to stop starting segments.
  void notify_stop() {
    if (stop_sent_) return;
    stop_sent_ = true;
    for (int r = 0; r < ranks_; ++r)
      if (r != rank_) {
        stop_requests_.emplace_back();
        check_mpi(MPI_Isend(&stop_word_, 1, MPI_INT, r, stop_tag, comm_, &stop_requests_.back()),
                  "MPI_Isend", comm_);
      }
  }

  /// Whether a stop notice has arrived (received, so that it is consumed).
  bool stop_noticed() {
    int flag = 0;
    MPI_Status status;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, stop_tag, comm_, &flag, &status), "MPI_Iprobe", comm_);
    if (flag) {
      int word = 0;
      check_mpi(MPI_Recv(&word, 1, MPI_INT, status.MPI_SOURCE, stop_tag, comm_, MPI_STATUS_IGNORE),
                "MPI_Recv", comm_);
      ++stops_received_;
      stop_seen_ = true;
    }
    return stop_seen_;
  }

  /// The collective stop (see the file comment); `arrived` as in progress().
  template <class Arrived>
  void stop(Arrived&& arrived) {
    WatchedWait wait("MPI_Ibarrier (distributed executor stop)", rank_);
    MPI_Request barrier = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibarrier(comm_, &barrier), "MPI_Ibarrier", comm_);
    Backoff backoff;
    for (int done = 0; !done;) {
      bool moved = progress(arrived);
      (void)stop_noticed();
      check_mpi(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), "MPI_Test", comm_);
      if (moved) {
        wait.progressed();
        backoff.busy();
      } else if (!done) {
        backoff.idle();
      }
    }
    // Every rank has stopped sending: complete exactly what was sent.
    std::vector<std::uint64_t> expected(static_cast<std::size_t>(ranks_));
    {
      const BlockingCall watched("MPI_Alltoall", rank_);
      check_mpi(MPI_Alltoall(sent_to_.data(), 1, MPI_UINT64_T, expected.data(), 1, MPI_UINT64_T,
                             comm_),
                "MPI_Alltoall", comm_);
    }
    for (int r = 0; r < ranks_; ++r)
      while (received_of_[std::size_t(r)] < expected[std::size_t(r)]) {
        if (progress(arrived)) wait.progressed();
        else std::this_thread::yield();
      }
    wait_all(send_requests_, wait);
    wait_all(stop_requests_, wait);
    int senders = 0, mine = stop_sent_ ? 1 : 0;
    {
      const BlockingCall watched("MPI_Allreduce", rank_);
      check_mpi(MPI_Allreduce(&mine, &senders, 1, MPI_INT, MPI_SUM, comm_), "MPI_Allreduce", comm_);
    }
    while (stops_received_ < std::uint64_t(senders - mine)) {
      stop_seen_ = false;
      if (stop_noticed()) wait.progressed();
      else std::this_thread::yield();
    }
    stop_sent_ = stop_seen_ = false;
    stops_received_ = 0;
  }

  std::uint64_t messages_sent() const { return messages_sent_; }
  std::uint64_t bytes_sent() const { return bytes_sent_; }
  void clear_counters() { messages_sent_ = bytes_sent_ = 0; }

 private:
  int tag_of(std::uint64_t k) const { return first_data_tag + int(k % tag_space_); }

  void wait_all(std::vector<MPI_Request>& requests, WatchedWait& wait) {
    for (int done = 0; !done;) {
      check_mpi(MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
                "MPI_Testall", comm_);
      if (!done) std::this_thread::yield();
    }
    (void)wait;
    requests.clear();
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  std::uint64_t message_bytes_ = 0;
  std::vector<MPI_Request> recv_requests_, send_requests_, stop_requests_;
  std::vector<int> indices_;
  std::vector<std::uint64_t> first_message_of_;  ///< per source: first incoming message
  std::vector<std::uint64_t> received_of_, sent_to_;
  std::vector<std::uint64_t> cursor_;  ///< per source: its first message not received yet
  std::uint64_t messages_sent_ = 0, bytes_sent_ = 0, stops_received_ = 0;
  std::uint64_t tag_space_ = 1;
  int stop_word_ = 1;
  bool posted_ = false, stop_sent_ = false, stop_seen_ = false;
};

}  // namespace strata::distributed::detail
