// The help and version texts of the strata tool (see usage.hpp).
#include "usage.hpp"

#include <climits>
#include <cstdlib>
#include <string>

#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <strata/version.hpp>

#include "strata_source_revision.hpp"  // generated: the commit, or "release"

namespace strata::tools {

namespace {

const char* const kInput =
    "FILE (or - for standard input) is told apart by its first bytes:\n"
    "  an edge list: '#' comment lines and blank lines, then 'V E' (the wave count and the\n"
    "    dependency count), then E lines 'before after' (0-based wave ids; 'after' waits for\n"
    "    'before'); numbers are plain decimals separated by spaces or tabs (a vertical tab\n"
    "    or form feed is not a separator: such a line is a ParseError);\n"
    "  Matrix Market: '%%MatrixMarket matrix coordinate real|integer|complex|pattern\n"
    "    general|symmetric|skew-symmetric', 1-based; with --triangle lower (default) row i\n"
    "    waits for every column j < i it holds, with --triangle upper for every j > i; the\n"
    "    diagonal is ignored.\n";

const char* const kDemo =
    "--demo plans the built-in graph instead of a FILE: a 3-D upwind transport sweep over\n"
    "8x8x8 cells (what 'strata gen sweep3d 8' writes). Cell (i,j,k) is wave i + 8j + 64k and\n"
    "waits for its -x, -y and -z neighbours: 512 waves, 1344 dependencies. Its plan has 22\n"
    "groups and 21 barriers, one group per diagonal plane i+j+k = 0..21 (group 1: 1 8 64).\n";

const char* const kKokkos =
    "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...; 'strata --kokkos-help'\n"
    "lists them) are accepted before or after the command; OMP_NUM_THREADS works too. When\n"
    "neither OMP_PROC_BIND nor OMP_PLACES (nor GOMP_CPU_AFFINITY, KMP_AFFINITY) is set, strata\n"
    "sets OMP_PROC_BIND=false: threads are not pinned, the OpenMP runtime's own default.\n";

/// Where the error reference is: errors.md as installed beside this strata
/// (<prefix>/share/doc/strata/errors.md, found from the executable's own
/// path, so a moved install still finds it), else its place in the sources.
std::string errors_reference() {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string path(self, static_cast<std::size_t>(n));
    path = path.substr(0, path.rfind('/'));  // <prefix>/bin
    path = path.substr(0, path.rfind('/')) + "/share/doc/strata/errors.md";
    char resolved[4096];
    if (::access(path.c_str(), R_OK) == 0 && ::realpath(path.c_str(), resolved) != nullptr)
      return resolved;
  }
  return "docs/errors.md in the Strata sources";
}

std::string exit_text() {
  return "Exit codes: 0 ok (all output written), 2 usage or malformed input, 3 invalid graph,\n"
         "resource limit or output error. Every error and its fix: " + errors_reference() + "\n";
}

std::string plan_usage() {
  std::string text =
      "usage: strata plan FILE|-|--demo [--output text|json|dot] [--triangle lower|upper]\n"
      "                   [--mode auto|sparse|dense|hybrid|fused|persistent]\n"
      "                   [--max-memory BYTES[K|M|G|T]] [--time] [--repeats N]\n"
#ifdef STRATA_ENABLE_MPI
      "       mpiexec -n N strata plan FILE --distributed [--rank-budget BYTES[K|M|G|T]]\n"
      "                   [--output text|json] [--time] [--repeats N]\n"
#endif
      "\n"
      "Plans the graph into the fewest global barriers (Kahn layers) and prints the plan:\n"
      "'groups G barriers B', then one line per group, its waves ascending.\n"
      "\n"
      "  --output text|json|dot\n"
      "                       text (default), {\"wave_count\":V,\"group_count\":G,\n"
      "                       \"global_barriers\":B,\"groups\":[[...],...],\"levels\":[...]}\n"
      "                       or Graphviz dot (waves ranked by group; small graphs only)\n"
      "  --triangle lower|upper\n"
      "                       Matrix Market input: which triangle defines the DAG\n"
      "  --mode MODE          force one planner mode (every mode gives the same plan); auto,\n"
      "                       the default, lets the launch policy choose before each layer\n"
      "  --max-memory BYTES   bound what planning may hold, reading included (K/M/G/T: powers\n"
      "                       of 1024; default: the physical memory); a graph beyond it is\n"
      "                       MemoryConstrained before anything is allocated for it\n"
      "  --time               on stderr: plan_seconds (the median of --repeats timed runs\n"
      "                       after the plan that is printed, parsing excluded),\n"
      "                       reference_seconds (a plain host Kahn, as many runs), the backend\n"
      "  --repeats N          runs timed by --time (1..1000, default 5; each a full plan)\n"
#ifdef STRATA_ENABLE_MPI
      "  --distributed        plan over the MPI ranks strata was started on (mpiexec); rank 0\n"
      "                       prints what 'strata plan FILE' prints\n"
      "  --rank-budget BYTES  memory per rank for --distributed (default: the node's physical\n"
      "                       memory divided by the ranks on the node)\n"
#endif
      "\n";
  return text + kInput + "\n" + kDemo + "\n" + kKokkos + "\n" + exit_text();
}

std::string explain_usage() {
  return std::string(
             "usage: strata explain FILE|-|--demo [--output text|json] [--triangle lower|upper]\n"
             "                      [--max-memory BYTES[K|M|G|T]]\n"
             "\n"
             "Plans the graph and prints the launch policy's recommendation for its first layer\n"
             "(mode, league and team size, frontier capacity, bytes needed, the reason), the\n"
             "device limits it was computed from, what the planner did, and the plan's layer\n"
             "widths (waves per group: min, median, max and a histogram).\n"
             "\n"
             "  --output text|json   the report as text (default) or one JSON object\n"
             "  --max-memory BYTES   bound what reading and planning may hold (as 'strata plan')\n"
             "  --triangle lower|upper\n"
             "                       Matrix Market input: which triangle defines the DAG\n"
             "\n") +
         kInput + "\n" + kDemo + "\n" + exit_text();
}

std::string run_usage() {
  return std::string(
             "usage: strata run FILE|-|--demo [--mode auto|layered|persistent|dataflow]\n"
             "                  [--wave-work N] [--max-wall-time SECONDS] [--time]\n"
             "                  [--max-memory BYTES[K|M|G|T]] [--triangle lower|upper]\n"
             "                  [--triangle lower|upper]\n"
#ifdef STRATA_ENABLE_MPI
             "       mpiexec -n N strata run FILE --distributed [--mode ...] [--wave-work N]\n"
             "                  [--max-wall-time SECONDS] [--time]\n"
#endif
             "\n"
             "Plans the graph as 'strata plan' does (same errors), then executes it through\n"
             "strata::Executor: a synthetic wave per wave that checks its predecessors finished\n"
             "before it started; every wave must run exactly once.\n"
             "\n"
             "  --mode MODE              executor mode (default auto: the launch policy chooses)\n"
             "  --wave-work N            iterations each synthetic wave spins (default 0, at\n"
             "                           most 100000000: a started wave is never interrupted)\n"
             "  --max-wall-time SECONDS  drain each run at this budget and run again until the\n"
             "                           plan is complete (prints the number of runs)\n"
             "  --max-memory BYTES       bound what reading, planning and running may hold\n"
             "                           (default: the physical memory); a graph beyond it is\n"
             "                           MemoryConstrained before anything is allocated for it\n"
             "  --time                   also print the run's time and time per wave\n"
#ifdef STRATA_ENABLE_MPI
             "  --distributed            plan as 'strata plan FILE --distributed' does and run\n"
             "                           the waves on their ranks (strata::distributed::Executor;\n"
             "                           a cross-rank dependency is a message); rank 0 prints;\n"
             "                           --time adds the messages sent\n"
#endif
             "\n") +
         kInput + "\n" + kDemo + "\n" + kKokkos + "\n" + exit_text();
}

std::string solve_usage() {
  return std::string(
             "usage: strata solve FILE.mtx [--triangle lower|upper] [--unit-diagonal]\n"
             "                    [--rhs ones|random|FILE] [--mode auto|layered|dataflow]\n"
             "                    [--max-memory BYTES[K|M|G|T]] [--time] [--output residual|x]\n"
             "\n"
             "Solves T x = b for the lower (default) or upper triangle T of a real, integer or\n"
             "pattern Matrix Market matrix with strata::TriangularSolve and prints the relative\n"
             "residual ||b - T x||inf / (||T||inf ||x||inf + ||b||inf) with the schedule, or x.\n"
             "A pattern gets deterministic values with a dominant diagonal (supplied where\n"
             "missing, said on stderr). An entry outside the triangle, a missing or zero\n"
             "diagonal: exit 3, naming the row.\n"
             "\n"
             "  --unit-diagonal      the diagonal is one (stored diagonal entries are ignored)\n"
             "  --rhs ones|random|FILE\n"
             "                       b: ones (default), deterministic values in [1, 2), or one\n"
             "                       number per row from FILE\n"
             "  --mode MODE          the solve's kernels (default auto: the solve policy chooses)\n"
             "  --max-memory BYTES   bound what reading and solving may hold (as 'strata plan')\n"
             "  --time               on stderr: symbolic_seconds, solve_seconds (median of 5),\n"
             "                       us_per_level\n"
             "  --output residual|x  the report (default) or x, one value a line\n"
             "\n") +
         kKokkos + "\n" + exit_text();
}

std::string gen_usage() {
  return std::string(
             "usage: strata gen KIND ARGS... [--seed S] [--output edges|mtx]\n"
             "\n"
             "Writes a generated graph on stdout (input for 'strata plan'): edge-list text, or\n"
             "with --output mtx a Matrix Market pattern of the lower triangle with its diagonal.\n"
             "The same seed (default 1) gives the same graph on every machine.\n"
             "\n"
             "  sweep2d NX [NY]                 2-D upwind transport sweep\n"
             "  sweep3d N [NY NZ]               3-D upwind transport sweep ('--demo' is sweep3d 8)\n"
             "  chain N | fanout N | fanin N    a chain, one wave to all, all to one\n"
             "  layered WIDTH DEPTH [FAN_IN [SKIP_PERCENT]]\n"
             "                                  random layered DAG (ids not in topological order)\n"
             "  random WAVES DEPENDENCIES       random DAG (ids not in topological order)\n"
             "  tree N [in|out]                 complete binary tree (out: root first)\n"
             "  ilu2d NX [NY] | ilu3d N [NY NZ] ILU(0) factor pattern of the 5-/7-point Laplacian\n"
             "                                  under a random symmetric permutation\n"
             "  powerlaw N [EDGES_PER_WAVE]     preferential attachment (default 4 per wave)\n"
             "\n") +
         exit_text();
}

}  // namespace

