#pragma once
// The Kokkos options and environment variables `strata` hands to
// Kokkos::initialize, checked before it is called.
//
// Kokkos 3.4 turns a malformed value into an uncaught exception inside
// Kokkos::initialize (`--kokkos-threads=abc`: std::invalid_argument from
// std::stoi, exit 134), and a thread count of 0 into an OpenMP pool with no
// reduction scratch (SIGSEGV in the first scan). Here every option the tool
// passes on and every variable Kokkos reads is checked first: a bad one is a
// typed error (UsageError for the command line, InvalidArgument for the
// environment, both exit 2) and Kokkos is never started with it.
#include <string>
#include <vector>

namespace strata::tools {

/// Largest thread count accepted for --kokkos-threads / KOKKOS_NUM_THREADS:
/// 16 per hardware thread, at least 256 (more cannot help and makes OpenMP
/// fail to create its threads).
int max_kokkos_threads();

/// Sets OMP_PROC_BIND=false when the user chose no thread binding at all
/// (none of OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY, KMP_AFFINITY is
/// set), before Kokkos starts. Kokkos' OpenMP backend (3.4 and 4.x) prints a
/// four-line warning whenever OMP_PROC_BIND is unset; `false` silences it
/// without changing anything: it is what the OpenMP runtime does when nothing
/// is set (and libgomp reads its variables when it is loaded, before main,
/// so a binding chosen here would not take effect there anyway). A user's
/// own binding is left alone. Returns whether it set the variable.
bool default_openmp_binding();

/// Checks the `--kokkos-*` arguments (exactly those main passes to
/// Kokkos::initialize) and the KOKKOS_* environment variables Kokkos reads.
/// Throws UsageError (an argument) or PlanError{InvalidArgument} (a variable).
void check_kokkos_options(const std::vector<std::string>& kokkos_args);

}  // namespace strata::tools
