#pragma once
// The strata command-line tool: one function per subcommand.
// Exit codes: 0 ok; 2 usage error or unreadable/malformed input; 3 invalid graph.

#include <cstdint>
#include <string>
#include <vector>

namespace strata::tools {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 2;
inline constexpr int exit_invalid_graph = 3;

/// Thrown for a bad command line; main prints it with the usage hint.
struct UsageError {
  std::string message;
};

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
int gen_command(const std::vector<std::string>& args);
int explain_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);

}  // namespace strata::tools
