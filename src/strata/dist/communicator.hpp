#pragma once
// A thin view of an MPI communicator: rank, size and the few collectives the
// distributed planner uses, typed for Strata's unsigned index types. An MPI
// call that fails aborts the job (MPI_Abort): a failed collective cannot be
// agreed on, and aborting is what keeps every other rank from waiting forever.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include <mpi.h>

namespace strata::dist {

/// The MPI datatype of an unsigned index type (or int).
template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return MPI_UINT16_T;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return MPI_UINT8_T;
  else if constexpr (std::is_same_v<T, int>) return MPI_INT;
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

  template <class T>
  T all_reduce(T value, MPI_Op op) const {
    T out{};
    check_mpi(MPI_Allreduce(&value, &out, 1, mpi_type<T>(), op, comm_), "MPI_Allreduce", comm_);
    return out;
  }
  template <class T>
  void all_reduce_in_place(std::vector<T>& values, MPI_Op op) const {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                            mpi_type<T>(), op, comm_),
              "MPI_Allreduce", comm_);
  }
  template <class T>
  T sum(T value) const { return all_reduce(value, MPI_SUM); }
  template <class T>
  T max(T value) const { return all_reduce(value, MPI_MAX); }
  template <class T>
  T min(T value) const { return all_reduce(value, MPI_MIN); }
  /// Sum over the ranks below this one (0 on rank 0).
  template <class T>
  T exclusive_sum(T value) const {
    T out{};
    check_mpi(MPI_Exscan(&value, &out, 1, mpi_type<T>(), MPI_SUM, comm_), "MPI_Exscan", comm_);
    return rank_ == 0 ? T(0) : out;
  }
  void broadcast_bytes(void* data, std::size_t bytes, int root) const {
    check_mpi(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_), "MPI_Bcast",
              comm_);
  }
  /// Every rank's count of items it sends to every other rank, transposed.
  std::vector<int> exchange_counts(const std::vector<int>& send) const {
    std::vector<int> recv(static_cast<std::size_t>(size_));
    check_mpi(MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, comm_),
              "MPI_Alltoall", comm_);
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
    check_mpi(MPI_Alltoallv(send, send_counts.data(), sd.data(), type, recv, recv_counts.data(),
                            rd.data(), type, comm_),
              "MPI_Alltoallv", comm_);
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

}  // namespace strata::dist
