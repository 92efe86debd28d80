#pragma once
// The strata command-line tool: one function per subcommand.
// Exit codes: 0 ok; 2 usage error or unreadable/malformed input; 3 invalid graph.

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
int gen_command(const std::vector<std::string>& args);
int explain_command(const std::vector<std::string>& args);

}  // namespace strata::tools
