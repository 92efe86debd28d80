#pragma once
// The tool's side of MPI: initialising it for `strata plan --distributed`
// under the watchdog, and refusing to plan single-process under an MPI
// launcher.
//
// Why the refusal: a rank started without --distributed (an MPMD launch, a
// wrapper script) never calls MPI_Init; it plans the whole graph alone and
// exits 0, while the ranks started with --distributed wait in MPI_Init for
// it. Open MPI 4.1's mpiexec does not end the job then (it aborts only when
// a process exits non-zero, or exits without MPI_Finalize after calling
// MPI_Init), so they would wait forever. Refusing (a usage error, exit 2)
// makes the launcher abort the job at once; the watchdog around MPI_Init
// (MpiSession) ends the waiting ranks under launchers that do not.
//
// Wiring (src/tools/main.cpp and plan_command.cpp belong to the tool's
// command-line owners): main.cpp uses this MpiSession instead of its own,
// and plan_command() calls refuse_single_process_under_mpi_launcher()
// before planning without --distributed.
#include <cstdlib>
#include <string>

#include <strata/version.hpp>
#ifdef STRATA_ENABLE_MPI
#include <mpi.h>

#include <strata/distributed/watchdog.hpp>
#endif

#include "commands.hpp"

namespace strata::tools {

namespace detail {
/// A launcher's positive integer variable, or 0 when unset or malformed.
inline long launcher_variable(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return *end == '\0' && v > 0 ? v : 0;
}
}  // namespace detail

/// Processes of the MPI job that launched this one: Open MPI's
/// OMPI_COMM_WORLD_SIZE, or PMI_SIZE (MPICH's Hydra, Slurm's PMI); 1 when
/// no launcher started it.
inline long mpi_launcher_ranks() {
  const long ompi = detail::launcher_variable("OMPI_COMM_WORLD_SIZE");
  if (ompi != 0) return ompi;
  const long pmi = detail::launcher_variable("PMI_SIZE");
  return pmi != 0 ? pmi : 1;
}

/// This process's rank in the launcher's job (0 when unknown).
inline int mpi_launcher_rank() {
  const long ompi = detail::launcher_variable("OMPI_COMM_WORLD_RANK");
  if (ompi != 0) return int(ompi);
  return int(detail::launcher_variable("PMI_RANK"));
}

/// UsageError when `strata COMMAND` without --distributed runs as one of
/// several processes an MPI launcher started (see the file comment).
inline void refuse_single_process_under_mpi_launcher(const std::string& command = "plan") {
  const long ranks = mpi_launcher_ranks();
  if (ranks > 1)
    throw UsageError{"'strata " + command + "' was started as one of " + std::to_string(ranks) +
                     " MPI processes but without --distributed (it would run alone, and ranks "
                     "started with --distributed would wait for this one): start every rank "
                     "with the same 'strata plan FILE --distributed ...', or run without mpiexec"};
}

#ifdef STRATA_ENABLE_MPI
/// MPI for `strata plan --distributed` only (the plain tool needs no
/// mpiexec): initialised after Kokkos, finalised before it, both under the
/// watchdog (a peer that never joins ends this rank with RankTimeout
/// instead of a wait without end). Only rank 0 prints.
class MpiSession {
 public:
  MpiSession() {
    int provided = 0;
    {
      const distributed::BlockingCall watched("MPI_Init", mpi_launcher_rank());
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rank_ = rank;
    set_output_rank(rank == 0);
  }
  ~MpiSession() {
    const distributed::BlockingCall watched("MPI_Finalize", rank_);
    MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  int rank_ = 0;
};
#endif

}  // namespace strata::tools
