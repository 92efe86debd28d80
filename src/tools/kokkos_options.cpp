// Checks of the Kokkos options and environment before Kokkos::initialize (see
// kokkos_options.hpp). The names are those of Kokkos 3.4 and 4.x.
#include "kokkos_options.hpp"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <algorithm>

#include <unistd.h>

#include <Kokkos_Macros.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

#include <strata/core/error.hpp>
#include <strata/io/edge_list.hpp>
#include <strata/runtime/kokkos_environment.hpp>

#include "commands.hpp"

namespace strata::tools {

namespace {

/// A plain decimal integer in [low, high] (no sign, no spaces, no suffix), or nothing.
std::optional<long long> decimal(const std::string& text, long long low, long long high) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  long long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value < low || value > high) return std::nullopt;
  return value;
}

/// What a value must be, for messages; check(value) says whether it is.
struct IntRule {
  long long low, high;
  std::string what;  ///< e.g. "a thread count in 1..256"
};

IntRule threads_rule() {
  return {1, max_kokkos_threads(), "a thread count in 1.." + std::to_string(max_kokkos_threads())};
}
IntRule numa_rule() { return {1, 1024, "a NUMA region count in 1..1024"}; }
IntRule device_rule() {
  return {0, INT_MAX, "a device id in 0.." + std::to_string(INT_MAX)};
}
IntRule count_rule(const char* what) { return {1, INT_MAX, std::string("a ") + what + " of at least 1"}; }
IntRule int_rule() { return {0, INT_MAX, "a non-negative integer"}; }

/// The `=VALUE` options (Kokkos 3.4 and 4.x names) and their rules; a
/// rule-less entry takes any non-empty text.
std::optional<IntRule> value_rule(const std::string& name, bool& known) {
  known = true;
  if (name == "--kokkos-threads" || name == "--kokkos-num-threads") return threads_rule();
  if (name == "--kokkos-numa") return numa_rule();
  if (name == "--kokkos-device" || name == "--kokkos-device-id") return device_rule();
  if (name == "--kokkos-num-devices" || name == "--kokkos-ndevices" ||
      name == "--kokkos-tools-library" || name == "--kokkos-tools-libs" ||
      name == "--kokkos-tools-args" || name == "--kokkos-map-device-id-by" ||
      name == "--kokkos-visible-devices")
    return std::nullopt;
  known = false;
  return std::nullopt;
}

bool is_flag(const std::string& name) {
  return name == "--kokkos-help" || name == "--kokkos-disable-warnings" ||
         name == "--kokkos-tune-internals" || name == "--kokkos-tools-help" ||
         name == "--kokkos-print-configuration";
}

/// "N" or "N,M" for --kokkos-num-devices.
bool valid_device_count(const std::string& v) {
  const auto comma = v.find(',');
  if (comma == std::string::npos) return decimal(v, 1, INT_MAX).has_value();
  return decimal(v.substr(0, comma), 1, INT_MAX) && decimal(v.substr(comma + 1), 0, INT_MAX);
}

void check_argument(const std::string& arg) {
  const auto eq = arg.find('=');
  const std::string name = arg.substr(0, eq);
  const std::string shown = io::printable(arg);
  if (is_flag(name)) {
    if (eq != std::string::npos && name != "--kokkos-disable-warnings" &&
        name != "--kokkos-tune-internals" && name != "--kokkos-print-configuration")
      throw UsageError{"'" + shown + "': " + name + " takes no value"};
    return;
  }
  bool known = false;
  const auto rule = value_rule(name, known);
  if (!known)
    throw UsageError{"unknown Kokkos option '" + shown +
                     "' (strata passes on --kokkos-threads=N, --kokkos-numa=N, "
                     "--kokkos-device-id=N, --kokkos-num-devices=N[,M], "
                     "--kokkos-disable-warnings, --kokkos-tune-internals, --kokkos-tools-*)"};
  if (eq == std::string::npos)
    throw UsageError{name + " needs a value: write it as " + name + "=VALUE, in one argument"};
  const std::string value = arg.substr(eq + 1);
  if (rule) {
    if (!decimal(value, rule->low, rule->high))
      throw UsageError{name + " must be " + rule->what + ", not '" + io::printable(value) + "'"};
  } else if (name == "--kokkos-num-devices" || name == "--kokkos-ndevices") {
    if (!valid_device_count(value))
      throw UsageError{name + " must be a device count N or N,SKIP (integers, N at least 1), not '" +
                       io::printable(value) + "'"};
  } else if (value.empty()) {
    throw UsageError{name + " needs a value after '='"};
  } else if (name == "--kokkos-tools-library" || name == "--kokkos-tools-libs") {
    // Kokkos prints its dlopen failure and goes on without the tool: a
    // profiling run would then measure nothing and exit 0. A path (an entry
    // with a '/'; ';' separates several) must name a readable file; a bare
    // name is left to dlopen's search.
    for (std::size_t at = 0; at <= value.size();) {
      const std::size_t semi = std::min(value.find(';', at), value.size());
      const std::string entry = value.substr(at, semi - at);
      if (entry.find('/') != std::string::npos && ::access(entry.c_str(), R_OK) != 0)
        throw UsageError{name + " names '" + io::printable(entry) +
                         "', which is not a readable file (a Kokkos Tools library such as "
                         "libkp_kernel_timer.so)"};
      at = semi + 1;
    }
  }
}

