#pragma once
// A thin view of an MPI communicator: rank, size and the few collectives the
// distributed planner uses, typed for Strata's unsigned index types. An MPI
// call that fails aborts the job (MPI_Abort): a failed collective cannot be
// agreed on, and aborting is what keeps every other rank from waiting forever.
// Every collective runs under the watchdog (watchdog.hpp): one that the other
// ranks do not join within the MPI timeout ends this rank with RankTimeout.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <strata/distributed/watchdog.hpp>

namespace strata::distributed {

/// The MPI datatype of an unsigned index type (or int).
template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return MPI_UINT16_T;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return MPI_UINT8_T;
  else if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

/// Aborts the job when an MPI call fails (see the file comment).
inline void check_mpi(int rc, const char* call, MPI_Comm comm) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  std::fprintf(stderr, "strata: %s failed: %.*s\n", call, length, text);
  MPI_Abort(comm, 1);
}

class Communicator {
 public:
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank", comm);
    check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size", comm);
  }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Runs the blocking MPI call `mpi()` (returning its error code) under the watchdog.
  template <class Call>
  void blocking(const char* name, Call&& mpi) const {
    int rc = MPI_SUCCESS;
    {
      const BlockingCall watched(name, rank_);
      rc = mpi();
    }
    check_mpi(rc, name, comm_);
  }

  template <class T>
  T all_reduce(T value, MPI_Op op) const {
    T out{};
    blocking("MPI_Allreduce",
             [&] { return MPI_Allreduce(&value, &out, 1, mpi_type<T>(), op, comm_); });
    return out;
  }
  template <class T>
  void all_reduce_in_place(std::vector<T>& values, MPI_Op op) const {
    blocking("MPI_Allreduce", [&] {
      return MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                           mpi_type<T>(), op, comm_);
    });
  }
  template <class T>
  T sum(T value) const { return all_reduce(value, MPI_SUM); }
  template <class T>
  T max(T value) const { return all_reduce(value, MPI_MAX); }
  template <class T>
  T min(T value) const { return all_reduce(value, MPI_MIN); }
  /// The largest `value` over the ranks (doubles: timings).
  double max_double(double value) const {
    double out = 0;
    blocking("MPI_Allreduce",
             [&] { return MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm_); });
    return out;
  }
  /// Sum over the ranks below this one (0 on rank 0).
  template <class T>
  T exclusive_sum(T value) const {
    T out{};
    blocking("MPI_Exscan",
             [&] { return MPI_Exscan(&value, &out, 1, mpi_type<T>(), MPI_SUM, comm_); });
    return rank_ == 0 ? T(0) : out;
  }
  void barrier() const {
    blocking("MPI_Barrier", [&] { return MPI_Barrier(comm_); });
  }
  void broadcast_bytes(void* data, std::size_t bytes, int root) const {
    blocking("MPI_Bcast", [&] {
      return MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_);
    });
  }
  /// `count` items of `T` from every rank, concatenated in rank order on `root`.
  template <class T>
  std::vector<T> gather(const T* items, int count, int root) const {
    std::vector<T> out(rank_ == root ? std::size_t(count) * std::size_t(size_) : 0);
    blocking("MPI_Gather", [&] {
      return MPI_Gather(items, count, mpi_type<T>(), out.data(), count, mpi_type<T>(), root,
                        comm_);
    });
    return out;
  }
  /// MPI_Gatherv of `T` items onto `root` (counts and displacements matter there only).
  template <class T>
  void gather_varying(const T* send, int send_count, T* recv, const std::vector<int>& counts,
                      const std::vector<int>& displs, int root) const {
    blocking("MPI_Gatherv", [&] {
      return MPI_Gatherv(send, send_count, mpi_type<T>(), recv, counts.data(), displs.data(),
                         mpi_type<T>(), root, comm_);
    });
  }
  /// Ranks sharing this rank's node (MPI_Comm_split_type(SHARED)).
  int ranks_on_node() const {
    MPI_Comm node = MPI_COMM_NULL;
    blocking("MPI_Comm_split_type", [&] {
      return MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    });
    int size = 1;
    MPI_Comm_size(node, &size);
    blocking("MPI_Comm_free", [&] { return MPI_Comm_free(&node); });
    return size;
  }
  /// Every rank's count of items it sends to every other rank, transposed.
  std::vector<int> exchange_counts(const std::vector<int>& send) const {
    std::vector<int> recv(static_cast<std::size_t>(size_));
    blocking("MPI_Alltoall", [&] {
      return MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, comm_);
    });
    return recv;
  }
  /// MPI_Alltoallv of `type` items; displacements are the exclusive sums of the counts.
  void all_to_all(const void* send, const std::vector<int>& send_counts, void* recv,
                  const std::vector<int>& recv_counts, MPI_Datatype type) const {
    const auto displs = [](const std::vector<int>& counts) {
      std::vector<int> d(counts.size(), 0);
      for (std::size_t r = 1; r < counts.size(); ++r) d[r] = d[r - 1] + counts[r - 1];
      return d;
    };
    const auto sd = displs(send_counts), rd = displs(recv_counts);
    blocking("MPI_Alltoallv", [&] {
      return MPI_Alltoallv(send, send_counts.data(), sd.data(), type, recv, recv_counts.data(),
                           rd.data(), type, comm_);
    });
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

/// An MPI datatype of `count` contiguous `T` (committed; freed on destruction).
template <class T>
class ContiguousType {
 public:
  explicit ContiguousType(int count) {
    MPI_Type_contiguous(count, mpi_type<T>(), &type_);
    MPI_Type_commit(&type_);
  }
  ~ContiguousType() { MPI_Type_free(&type_); }
  ContiguousType(const ContiguousType&) = delete;
  ContiguousType& operator=(const ContiguousType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace strata::distributed