std::string general_usage() {
  return std::string("strata ") + STRATA_VERSION_STRING +
         ": plans the dependency DAG of the kernels (\"waves\") a simulation launches into\n"
         "the fewest global synchronisation layers (Kahn layers), in parallel on Kokkos.\n"
         "\n"
         "usage: strata plan FILE|-|--demo [OPTIONS]   the plan: groups and barriers\n"
#ifdef STRATA_ENABLE_MPI
         "       mpiexec -n N strata plan FILE --distributed [OPTIONS]\n"
         "                                             the same, sharded over N MPI ranks\n"
#endif
         "       strata explain FILE|-|--demo [OPTIONS] the launch policy's decision, layer widths\n"
         "       strata run FILE|-|--demo [OPTIONS]    plan, then execute a synthetic wave per wave\n"
#ifdef STRATA_ENABLE_MPI
         "       mpiexec -n N strata run FILE --distributed [OPTIONS]\n"
         "                                             the same, the waves run on N MPI ranks\n"
#endif
         "       strata gen KIND ARGS... [OPTIONS]     a generated graph (edge list or .mtx)\n"
         "       strata solve FILE.mtx [OPTIONS]       solve a sparse triangular system\n"
         "       strata COMMAND --help                 a command's options\n"
         "       strata --version | --help | --kokkos-help\n"
         "\n" +
         kInput + "\n" + kDemo + "\n" + kKokkos + "\n" + exit_text();
}

