#pragma once

namespace strata::tools {

/// Bounds how long an idle OpenMP thread of this process spins before it
/// sleeps (GOMP_SPINCOUNT=10000), unless the user set OMP_WAIT_POLICY or
/// GOMP_SPINCOUNT: re-executes the tool with the bound set, before anything
/// else has run. A no-op where the build has no GNU OpenMP backend, or where
/// the re-execution fails (the tool then runs with the runtime's default).
/// Call first thing in main().
void bound_openmp_spin(char** argv);

}  // namespace strata::tools
