// The MPI watchdog reads STRATA_MPI_TIMEOUT on the caller's thread only.
//
// getenv on the watchdog thread raced with the setenv calls Open MPI makes
// while the caller is inside MPI_Init (the first BlockingCall wraps it): CI's
// AddressSanitizer build died with a SEGV inside getenv. This executable
// interposes getenv to record which threads read the variable; it has a
// process of its own because the watchdog thread starts once per process.
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <strata/distributed/watchdog.hpp>

namespace {

// getenv may run before this file's dynamic initialisers (other libraries'
// start-up code calls it): the mutex is constant-initialised and the list
// built on first use.
std::mutex readers_mutex;
std::vector<std::thread::id>& readers() {
  static std::vector<std::thread::id> ids;
  return ids;
}

}  // namespace

// Every getenv of this process, libstrata's included, comes here first.
extern "C" char* getenv(const char* name) noexcept {  // noexcept: as glibc declares it
  using Getenv = char* (*)(const char*);
  static const Getenv next = reinterpret_cast<Getenv>(dlsym(RTLD_NEXT, "getenv"));
  if (std::strcmp(name, "STRATA_MPI_TIMEOUT") == 0) {  // name: non-null, as getenv declares
    const std::lock_guard<std::mutex> lock(readers_mutex);
    readers().push_back(std::this_thread::get_id());
  }
  return next(name);
}

TEST(Watchdog, ReadsTheTimeoutVariableOnlyOnTheCallersThread) {
  ASSERT_EQ(::setenv("STRATA_MPI_TIMEOUT", "30", 1), 0);
  {
    // The first scope of the process starts the watchdog thread, whose loop
    // asks for the timeout at once and then every 100 ms.
    const strata::distributed::BlockingCall call("MPI_Init", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
  }
  EXPECT_EQ(strata::distributed::mpi_timeout_seconds(), 30.0);
  const std::lock_guard<std::mutex> lock(readers_mutex);
  ASSERT_FALSE(readers().empty()) << "STRATA_MPI_TIMEOUT was never read";
  for (const std::thread::id reader : readers())
    EXPECT_EQ(reader, std::this_thread::get_id())
        << "STRATA_MPI_TIMEOUT was read on another thread (the watchdog's)";
}
