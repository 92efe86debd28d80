// strata: plan the barrier layers of a wave dependency DAG from the command line.
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/runtime/kokkos_environment.hpp>
#include <strata/version.hpp>
#ifdef STRATA_ENABLE_MPI
#include <mpi.h>
#endif

#include "commands.hpp"
#include "mpi_session.hpp"
#include "kokkos_options.hpp"
#include "openmp_spin_bound.hpp"
#include "output.hpp"
#include "suggest.hpp"
#include "usage.hpp"

namespace {

int run(const std::vector<std::string>& args) {
  if (args.empty()) throw strata::tools::UsageError{"missing command"};
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "plan") return strata::tools::plan_command(rest);
  if (command == "gen") return strata::tools::gen_command(rest);
  if (command == "explain") return strata::tools::explain_command(rest);
  if (command == "run") return strata::tools::run_command(rest);
  if (command == "solve") return strata::tools::solve_command(rest);
  throw strata::tools::UsageError{
      "unknown command '" + command + "'" +
      strata::tools::did_you_mean(command, {"plan", "gen", "explain", "run", "solve", "help"})};
}

}  // namespace

/// Kokkos::initialize prints its warnings (OMP_PROC_BIND, oversubscribed
/// cores) with printf and std::cout/std::cerr. stdout must carry nothing but
/// the plan or the graph, and a `strata:` error line must come first on
/// stderr, so everything Kokkos prints while it starts is captured (file
/// descriptors 1 and 2 point at a temporary file) and main prints it on
/// stderr once the command is done, after any error line. Should Kokkos abort
/// during initialize, what it printed is copied to stderr before the abort.
class KokkosSession {
 public:
  KokkosSession(std::vector<char*> argv, std::string& messages) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    FILE* capture = std::tmpfile();
    saved_out_ = ::dup(1);
    captured_err_ = ::dup(2);
    const bool capturing = capture != nullptr && saved_out_ >= 0 && captured_err_ >= 0;
    if (capturing) {
      capture_fd_ = ::fileno(capture);
      ::dup2(capture_fd_, 1);
      ::dup2(capture_fd_, 2);
      abort_copy_from = capture_fd_;
      abort_copy_to = captured_err_;
      previous_abort_ = std::signal(SIGABRT, copy_captured_on_abort);
      static const bool registered = std::atexit(report_exit_during_initialize) == 0;
      (void)registered;
    } else if (saved_out_ >= 0) {
      ::dup2(2, 1);  // no temporary file: Kokkos' messages go to stderr at once
    }
    int argc = static_cast<int>(argv.size());
    argv.push_back(nullptr);
    try {
      Kokkos::initialize(argc, argv.data());
    } catch (const std::bad_alloc&) {
      restore(messages, capture);
      throw;
    } catch (const std::exception& e) {
      restore(messages, capture);
      const std::string what = strata::one_line_message(e.what());
      // Out of memory while Kokkos starts: a host allocation (ulimit -v), or a
      // device runtime that cannot map its address space. Under ulimit -v,
      // CUDA's cudaGetDeviceCount answers cudaErrorMemoryAllocation or, at
      // some limits, cudaErrorOperatingSystem: with an address-space limit
      // set, any device runtime error at start-up is taken as that limit.
      const bool out_of_memory = what.find("allocate") != std::string::npos ||
                                 what.find("out of memory") != std::string::npos ||
                                 what.find("MemoryAllocation") != std::string::npos ||
                                 what.find("OutOfMemory") != std::string::npos;
      const bool device_runtime_error =
          what.find("cuda") != std::string::npos || what.find("hip") != std::string::npos;
      if (out_of_memory || (device_runtime_error && address_space_is_limited()))
        throw strata::tools::CliError{
            "StorageReserveFailed: Kokkos::initialize could not allocate its memory: " + what +
                ". Fix: run where more memory is available (check ulimit -v; a GPU runtime "
                "reserves address space for the whole device, so a GPU build needs ulimit -v "
                "unlimited).",
            strata::tools::exit_invalid_graph};
      throw strata::PlanError::invalid_argument(
          "Kokkos::initialize refused the Kokkos options or environment: " +
              strata::one_line_message(e.what()),
          "check the --kokkos-* options and the KOKKOS_* environment variables");
    }
    restore(messages, capture);
  }
  ~KokkosSession() { Kokkos::finalize(); }
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;

 private:
  static bool address_space_is_limited() {
    rlimit limit{};
    return ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
  }

  static inline volatile int abort_copy_from = -1;
  static inline volatile int abort_copy_to = -1;
  static void copy_captured_on_abort(int signal) {  // async-signal-safe calls only
    if (abort_copy_from >= 0 && abort_copy_to >= 0) {
      ::dup2(abort_copy_to, 1);
      ::dup2(abort_copy_to, 2);
      // Kokkos 3.4's OpenMP start-up allocates each thread's workspace inside
      // an OpenMP region, where std::bad_alloc (a low ulimit -v) can only
      // terminate: that is out of memory, reported as such (exit 3).
      static char head[8192];
      ::lseek(abort_copy_from, 0, SEEK_SET);
      const ssize_t got = ::read(abort_copy_from, head, sizeof head);
      static const char needle[] = "std::bad_alloc";
      bool out_of_memory = false;
      for (ssize_t i = 0; got > 0 && !out_of_memory && i + ssize_t(sizeof needle) - 1 <= got; ++i) {
        ssize_t k = 0;
        while (k < ssize_t(sizeof needle) - 1 && head[i + k] == needle[k]) ++k;
        out_of_memory = k == ssize_t(sizeof needle) - 1;
      }
      if (out_of_memory) {
        static const char line[] =
            "strata: StorageReserveFailed: Kokkos::initialize ran out of memory starting its "
            "threads (std::bad_alloc inside an OpenMP region). Fix: run where more memory is "
            "available (check ulimit -v), or with fewer threads (--kokkos-threads=N).\n";
        if (::write(2, line, sizeof line - 1) < 0) ::_exit(strata::tools::exit_invalid_graph);
      }
      ::lseek(abort_copy_from, 0, SEEK_SET);
      char buffer[4096];
      ssize_t n = 0;
      while ((n = ::read(abort_copy_from, buffer, sizeof buffer)) > 0)
        if (::write(2, buffer, static_cast<std::size_t>(n)) < 0) break;
      if (out_of_memory) ::_exit(strata::tools::exit_invalid_graph);
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }

  /// Runs when something calls exit() inside Kokkos::initialize: libgomp
  /// does when it cannot create its threads (a small `ulimit -v`). That is
  /// a resource limit: the strata: line, then what was printed, exit 3.
  /// Any other exit keeps its code, with what was printed on stderr.
  static void report_exit_during_initialize() {
    if (abort_copy_from < 0 || abort_copy_to < 0) return;  // not inside initialize
    std::string captured;
    ::lseek(abort_copy_from, 0, SEEK_SET);
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(abort_copy_from, buffer, sizeof buffer)) > 0)
      captured.append(buffer, static_cast<std::size_t>(n));
    const int err = abort_copy_to;
    abort_copy_from = abort_copy_to = -1;
    const auto write_all = [err](const std::string& text) {
      if (::write(err, text.data(), text.size()) < 0) return;
    };
    const auto at = captured.find("Thread creation failed");
    if (at != std::string::npos) {
      const auto begin = captured.rfind('\n', at);
      const auto from = begin == std::string::npos ? 0 : begin + 1;
      const std::string first = captured.substr(from, captured.find('\n', at) - from);
      write_all("strata: StorageReserveFailed: Kokkos::initialize could not start its threads (" +
                strata::io::printable(first) +
                "). Fix: run where more memory is available (check ulimit -v), or with fewer "
                "threads (--kokkos-threads=N).\n" + captured);
      ::_exit(strata::tools::exit_invalid_graph);
    }
    write_all(captured);
  }

  void restore(std::string& messages, FILE* capture) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    if (capture_fd_ >= 0) {
      std::signal(SIGABRT, previous_abort_ == SIG_ERR ? SIG_DFL : previous_abort_);
      abort_copy_from = abort_copy_to = -1;
      ::dup2(captured_err_, 2);
      ::lseek(capture_fd_, 0, SEEK_SET);
      char buffer[4096];
      ssize_t n = 0;
      while ((n = ::read(capture_fd_, buffer, sizeof buffer)) > 0)
        messages.append(buffer, static_cast<std::size_t>(n));
    }
    if (saved_out_ >= 0) {
      ::dup2(saved_out_, 1);
      ::close(saved_out_);
      saved_out_ = -1;
    }
    if (captured_err_ >= 0) {
      ::close(captured_err_);
      captured_err_ = -1;
    }
    if (capture != nullptr) std::fclose(capture);
    capture_fd_ = -1;
  }

  int saved_out_ = -1, captured_err_ = -1, capture_fd_ = -1;
  void (*previous_abort_)(int) = SIG_DFL;
};


