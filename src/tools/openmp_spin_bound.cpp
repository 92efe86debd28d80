// The strata tool bounds how long an idle OpenMP thread spins before it
// sleeps, so that an oversubscribed node (more runnable threads than cores:
// other jobs, ranks sharing a node) degrades gracefully.
//
// Why: GNU OpenMP (libgomp, what g++ -fopenmp links) lets a thread that
// waits at a fork/join barrier spin 300,000 times (milliseconds) before it
// sleeps. When the thread it waits for has been preempted, it burns that
// spin on a core the other thread needs, at every launch; a command of many
// short launches then takes seconds instead of milliseconds beside busy
// processes. A bound of 10,000 spins keeps the idle figures (a launch
// follows the last one within that many spins) and ends the pathology
// (docs/execute.md, "Oversubscribed nodes"). OMP_WAIT_POLICY=passive, which
// sleeps at once, slows an idle layered run by about a third: each launch
// then wakes its threads through the kernel.
//
// libgomp reads its settings once, in its own constructor, before main();
// the C library's start-up resets the environment after an executable's
// pre-initialisation functions. So the only way to set the bound for this
// process is to set it and execute the tool again (same pid, same
// arguments, nothing read or written yet). Library users set the variable
// in their job script (docs/execute.md): a library cannot change it once
// libgomp has loaded.
#include "openmp_spin_bound.hpp"

#include <cstdlib>

#include <Kokkos_Macros.hpp>

#if defined(KOKKOS_ENABLE_OPENMP) && defined(__linux__) && defined(__GNUC__) && \
    !defined(__clang__) && !defined(__INTEL_COMPILER)
#define STRATA_TOOL_GNU_OPENMP 1
#include <unistd.h>
#endif

namespace strata::tools {

void bound_openmp_spin(char** argv) {
#ifdef STRATA_TOOL_GNU_OPENMP
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr)
    return;
  if (::setenv("GOMP_SPINCOUNT", "10000", 0) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Not re-executed (no /proc): run on with libgomp's default. The variable
  // stays set for nothing: libgomp has read its settings already.
#else
  (void)argv;
#endif
}

}  // namespace strata::tools
