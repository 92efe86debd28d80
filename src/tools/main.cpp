// strata: plan the barrier layers of a wave dependency DAG from the command line.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/version.hpp>
#ifdef STRATA_ENABLE_MPI
#include <mpi.h>
#endif

#include "commands.hpp"

namespace {

const char* const kUsage =
    "usage: strata plan FILE|--demo [--output text|json] [--mode auto|sparse|dense|hybrid|fused]\n"
    "                   [--max-memory BYTES[K|M|G|T]] [--time] [--repeats N]\n"
    "       mpiexec -n N strata plan FILE --distributed [--rank-budget BYTES[K|M|G|T]]\n"
    "                   [--output text|json] [--time] [--repeats N]\n"
    "         (sharded over N MPI ranks; rank 0 prints what 'strata plan FILE' prints)\n"
    "       strata explain FILE|--demo   (the launch policy's decision and the device limits)\n"
    "       strata run FILE|--demo [--mode auto|layered|persistent|dataflow] [--wave-work N]\n"
    "                   [--max-wall-time SECONDS] [--time]   (executes a synthetic wave per wave)\n"
    "       strata gen KIND ARGS... [--seed S]   (edge-list text on stdout)\n"
    "         kinds: sweep2d NX [NY] | sweep3d N [NY NZ] | chain N | fanout N\n"
    "                layered WIDTH DEPTH [FAN_IN [SKIP_PERCENT]] | random WAVES DEPENDENCIES\n"
    "                fanin N | tree N [in|out] | ilu2d NX [NY] | ilu3d N [NY NZ]\n"
    "                powerlaw N [EDGES_PER_WAVE]\n"
    "       strata --version | --help\n"
    "Kokkos options (e.g. --kokkos-threads=N) are accepted before or after the command.\n"
    "Input format: '#' comment lines, then 'V E', then E lines 'before after' (0-based).\n"
    "Exit codes: 0 ok, 2 usage or malformed input, 3 invalid graph.\n";

int run(const std::vector<std::string>& args) {
  if (args.empty()) throw strata::tools::UsageError{"missing command"};
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return strata::tools::exit_ok;
  }
  if (command == "--version") {
    std::cout << "strata " << STRATA_VERSION_STRING << " (Kokkos " << KOKKOS_VERSION / 10000
              << "." << (KOKKOS_VERSION / 100) % 100 << "." << KOKKOS_VERSION % 100 << ", "
              << Kokkos::DefaultExecutionSpace::name() << ")\n";
    return strata::tools::exit_ok;
  }
  if (command == "plan") return strata::tools::plan_command(rest);
  if (command == "gen") return strata::tools::gen_command(rest);
  if (command == "explain") return strata::tools::explain_command(rest);
  if (command == "run") return strata::tools::run_command(rest);
  throw strata::tools::UsageError{"unknown command '" + command + "'"};
}

}  // namespace

/// Kokkos::initialize prints its warnings (e.g. about OMP_PROC_BIND) with
/// printf on stdout; stdout must carry nothing but the plan or the graph, so
/// file descriptor 1 points at stderr while Kokkos starts.
class KokkosSession {
 public:
  KokkosSession(int& argc, char* argv[]) {
    std::fflush(stdout);
    const int saved = ::dup(1);
    if (saved >= 0) ::dup2(2, 1);
    Kokkos::initialize(argc, argv);
    std::fflush(stdout);
    if (saved >= 0) {
      ::dup2(saved, 1);
      ::close(saved);
    }
  }
  ~KokkosSession() { Kokkos::finalize(); }
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

#ifdef STRATA_ENABLE_MPI
/// MPI for `strata plan --distributed` only (the plain tool needs no mpiexec):
/// initialised after Kokkos, finalised before it. Only rank 0 prints.
class MpiSession {
 public:
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    strata::tools::set_output_rank(rank == 0);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};
#endif

int main(int argc, char* argv[]) {
  KokkosSession kokkos(argc, argv);
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--kokkos-", 9) != 0) args.emplace_back(argv[i]);
#ifdef STRATA_ENABLE_MPI
  std::optional<MpiSession> mpi;
  if (!args.empty() && args[0] == "plan")
    for (const auto& a : args)
      if (a == "--distributed") mpi.emplace();
#endif
  const bool print = strata::tools::is_output_rank();
  try {
    return run(args);
  } catch (const strata::tools::UsageError& e) {
    // Same shape as every other error: kind, message, Fix: hint (then the usage).
    if (print)
      std::cerr << "strata: InvalidArgument: " << e.message
                << ". Fix: correct the command line (usage below, or strata --help).\n"
                << kUsage;
    return strata::tools::exit_usage;
  } catch (const strata::PlanError& e) {
    if (print) std::cerr << "strata: " << e.what() << "\n";
    switch (e.kind()) {
      case strata::ErrorKind::ParseError:
      case strata::ErrorKind::IoError:
      case strata::ErrorKind::InvalidArgument:
        return strata::tools::exit_usage;
      default:
        return strata::tools::exit_invalid_graph;
    }
  } catch (const std::exception& e) {
    std::cerr << "strata: internal error: " << e.what() << "\n";
    return 1;
  }
}
