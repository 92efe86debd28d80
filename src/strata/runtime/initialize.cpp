#include "initialize.hpp"

#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

namespace strata::runtime {

ThreadsPerRank initialize(int& argc, char* argv[]) {
  if (Kokkos::is_initialized()) return {};
  check_thread_environment();
  default_openmp_binding();
  std::vector<std::string> kokkos_args;
  for (int i = 0; i < argc && argv != nullptr; ++i)
    if (argv[i] != nullptr && std::string(argv[i]).rfind("--kokkos-", 0) == 0)
      kokkos_args.emplace_back(argv[i]);
  const ThreadsPerRank threads = threads_per_rank(kokkos_args);
  // Kokkos reads a program name first: keep argv[0], else "strata".
  static char program[] = "strata";
  std::vector<char*> args;
  if (argc <= 0 || argv == nullptr) args.push_back(program);
  for (int i = 0; i < argc && argv != nullptr; ++i) args.push_back(argv[i]);
  std::string option;
  if (threads.chosen) {
    option = thread_count_option(threads.threads);
    args.push_back(option.data());
  }
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  Kokkos::initialize(count, args.data());
  // Kokkos removed the options it consumed (the added one included): hand
  // the remaining arguments back in argv.
  if (argc > 0 && argv != nullptr) {
    int n = 0;
    for (int i = 0; i < count && n < argc; ++i) argv[n++] = args[std::size_t(i)];
    for (int i = n; i < argc; ++i) argv[i] = nullptr;
    argc = n;
  }
  return threads;
}

ScopeGuard::ScopeGuard(int& argc, char* argv[]) {
  const bool running = Kokkos::is_initialized();
  threads_ = initialize(argc, argv);
  started_ = !running;
}

ScopeGuard::~ScopeGuard() {
  if (started_ && Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace strata::runtime
