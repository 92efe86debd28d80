#pragma once
// The strata command-line tool: one function per subcommand.
// Exit codes: 0 ok (everything written); 2 usage error or unreadable/malformed
// input; 3 invalid graph, resource limit, or output error (docs/errors.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <strata/runtime/kokkos_environment.hpp>
#include <strata/execute/execute_mode.hpp>

namespace strata::tools {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 2;
inline constexpr int exit_invalid_graph = 3;

/// Thrown for a bad command line; main prints it with the usage hint.
struct UsageError {
  std::string message;
};

/// An error whose whole line the tool words itself ("Kind: what. Fix: hint",
/// the Fix naming the tool's arguments); main prints it after `strata: `.
struct CliError {
  std::string message;
  int exit_code;
};

/// A plain decimal integer (digits only: no sign, space or suffix) that is at
/// most `max`; nothing otherwise.
inline std::optional<std::uint64_t> parse_decimal(const std::string& text, std::uint64_t max) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (digit > max || value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

int plan_command(const std::vector<std::string>& args);

/// strata plan FILE --distributed: the arguments that apply.
struct DistributedPlanArgs {
  std::string file;
  bool json = false;
  bool time = false;
  int repeats = 5;
  std::uint64_t rank_budget = 0;  ///< --rank-budget; 0: physical memory / ranks on the node
};
/// Collective over MPI_COMM_WORLD (MPI is initialised by main); only rank 0 prints.
int plan_distributed(const DistributedPlanArgs& args);

/// Whether this process prints results and errors (rank 0, or not distributed).
bool is_output_rank();
void set_output_rank(bool output);

/// The threads-per-rank decision main made before Kokkos started (--time says it).
const runtime::ThreadsPerRank& rank_threads();
void set_rank_threads(const runtime::ThreadsPerRank& threads);
int gen_command(const std::vector<std::string>& args);
int explain_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int solve_command(const std::vector<std::string>& args);
struct MemoryBudget;  // memory_budget.hpp
/// The solve's schedule for a Matrix Market file (lines for `strata explain`),
/// read within `budget`.
std::string solve_schedule_report(const std::string& path, bool upper,
                                  const MemoryBudget& budget);

/// strata run FILE --distributed: the arguments that apply.
struct DistributedRunArgs {
  std::string file;
  bool time = false;
  ExecuteMode mode = ExecuteMode::Automatic;
  std::uint64_t wave_work = 0;
  double max_wall_seconds = 0;  ///< 0: LaunchConfig's default budget
};
/// Collective over MPI_COMM_WORLD (MPI is initialised by main); only rank 0 prints.
int run_distributed(const DistributedRunArgs& args);

}  // namespace strata::tools
