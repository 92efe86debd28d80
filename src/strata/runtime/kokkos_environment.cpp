#include "kokkos_environment.hpp"

#include <climits>
#include <cstdlib>
#include <string>
#include <thread>

#include <Kokkos_Macros.hpp>

#include <strata/core/error.hpp>
#include <strata/version.hpp>
#ifdef STRATA_ENABLE_MPI
#include <mpi.h>
#endif

namespace strata::runtime {

namespace {

/// A plain decimal integer (digits only) at most `high`, or -1.
long long decimal(const char* text, long long high) {
  if (text == nullptr || *text == '\0') return -1;
  long long value = 0;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return -1;
    value = value * 10 + (*c - '0');
    if (value > high) return -1;
  }
  return value;
}

/// Printable copy of an environment value (control bytes as \xNN), at most 64 bytes.
std::string shown(const char* text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (const char* c = text; *c != '\0' && out.size() < 64; ++c) {
    const auto u = static_cast<unsigned char>(*c);
    if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += *c;
    }
  }
  return out;
}

}  // namespace

int max_threads() {
  const long long hardware = std::thread::hardware_concurrency();
  long long cap = 16 * hardware;
  if (cap < 256) cap = 256;
  if (cap > 512) cap = 512;  // Kokkos' OpenMP pool: HostThreadTeamData* m_pool[512]
  return static_cast<int>(cap);
}

bool default_openmp_binding() {
  for (const char* name : {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", "KMP_AFFINITY"})
    if (std::getenv(name) != nullptr) return false;
  return ::setenv("OMP_PROC_BIND", "false", 0) == 0;
}

void check_thread_environment() {
  const std::string range = "1.." + std::to_string(max_threads());
  if (const char* v = std::getenv("KOKKOS_NUM_THREADS")) {
    const long long n = decimal(v, max_threads());
    if (n < 1)
      throw PlanError::invalid_argument(
          "environment variable KOKKOS_NUM_THREADS='" + shown(v) + "' is not a thread count in " +
              range,
          "unset KOKKOS_NUM_THREADS or set it to a thread count in " + range);
  }
  if (const char* v = std::getenv("OMP_NUM_THREADS")) {
    // OpenMP's list form "N,M,...": the first entry is the outer team's size.
    // A malformed value is ignored by the OpenMP runtime (with its own
    // warning); only a count beyond Kokkos' pool is refused.
    std::string first(v);
    first = first.substr(0, first.find(','));
    while (!first.empty() && (first.back() == ' ' || first.back() == '\t')) first.pop_back();
    std::size_t at = 0;
    while (at < first.size() && (first[at] == ' ' || first[at] == '\t')) ++at;
    first = first.substr(at);
    bool digits = !first.empty();
    for (char c : first) digits = digits && c >= '0' && c <= '9';
    if (digits && (first.size() > 9 || std::atoll(first.c_str()) > max_threads()))
      throw PlanError::invalid_argument(
          "environment variable OMP_NUM_THREADS='" + shown(v) + "' asks for more threads than " +
              std::to_string(max_threads()) + " (Kokkos' OpenMP backend holds at most 512, and "
              "more than 16 per hardware thread cannot help)",
          "set OMP_NUM_THREADS to a thread count in " + range + " (this machine has " +
              std::to_string(node_cores()) + " hardware threads)");
  }
}

bool threads_chosen_by_user(const std::vector<std::string>& kokkos_args) {
  if (std::getenv("KOKKOS_NUM_THREADS") != nullptr || std::getenv("OMP_NUM_THREADS") != nullptr)
    return true;
  for (const auto& a : kokkos_args)
    if (a.rfind("--kokkos-threads=", 0) == 0 || a.rfind("--kokkos-num-threads=", 0) == 0)
      return true;
  return false;
}

int node_cores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n < INT_MAX ? n : INT_MAX);
}

int ranks_on_node() {
#ifdef STRATA_ENABLE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized != 0 && finalized == 0) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
      MPI_Comm_size(node, &size);
      MPI_Comm_free(&node);
      return size < 1 ? 1 : size;
    }
  }
#endif
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
    const long long n = decimal(std::getenv(name), INT_MAX);
    if (n >= 1) return static_cast<int>(n);
  }
  return 1;
}

std::string thread_count_option(int threads) {
#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
  return "--kokkos-num-threads=" + std::to_string(threads);
#else
  return "--kokkos-threads=" + std::to_string(threads);
#endif
}

ThreadsPerRank threads_per_rank(const std::vector<std::string>& kokkos_args) {
  ThreadsPerRank t;
  t.cores = node_cores();
  t.ranks_on_node = ranks_on_node();
  t.user_chose = threads_chosen_by_user(kokkos_args);
  if (t.user_chose) return t;
  if (t.ranks_on_node <= 1) return t;
  t.chosen = true;
  t.threads = t.cores / t.ranks_on_node < 1 ? 1 : t.cores / t.ranks_on_node;
  return t;
}

std::string describe(const ThreadsPerRank& t) {
  if (t.user_chose) return "threads_per_rank as set by the user";
  if (!t.chosen) return "threads_per_rank Kokkos' default (one rank on the node)";
  return "threads_per_rank " + std::to_string(t.threads) + " (" + std::to_string(t.cores) +
         " cores / " + std::to_string(t.ranks_on_node) + " ranks on the node)";
}

}  // namespace strata::runtime
