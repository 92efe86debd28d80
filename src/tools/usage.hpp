#pragma once
// What `strata --help`, `strata COMMAND --help` and `strata --version` print.
// Answered before Kokkos starts: help and version need no device, print no
// Kokkos warning, and work where Kokkos cannot start (a login node without a
// GPU). Kokkos' own option list is `strata --kokkos-help`.
#include <optional>
#include <string>
#include <vector>

namespace strata::tools {

/// The overview: commands, the input format, the demo graph, Kokkos, exit codes.
std::string general_usage();

/// The usage of one command (plan, explain, run, gen), or the overview for
/// any other name.
std::string command_usage(const std::string& command);

/// The `usage:` lines of command_usage(command) and where the rest is: what
/// follows a command-line error.
std::string command_synopsis(const std::string& command);

/// `strata 0.3.0 (commit 1a2b3c4; Kokkos 3.4.1, OpenMP)` (`release` instead of the
/// commit for a build from a release tarball), with a newline.
std::string version_text();

/// What to print for a help or version request, when `args` (the arguments
/// that are not --kokkos-*) are one: `--help`, `-h` or `help` anywhere
/// (`strata --help`, `strata plan --help`, `strata help gen`: the command's
/// usage when a command is named), or `--version` as the command.
std::optional<std::string> help_or_version(const std::vector<std::string>& args);

}  // namespace strata::tools