std::string command_usage(const std::string& command) {
  if (command == "plan") return plan_usage();
  if (command == "explain") return explain_usage();
  if (command == "run") return run_usage();
  if (command == "gen") return gen_usage();
  if (command == "solve") return solve_usage();
  return general_usage();
}

std::string command_synopsis(const std::string& command) {
  const std::string text = command_usage(command);
  const auto from = text.find("usage:");
  const auto to = text.find("\n\n", from);
  const bool known = command == "plan" || command == "explain" || command == "run" || command == "gen" ||
                     command == "solve";
  return text.substr(from, to - from + 1) + "Details: strata " +
         (known ? command + " " : std::string()) + "--help\n";
}

std::string version_text() {
  // Kokkos' version and default space are compile-time facts: Kokkos is not started.
  const std::string revision = STRATA_SOURCE_REVISION;
  const std::string origin = revision == "release" ? revision : "commit " + revision;
  return std::string("strata ") + STRATA_VERSION_STRING + " (" + origin + "; Kokkos " +
         std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string((KOKKOS_VERSION / 100) % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100) + ", " +
         Kokkos::DefaultExecutionSpace::name() + ")\n";
}

std::optional<std::string> help_or_version(const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  if (args[0] == "--version") return version_text();
  if (args[0] == "help") return command_usage(args.size() > 1 ? args[1] : std::string());
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return command_usage(args[0]);
  return std::nullopt;
}

}  // namespace strata::tools
