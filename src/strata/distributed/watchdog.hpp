#pragma once
// The MPI watchdog: no rank waits forever for a rank that died or hangs.
//
// Every blocking MPI call of the distributed planner runs inside a
// BlockingCall scope (Communicator does it for each collective). One
// process-wide thread watches the scope: when a single call has waited
// longer than the timeout, it prints `strata: RankTimeout: ...` on stderr
// and ends the process with exit code 3 (_exit: the main thread is stuck
// inside MPI and cannot unwind). A launcher that aborts the job when a rank
// fails then ends the others; one that keeps survivors alive (Open MPI's
// --enable-recovery, or no launcher abort at all) leaves every survivor to
// its own watchdog. The watchdog thread never calls MPI (the tool
// initialises MPI with MPI_THREAD_FUNNELED).
//
// The timeout: set_mpi_timeout_seconds(), else the environment variable
// STRATA_MPI_TIMEOUT (seconds, decimal; 0: wait forever), else 600 s; the
// variable is read once, on the thread that opens the first scope, before
// the watchdog thread starts (getenv there would race with the setenv calls
// MPI_Init makes; unit_test/tstWatchdog.cpp checks it). A
// call may legitimately wait for a slower rank's local work (reading its
// part of the file, building its CSR), so the timeout is far above any
// phase of a healthy run.
#include <optional>
#include <string>


namespace strata::distributed {

inline constexpr double default_mpi_timeout_seconds = 600.0;
/// The exit code of a rank the watchdog ends (the tool's "cannot be planned" class).
inline constexpr int mpi_timeout_exit_code = 3;

/// STRATA_MPI_TIMEOUT's value parsed: seconds >= 0, or nothing when malformed.
std::optional<double> parse_mpi_timeout(const std::string& text);
/// Throws InvalidArgument when STRATA_MPI_TIMEOUT is set but malformed
/// (the watchdog itself then uses the default).
void check_mpi_timeout_environment();
/// The timeout in force (see the file comment); 0: wait forever.
double mpi_timeout_seconds();
/// Overrides STRATA_MPI_TIMEOUT for this process (0: wait forever).
void set_mpi_timeout_seconds(double seconds);

/// Marks the calling thread as blocked in the MPI call `call` (a string
/// literal) on rank `rank` for the scope's lifetime; nested scopes count as
/// the outermost one.
class BlockingCall {
 public:
  BlockingCall(const char* call, int rank);
  ~BlockingCall();
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;
};

}  // namespace strata::distributed
