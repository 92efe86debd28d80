#pragma once
// What strata_bench and strata_execute_bench share: wall-clock timing
// (medians over repetitions), per-kernel times from Kokkos Tools callbacks
// (--profile), the JSON writers' helpers, and the environment every JSON
// records (machine, load, versions, command).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <strata/version.hpp>

#ifndef STRATA_BENCH_KOKKOSKERNELS_VERSION
#define STRATA_BENCH_KOKKOSKERNELS_VERSION "unknown"
#endif
#ifndef STRATA_BENCH_BUILD_TYPE
#define STRATA_BENCH_BUILD_TYPE "unknown"
#endif
// The source commit, written at build time (perf_test/CMakeLists.txt).
#if __has_include("strata_bench_commit.hpp")
#include "strata_bench_commit.hpp"
#endif
#ifndef STRATA_BENCH_GIT_COMMIT
#define STRATA_BENCH_GIT_COMMIT "unknown"
#endif

namespace strata_bench {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------
// Timing
struct Timing {
  std::vector<double> seconds;
  double median() const {
    if (seconds.empty()) return 0;
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  }
  double min() const { return seconds.empty() ? 0 : *std::min_element(seconds.begin(), seconds.end()); }
};

template <class F>
double seconds_of(F&& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// `warm_ups` untimed calls, then `repetitions` timed ones; `before`
/// (untimed) runs before every call.
template <class F>
Timing time_calls(int repetitions, int warm_ups, F&& f, const std::function<void()>& before = {}) {
  Timing t;
  for (int w = 0; w < warm_ups; ++w) {
    if (before) before();
    f();
  }
  for (int r = 0; r < repetitions; ++r) {
    if (before) before();
    t.seconds.push_back(seconds_of(f));
  }
  return t;
}

// ---------------------------------------------------------------------------
// Per-kernel times (--profile): Kokkos' begin/end parallel_for/reduce/scan
// callbacks, installed only around an extra, untimed call. Host-backend
// kernels are synchronous; with Kokkos 4.x a loaded tool fences around
// kernels, so device kernels are timed too. The View initialisations that
// allocations launch show up as "Kokkos::View::initialization [label]".
struct Phase {
  std::string name;
  double seconds = 0;
  std::uint64_t calls = 0;
};

struct KernelTimers {
  static std::vector<Phase>& phases() {
    static std::vector<Phase> p;
    return p;
  }
  static std::vector<std::pair<std::size_t, Clock::time_point>>& open() {  // index = kernel id
    static std::vector<std::pair<std::size_t, Clock::time_point>> o;
    return o;
  }
  static void on_begin(const char* name, const std::uint32_t, std::uint64_t* id) {
    auto& ph = phases();
    std::size_t p = 0;
    while (p < ph.size() && ph[p].name != name) ++p;
    if (p == ph.size()) ph.push_back(Phase{name, 0, 0});
    *id = open().size();
    open().emplace_back(p, Clock::now());
  }
  static void on_end(const std::uint64_t id) {
    if (id >= open().size()) return;
    Phase& p = phases()[open()[id].first];
    p.seconds += std::chrono::duration<double>(Clock::now() - open()[id].second).count();
    ++p.calls;
  }
  static void set(bool on) {
    namespace T = Kokkos::Tools::Experimental;
    T::set_begin_parallel_for_callback(on ? on_begin : nullptr);
    T::set_begin_parallel_reduce_callback(on ? on_begin : nullptr);
    T::set_begin_parallel_scan_callback(on ? on_begin : nullptr);
    T::set_end_parallel_for_callback(on ? on_end : nullptr);
    T::set_end_parallel_reduce_callback(on ? on_end : nullptr);
    T::set_end_parallel_scan_callback(on ? on_end : nullptr);
  }
};

/// Runs `f` with the kernel timers on; returns its kernels by time (largest
/// first) plus `outside` for the rest of its wall time.
template <class F>
std::vector<Phase> phases_of(F&& f, const std::string& outside) {
  KernelTimers::phases().clear();
  KernelTimers::open().clear();
  KernelTimers::set(true);
  const auto start = Clock::now();
  try {
    f();
  } catch (...) {
    KernelTimers::set(false);
    throw;
  }
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  KernelTimers::set(false);
  std::vector<Phase> phases = KernelTimers::phases();
  double in_kernels = 0;
  for (const auto& p : phases) in_kernels += p.seconds;
  phases.push_back(Phase{outside, std::max(0.0, total - in_kernels), 1});
  std::sort(phases.begin(), phases.end(),
            [](const Phase& a, const Phase& b) { return a.seconds > b.seconds; });
  return phases;
}

// ---------------------------------------------------------------------------
// JSON
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

inline std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  std::ostringstream s;
  s << std::setprecision(9) << x;
  return s.str();
}

inline std::string json_timing(const Timing& t) {
  std::ostringstream s;
  s << "{\"median_s\": " << json_number(t.median()) << ", \"min_s\": " << json_number(t.min())
    << ", \"repetitions\": " << t.seconds.size() << ", \"seconds\": [";
  for (std::size_t i = 0; i < t.seconds.size(); ++i) s << (i ? ", " : "") << json_number(t.seconds[i]);
  s << "]}";
  return s.str();
}

/// The "phases" member of a method's JSON object (nothing when empty).
inline std::string json_phases(const std::vector<Phase>& phases) {
  if (phases.empty()) return "";
  std::ostringstream out;
  out << ", \"phases\": [";
  for (std::size_t p = 0; p < phases.size(); ++p)
    out << (p ? ", " : "") << "{\"name\": " << json_string(phases[p].name)
        << ", \"seconds\": " << json_number(phases[p].seconds) << ", \"calls\": " << phases[p].calls
        << "}";
  out << "]";
  return out.str();
}

/// "a,b,,c" -> {"a", "b", "c"} (a command-line list).
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// ---------------------------------------------------------------------------
// The environment
inline std::string read_first_line_matching(const char* path, const char* key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return in ? a + " " + b + " " + c : "unknown";
}

inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

inline std::string kokkos_version() {
  std::ostringstream s;
  s << KOKKOS_VERSION / 10000 << "." << (KOKKOS_VERSION / 100) % 100 << "." << std::setw(2)
    << std::setfill('0') << KOKKOS_VERSION % 100;
  return s.str();
}

/// The command line as run (the JSON's "command").
inline std::string command_line(int argc, char* argv[]) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

/// The start of a benchmark's first line: its name, the backend and its
/// concurrency, the Kokkos and Kokkos Kernels versions.
inline std::string bench_heading(const std::string& name, const std::string& kokkos_kernels) {
  using ExecSpace = Kokkos::DefaultExecutionSpace;
  std::ostringstream s;
  s << name << ": " << ExecSpace::name() << ", concurrency " << ExecSpace().concurrency()
    << ", Kokkos " << kokkos_version() << ", Kokkos Kernels " << kokkos_kernels;
  return s.str();
}

/// The members of the JSON "environment" object both benchmarks write (each
/// line indented by four spaces and ending in ",\n"); `date` and
/// `load_start` were taken when the run started.
inline std::string json_environment(const std::string& command, const std::string& date,
                                    const std::string& load_start) {
  using ExecSpace = Kokkos::DefaultExecutionSpace;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  const char* omp = std::getenv("OMP_NUM_THREADS");
  std::ostringstream out;
  out << "    \"backend\": " << json_string(ExecSpace::name()) << ",\n"
      << "    \"concurrency\": " << ExecSpace().concurrency() << ",\n"
      << "    \"omp_num_threads\": " << json_string(omp ? omp : "") << ",\n"
      << "    \"kokkos_version\": " << json_string(kokkos_version()) << ",\n"
      << "    \"kokkos_kernels_version\": " << json_string(STRATA_BENCH_KOKKOSKERNELS_VERSION) << ",\n"
      << "    \"strata_version\": " << json_string(STRATA_VERSION_STRING) << ",\n"
      << "    \"git_commit\": " << json_string(STRATA_BENCH_GIT_COMMIT) << ",\n"
      << "    \"build_type\": " << json_string(STRATA_BENCH_BUILD_TYPE) << ",\n"
      << "    \"compiler\": " << json_string(__VERSION__) << ",\n"
      << "    \"date\": " << json_string(date) << ",\n"
      << "    \"host\": " << json_string(host) << ",\n"
      << "    \"cpu\": " << json_string(read_first_line_matching("/proc/cpuinfo", "model name")) << ",\n"
      << "    \"load_average_start\": " << json_string(load_start) << ",\n"
      << "    \"load_average_end\": " << json_string(load_average()) << ",\n"
      << "    \"command\": " << json_string(command) << ",\n";
  return out.str();
}

}  // namespace strata_bench
