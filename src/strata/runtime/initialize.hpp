#pragma once
// Starting Kokkos for a program that uses Strata, with the rules of
// runtime/kokkos_environment.hpp applied first (the rules the strata tool,
// strata_initialize() and the Python module apply): thread counts checked
// (a typed InvalidArgument instead of a crash inside Kokkos), no OMP_PROC_BIND
// warning when the user chose no binding, and under MPI (initialise MPI
// first) cores of the node / ranks on the node threads per rank unless the
// user chose a thread count.
//
//   int main(int argc, char* argv[]) {
//     strata::runtime::ScopeGuard kokkos(argc, argv);  // instead of Kokkos::ScopeGuard
//     ...
//   }
#include <strata/runtime/kokkos_environment.hpp>

namespace strata::runtime {

/// Applies the rules, then Kokkos::initialize(argc, argv) (which removes the
/// --kokkos-* arguments it consumed from argv, as always). Returns the
/// threads-per-rank decision. Throws PlanError{InvalidArgument} for a thread
/// count Kokkos could not start with; does nothing when Kokkos runs already.
ThreadsPerRank initialize(int& argc, char* argv[]);

/// initialize() on construction, Kokkos::finalize() on destruction when this
/// guard started Kokkos.
class ScopeGuard {
 public:
  ScopeGuard(int& argc, char* argv[]);
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
  const ThreadsPerRank& threads() const { return threads_; }

 private:
  bool started_ = false;
  ThreadsPerRank threads_;
};

}  // namespace strata::runtime
