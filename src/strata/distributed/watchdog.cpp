#include <strata/distributed/watchdog.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <unistd.h>

#include <strata/core/error.hpp>

namespace strata::distributed {

namespace {

constexpr const char* kVariable = "STRATA_MPI_TIMEOUT";

/// Never destroyed: the watchdog thread may outlive main's statics.
struct State {
  std::atomic<std::int64_t> entered_ns{0};  ///< steady clock at the outermost entry; 0: idle
  std::atomic<const char*> call{nullptr};
  std::atomic<int> rank{0};
  std::atomic<double> override_seconds{-1.0};  ///< < 0: not overridden
  int depth = 0;                               ///< nesting, on the calling thread only
  std::once_flag started;
};

State& state() {
  static State* s = new State;
  return *s;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void time_out(const char* call, int rank, double seconds) {
  const PlanError e =
      PlanError::rank_timeout(call, static_cast<std::uint64_t>(std::llround(seconds)), rank);
  const std::string line = std::string("strata: ") + e.what() + "\n";
  std::size_t at = 0;
  while (at < line.size()) {
    const ssize_t n = ::write(2, line.data() + at, line.size() - at);
    if (n <= 0) break;
    at += static_cast<std::size_t>(n);
  }
  ::_exit(mpi_timeout_exit_code);
}

void watch() {
  State& s = state();
  for (;;) {
    const double timeout = mpi_timeout_seconds();
    const auto tick = std::chrono::milliseconds(
        timeout > 0 && timeout < 1.0 ? std::max<long>(1, long(timeout * 250)) : 100);
    std::this_thread::sleep_for(tick);
    const std::int64_t since = s.entered_ns.load();
    if (since == 0 || timeout <= 0) continue;
    if (double(now_ns() - since) * 1e-9 > timeout) time_out(s.call.load(), s.rank.load(), timeout);
  }
}

}  // namespace

std::optional<double> parse_mpi_timeout(const std::string& text) {
  if (text.empty() || text.size() > 32) return std::nullopt;
  for (char c : text)
    if (!(c >= '0' && c <= '9') && c != '.') return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 || v > 1e9)
    return std::nullopt;
  return v;
}

void check_mpi_timeout_environment() {
  const char* text = std::getenv(kVariable);
  if (text != nullptr && !parse_mpi_timeout(text))
    throw PlanError::invalid_argument(
        std::string(kVariable) + " must be a number of seconds such as 600 or 2.5 (0: wait "
                                 "forever), not '" + text + "'",
        "set STRATA_MPI_TIMEOUT to a non-negative decimal number, or unset it (600 s)");
}

namespace {

/// Read once. The first read must happen on a caller's thread, never on the watchdog's:
/// getenv there races with the setenv calls MPI makes while the caller is inside MPI_Init
/// (a SEGV inside getenv under AddressSanitizer).
double timeout_from_environment() {
  static const double seconds = [] {
    const char* text = std::getenv(kVariable);
    const auto v = text != nullptr ? parse_mpi_timeout(text) : std::nullopt;
    return v ? *v : default_mpi_timeout_seconds;
  }();
  return seconds;
}

}  // namespace

double mpi_timeout_seconds() {
  const double o = state().override_seconds.load();
  if (o >= 0) return o;
  return timeout_from_environment();
}

void set_mpi_timeout_seconds(double seconds) {
  state().override_seconds.store(seconds >= 0 && std::isfinite(seconds) ? seconds : 0.0);
}

BlockingCall::BlockingCall(const char* call, int rank) {
  State& s = state();
  if (s.depth++ != 0) return;
  std::call_once(s.started, [] {
    (void)timeout_from_environment();  // here, before the watchdog thread exists
    std::thread(watch).detach();
  });
  s.call.store(call);
  s.rank.store(rank);
  s.entered_ns.store(now_ns());
}

BlockingCall::~BlockingCall() {
  State& s = state();
  if (--s.depth == 0) s.entered_ns.store(0);
}

}  // namespace strata::distributed