namespace {

/// Library messages name the library's settings; the tool's users set them
/// with flags. Every setting a library hint names, as the flag that sets it.
std::string in_flag_terms(std::string text) {
  static const std::pair<std::string, std::string> flags[] = {
      {"DistributedOptions::rank_budget_bytes", "--rank-budget"}};
  for (const auto& [setting, flag] : flags)
    for (std::size_t at = text.find(setting); at != std::string::npos;
         at = text.find(setting, at + flag.size()))
      text.replace(at, setting.size(), flag);
  return text;
}

/// The CLI's wording of a library error where the library's own hint names
/// library settings (device_memory_budget_bytes, 64-bit ordinals) instead of
/// the tool's flags.
std::string cli_message(const strata::PlanError& e, bool distributed) {
  using strata::ErrorKind;
  // The distributed planner words its resource hints for the per-rank budget
  // itself (whether more ranks help, the rank's real allocation); keep those,
  // in the tool's flag.
  if (distributed &&
      std::string(e.what()).find("DistributedOptions::rank_budget_bytes") != std::string::npos)
    return in_flag_terms(e.what());
  if (e.kind() == ErrorKind::MemoryConstrained)
    return "MemoryConstrained: planning needs " + std::to_string(e.needed_bytes()) +
           " bytes but the memory budget is " + std::to_string(e.budget_bytes()) + " bytes. Fix: " +
           (distributed ? "raise --rank-budget or run on more ranks."
                        : "raise --max-memory (default: the physical memory), or plan it over MPI "
                          "ranks with --distributed (under mpiexec).");
  // The library's hint names its distributed/ layer and 64-bit ordinals; the
  // tool already plans with 64-bit ids whenever 32 bits do not hold the graph.
  if (e.kind() == ErrorKind::CountOverflow)
    return "CountOverflow: barrier planner overflowed while computing " + e.field() +
           ". Fix: split the graph into smaller graphs (strata counts in 64 bits: at most "
           "2^64 - 2 waves and 2^64 - 1 dependencies).";
  if (e.kind() == ErrorKind::StorageReserveFailed)
    return "StorageReserveFailed: could not reserve storage for " +
           std::to_string(e.requested()) + " " + e.field() + ": " + e.message() +
           ". Fix: run where more memory is available (check ulimit -v)" +
           (distributed ? ", or run on more ranks."
                        : ", or set --max-memory to the memory available so that strata refuses "
                          "such a graph before allocating.");
  return in_flag_terms(e.what());
}

/// `strata: MESSAGE` as one line (control bytes escaped), then `after`, in
/// one write: under mpiexec no other process' output can split the line.
void print_error(const std::string& message, const char* after = "") {
  const std::string text = "strata: " + strata::io::printable(message) + "\n" + after;
  std::cerr.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::cerr.flush();
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = strata::tools;
  tools::bound_openmp_spin(argv);  // first: may execute the tool again
  tools::prepare_standard_streams();
  tools::default_openmp_binding();  // before anything starts OpenMP: no Kokkos warning
  // Kokkos sees only its own options (not --help, --threads, ... meant for strata).
  std::vector<char*> kokkos_argv{argv[0]};
  std::vector<std::string> kokkos_args, args;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--kokkos-", 9) == 0) {
      kokkos_argv.push_back(argv[i]);
      kokkos_args.emplace_back(argv[i]);
    } else {
      args.emplace_back(argv[i]);
    }
  }
  bool distributed = false;
  for (const auto& a : args) distributed = distributed || a == "--distributed";
  std::string kokkos_messages;
  int code = 1;
  // Declared outside the try: an error is printed before MPI_Finalize (which
  // holds every rank until rank 0 is there) and Kokkos::finalize.
  std::optional<KokkosSession> kokkos;
