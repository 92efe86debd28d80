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

/// Largest thread count accepted for --kokkos-threads / KOKKOS_NUM_THREADS /
/// OMP_NUM_THREADS: strata::runtime::max_threads() (16 per hardware thread,
/// at least 256, at most Kokkos' OpenMP pool of 512).
int max_kokkos_threads();

/// strata::runtime::default_openmp_binding(): OMP_PROC_BIND=false when the
/// user chose no thread binding (no Kokkos warning), the rule the C, Fortran,
/// Python and C++ (strata::runtime::initialize) entry points apply too.
bool default_openmp_binding();

/// Checks the `--kokkos-*` arguments (exactly those main passes to
/// Kokkos::initialize) and the KOKKOS_* environment variables Kokkos reads.
/// Throws UsageError (an argument) or PlanError{InvalidArgument} (a variable,
/// OMP_NUM_THREADS beyond max_kokkos_threads() included).
void check_kokkos_options(const std::vector<std::string>& kokkos_args);

}  // namespace strata::tools