[[noreturn]] void bad_variable(const char* name, const char* value, const std::string& what) {
  throw PlanError::invalid_argument(
      std::string("environment variable ") + name + "='" + io::printable(value) +
          "' is not " + what,
      std::string("unset ") + name + " or set it to " + what);
}

const char* variable(const char* name) { return std::getenv(name); }

/// The value of an integer variable (checked), or nothing when unset.
std::optional<long long> int_variable(const char* name, const IntRule& rule) {
  const char* v = variable(name);
  if (v == nullptr) return std::nullopt;
  const auto value = decimal(v, rule.low, rule.high);
  if (!value) bad_variable(name, v, rule.what);
  return value;
}

/// Kokkos refuses an option and its variable when they disagree.
void check_agreement(const std::vector<std::string>& args, const char* variable_name,
                     std::optional<long long> variable_value,
                     std::initializer_list<const char*> options) {
  if (!variable_value) return;
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    for (const char* option : options)
      if (arg.compare(0, eq, option) == 0 &&
          decimal(arg.substr(eq + 1), 0, INT_MAX) != variable_value)
        throw UsageError{"'" + io::printable(arg) + "' disagrees with the environment variable " +
                         variable_name + "=" + std::to_string(*variable_value) +
                         " (Kokkos refuses both when they differ): drop one of them"};
  }
}

/// GPUs the device runtime can see (CUDA_VISIBLE_DEVICES applied), or
/// nothing on a host build or when the runtime cannot answer (then
/// Kokkos::initialize meets the same failure and main classifies it).
std::optional<long long> visible_gpus() {
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice) return 0;
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear it: Kokkos::initialize asks again
    return std::nullopt;
  }
  return count;
#elif defined(KOKKOS_ENABLE_HIP)
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status == hipErrorNoDevice) return 0;
  if (status != hipSuccess) {
    (void)hipGetLastError();
    return std::nullopt;
  }
  return count;
#else
  return std::nullopt;
#endif
}

/// Kokkos 4 aborts in initialize on a device id beyond the visible GPUs
/// ("Requested GPU with id ... but only N GPU(s) available", SIGABRT).
void check_device_id(const std::vector<std::string>& args, std::optional<long long> variable_id) {
  std::optional<long long> id = variable_id;
  std::string named = "KOKKOS_DEVICE_ID";
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = arg.substr(0, eq);
    if (name == "--kokkos-device" || name == "--kokkos-device-id") {
      id = decimal(arg.substr(eq + 1), 0, INT_MAX);
      named = name;
    }
  }
  if (!id) return;
  const auto gpus = visible_gpus();
  if (!gpus || *id < *gpus) return;
  if (*gpus == 0)
    throw PlanError::invalid_argument(
        named + " asks for GPU " + std::to_string(*id) + ", but the device runtime sees no GPU",
        "run where a GPU is visible (check CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES), or use "
        "a host build of strata");
  throw PlanError::invalid_argument(
      named + " asks for GPU " + std::to_string(*id) + ", but " + std::to_string(*gpus) +
          " GPU" + (*gpus == 1 ? " is" : "s are") + " visible (ids 0.." +
          std::to_string(*gpus - 1) + ")",
      "name a device id below " + std::to_string(*gpus) +
          " (CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES choose which GPUs are visible)");
}

}  // namespace

int max_kokkos_threads() { return runtime::max_threads(); }

bool default_openmp_binding() { return runtime::default_openmp_binding(); }

void check_kokkos_options(const std::vector<std::string>& kokkos_args) {
  for (const auto& arg : kokkos_args) check_argument(arg);
  const auto threads = int_variable("KOKKOS_NUM_THREADS", threads_rule());
  runtime::check_thread_environment();  // OMP_NUM_THREADS beyond Kokkos' thread pool
  const auto numa = int_variable("KOKKOS_NUMA", numa_rule());
  const auto device = int_variable("KOKKOS_DEVICE_ID", device_rule());
  (void)int_variable("KOKKOS_NUM_DEVICES", count_rule("device count"));
  (void)int_variable("KOKKOS_RAND_DEVICES", count_rule("device count"));
  (void)int_variable("KOKKOS_SKIP_DEVICE", int_rule());
  if (variable("KOKKOS_NUM_DEVICES") != nullptr && variable("KOKKOS_RAND_DEVICES") != nullptr)
    throw PlanError::invalid_argument(
        "the environment sets both KOKKOS_NUM_DEVICES and KOKKOS_RAND_DEVICES",
        "unset one of them (Kokkos refuses both)");
  check_agreement(kokkos_args, "KOKKOS_NUM_THREADS", threads,
                  {"--kokkos-threads", "--kokkos-num-threads"});
  check_agreement(kokkos_args, "KOKKOS_NUMA", numa, {"--kokkos-numa"});
  check_agreement(kokkos_args, "KOKKOS_DEVICE_ID", device,
                  {"--kokkos-device", "--kokkos-device-id"});
  check_device_id(kokkos_args, device);
}

}  // namespace strata::tools