#ifdef STRATA_ENABLE_MPI
  std::optional<strata::tools::MpiSession> mpi;
#endif
  bool kokkos_help = false;
  for (const auto& a : kokkos_args) kokkos_help = kokkos_help || a == "--kokkos-help";
  try {
    if (const auto text = tools::help_or_version(args)) {
      // Help and version: Strata's own text, without starting Kokkos.
      tools::capture_stdout();
      std::cout << *text;
      tools::finish_output();
      return tools::exit_ok;
    }
    tools::check_kokkos_options(kokkos_args);
    const std::string command = args.empty() ? std::string() : args[0];
    // A process an MPI launcher started beside others, without --distributed,
    // would run alone while the others wait for it in MPI start-up: refused
    // (exit 2 makes the launcher end the job at once).
    if (!distributed && !command.empty()) tools::refuse_single_process_under_mpi_launcher(command);
#ifdef STRATA_ENABLE_MPI
    // MPI first: the threads of each rank depend on the ranks sharing its node.
    if ((command == "plan" || command == "run") && distributed) mpi.emplace();
#endif
    const auto threads = strata::runtime::threads_per_rank(kokkos_args);
    tools::set_rank_threads(threads);
    std::string thread_option;
    if (threads.chosen) {  // ranks share the node: cores / ranks each, not every core each
      thread_option = strata::runtime::thread_count_option(threads.threads);
      kokkos_argv.push_back(thread_option.data());
    }
    kokkos.emplace(kokkos_argv, kokkos_messages);
    tools::capture_stdout();
    if (args.empty() && kokkos_help) {
      // `strata --kokkos-help`: Kokkos printed its options while it started.
      std::cout << "strata hands Kokkos only the --kokkos-* forms of the options below (the "
                   "unprefixed forms are strata's own arguments).\n"
                << kokkos_messages;
      kokkos_messages.clear();
      code = tools::exit_ok;
    } else {
      code = run(args);
    }
    tools::finish_output();
  } catch (const tools::OutputError& e) {
    print_error(tools::output_error_message(e.error_number));
    code = tools::exit_invalid_graph;
  } catch (const tools::UsageError& e) {
    // Same shape as every other error: kind, message, Fix: hint (then the usage).
    if (tools::is_output_rank())
      print_error("InvalidArgument: " + e.message +
                      ". Fix: correct the command line (usage below, or strata --help).",
                  tools::command_synopsis(args.empty() ? std::string() : args[0]).c_str());
    code = tools::exit_usage;
  } catch (const tools::CliError& e) {
    if (tools::is_output_rank()) print_error(e.message);
    code = e.exit_code;
  } catch (const strata::PlanError& e) {
    if (tools::is_output_rank()) print_error(cli_message(e, distributed));
    switch (e.kind()) {
      case strata::ErrorKind::ParseError:
      case strata::ErrorKind::IoError:
      case strata::ErrorKind::InvalidArgument:
        code = tools::exit_usage;
        break;
      default:
        code = tools::exit_invalid_graph;
    }
  } catch (const std::bad_alloc& e) {  // out of memory where no typed check applies
    if (tools::is_output_rank())
      print_error(std::string("StorageReserveFailed: out of memory (") + e.what() +
                  "). Fix: run where more memory is available (check ulimit -v).");
    code = tools::exit_invalid_graph;
  } catch (const std::exception& e) {
    const std::string what = strata::one_line_message(e.what());
    if (what.find("Kokkos failed to allocate") != std::string::npos ||
        (what.find("allocation") != std::string::npos && what.find("failed") != std::string::npos)) {
      // A device or host View the typed checks did not bound (a limit such
      // as ulimit -v below the physical memory they assume).
      if (tools::is_output_rank())
        print_error("StorageReserveFailed: " + what +
                    ". Fix: run where more memory is available (check ulimit -v), or set "
                    "--max-memory to the memory available so that strata refuses such a graph "
                    "before allocating.");
      code = tools::exit_invalid_graph;
    } else {
      print_error(std::string("internal error: ") + e.what());
      code = 1;
    }
  }
  tools::discard_output();  // after an error: what the command buffered is never written
#ifdef STRATA_ENABLE_MPI
  mpi.reset();
#endif
  kokkos.reset();
  // --time's figures after a complete output only (a failed command's error
  // line stays the whole answer), then Kokkos' messages.
  const std::string diagnostics = tools::take_diagnostics();
  if (code == tools::exit_ok && !diagnostics.empty()) std::cerr << diagnostics << std::flush;
  if (!kokkos_messages.empty()) std::cerr << kokkos_messages << std::flush;
  return code;
}
