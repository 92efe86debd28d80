#pragma once
// What Strata checks and decides before Kokkos starts, one rule for every
// program that starts Kokkos through Strata: the strata tool, the C and
// Fortran interface's strata_initialize(), the Python module, and C++
// programs through strata::runtime::initialize / ScopeGuard
// (runtime/initialize.hpp).
//
//  * Thread counts: Kokkos' OpenMP backend keeps its thread pool in an array
//    of 512 entries and crashes (SIGSEGV, nothing printed) when OpenMP starts
//    more threads; Kokkos 3.4 turns a malformed KOKKOS_NUM_THREADS into an
//    uncaught std::invalid_argument. Both are refused here, typed, before
//    Kokkos runs.
//  * Thread binding: when the user chose none, OMP_PROC_BIND=false, so that
//    Kokkos' OpenMP backend does not print its four-line warning.
//  * Threads per rank: MPI ranks that share a node each start every core's
//    worth of threads and oversubscribe it (spinning threads then wait for
//    threads that are not running); unless the user chose a thread count,
//    each rank gets cores of the node / ranks on the node.
#include <string>
#include <vector>

namespace strata::runtime {

/// Largest thread count Strata starts Kokkos with (KOKKOS_NUM_THREADS,
/// --kokkos-threads / --kokkos-num-threads, OMP_NUM_THREADS): 16 per hardware
/// thread, at least 256, and at most 512 (Kokkos' OpenMP thread pool).
int max_threads();

/// Sets OMP_PROC_BIND=false when none of OMP_PROC_BIND, OMP_PLACES,
/// GOMP_CPU_AFFINITY, KMP_AFFINITY is set. It changes nothing the OpenMP
/// runtime does (libgomp reads its variables when it is loaded, and unbound
/// is its default); it only keeps Kokkos from warning. Returns whether it
/// set the variable.
bool default_openmp_binding();

/// Throws PlanError{InvalidArgument} (with its Fix:) when KOKKOS_NUM_THREADS
/// is not a decimal in 1..max_threads() or OMP_NUM_THREADS (its first
/// entry: "600,2" starts 600 threads) asks for more than max_threads().
void check_thread_environment();

/// Whether the user chose a thread count: KOKKOS_NUM_THREADS or
/// OMP_NUM_THREADS set, or one of `kokkos_args` is --kokkos-threads=N or
/// --kokkos-num-threads=N.
bool threads_chosen_by_user(const std::vector<std::string>& kokkos_args);

/// Hardware threads of this node (1 when unknown).
int node_cores();

/// Ranks of MPI_COMM_WORLD on this node (MPI_Comm_split_type SHARED) when
/// MPI is initialised, else the launcher's count for this node
/// (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS), else 1.
int ranks_on_node();

/// The Kokkos option that starts `threads` threads ("--kokkos-threads=N" in
/// Kokkos 3, "--kokkos-num-threads=N" in Kokkos 4).
std::string thread_count_option(int threads);

/// The threads of one rank when the user chose none: node_cores() /
/// ranks_on_node(), at least 1. `chosen` is false (and `threads` 0) when
/// the user chose (`user_chose`: threads_chosen_by_user) or the rank has the
/// node alone: Kokkos' own default applies then.
struct ThreadsPerRank {
  bool user_chose = false;
  bool chosen = false;
  int threads = 0;
  int cores = 1;
  int ranks_on_node = 1;
};
ThreadsPerRank threads_per_rank(const std::vector<std::string>& kokkos_args);

/// One line for --time: "threads_per_rank 1 (2 cores / 4 ranks on the node)"
/// or "threads_per_rank chosen by the user".
std::string describe(const ThreadsPerRank& t);

}  // namespace strata::runtime
