// The C interface (strata_c.h): a thin, exception-free shell over
// strata::plan_barriers on Kokkos::DefaultExecutionSpace. Every entry point
// runs its body inside guarded(), which turns every exception into a status
// and the calling thread's last error; nothing propagates into C or Fortran.

#include <strata/c/strata_c.h>
#include <strata/runtime/initialize.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>
#include <strata/core/storage.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/version.hpp>

static_assert(STRATA_ERROR_INVALID_WAVE == static_cast<int>(strata::ErrorKind::InvalidWave) &&
                  STRATA_ERROR_SELF_DEPENDENCY ==
                      static_cast<int>(strata::ErrorKind::SelfDependency) &&
                  STRATA_ERROR_CYCLE == static_cast<int>(strata::ErrorKind::Cycle) &&
                  STRATA_ERROR_COUNT_OVERFLOW ==
                      static_cast<int>(strata::ErrorKind::CountOverflow) &&
                  STRATA_ERROR_STORAGE_RESERVE_FAILED ==
                      static_cast<int>(strata::ErrorKind::StorageReserveFailed) &&
                  STRATA_ERROR_INVALID_ARGUMENT ==
                      static_cast<int>(strata::ErrorKind::InvalidArgument) &&
                  STRATA_ERROR_PARSE_ERROR == static_cast<int>(strata::ErrorKind::ParseError) &&
                  STRATA_ERROR_IO_ERROR == static_cast<int>(strata::ErrorKind::IoError),
              "C status codes 1..8 must equal strata::ErrorKind");

// The opaque handle: plain host memory, so it is independent of Kokkos'
// lifetime (a plan may outlive strata_finalize()).
struct strata_plan {
  int ordinal_bits = 32;
  std::uint64_t wave_count = 0;
  std::vector<std::uint32_t> offsets32, waves32, levels32;
  std::vector<std::uint64_t> offsets64, waves64, levels64;

  std::uint64_t group_count() const {
    const std::size_t n = ordinal_bits == 32 ? offsets32.size() : offsets64.size();
    return n == 0 ? 0 : n - 1;
  }
};

namespace {

// A failure of the C layer itself (not a strata::PlanError).
struct CError {
  strata_status status;
  std::string message;
  std::string field;
  std::uint64_t requested = 0;
  std::uint64_t wave = 0;
};

struct LastError {
  strata_status status = STRATA_OK;
  std::string message;
  std::string field;
  strata_error_info info{};
};

LastError& last_error() {
  thread_local LastError error;
  return error;
}

void clear_last_error() {
  LastError& e = last_error();
  e.status = STRATA_OK;
  e.message.clear();
  e.field.clear();
  e.info = strata_error_info{};
}

strata_status record(strata_status status, std::string message, std::string field = {}) noexcept {
  try {
    LastError& e = last_error();
    e.status = status;
    e.message = std::move(message);
    e.field = std::move(field);
    e.info = strata_error_info{};
    e.info.kind = status;
  } catch (...) {
    // Out of memory while recording: the status still says what happened.
    LastError& e = last_error();
    e.status = status;
    e.message.clear();
    e.field.clear();
    e.info = strata_error_info{};
    e.info.kind = status;
  }
  return status;
}

strata_status record(const strata::PlanError& error) noexcept {
  const strata_status status = static_cast<strata_status>(error.kind());
  record(status, error.what(), error.field());
  strata_error_info& info = last_error().info;
  info.wave_count = error.wave_count();
  info.before = error.before();
  info.after = error.after();
  info.wave = error.wave();
  info.unscheduled_waves = error.unscheduled_waves();
  info.requested = error.requested();
  info.line = error.line();
  return status;
}

/// Runs body (which returns a status or throws) and never lets an exception out.
template <class Body>
strata_status guarded(Body&& body) noexcept {
  try {
    clear_last_error();
    return body();
  } catch (const strata::PlanError& e) {
    return record(e);
  } catch (const CError& e) {
    const strata_status status = record(e.status, e.message, e.field);
    last_error().info.requested = e.requested;
    last_error().info.wave = e.wave;
    return status;
  } catch (const std::bad_alloc&) {
    return record(STRATA_ERROR_STORAGE_RESERVE_FAILED,
                  "StorageReserveFailed: out of host memory for the plan. Fix: plan a smaller "
                  "graph, or shard it over MPI ranks before barrier planning "
                  "(strata::distributed::plan_barriers_distributed).",
                  "host result");
  } catch (const std::exception& e) {
    const std::string what = strata::one_line_message(e.what());
    if (what.find("Kokkos failed to allocate") != std::string::npos)
      return record(STRATA_ERROR_STORAGE_RESERVE_FAILED,
                    "StorageReserveFailed: " + what +
                        ". Fix: plan a smaller graph, or run where more memory is available.",
                    "Kokkos allocation");
    return record(STRATA_ERROR_INTERNAL,
                  std::string("Internal: unexpected exception: ") + e.what() +
                      ". Fix: report this as a Strata bug, with the input that caused it.");
  } catch (...) {
    return record(STRATA_ERROR_INTERNAL,
                  "Internal: unexpected non-standard exception. Fix: report this as a Strata "
                  "bug, with the input that caused it.");
  }
}

CError invalid_argument(const std::string& what, const std::string& fix) {
  return CError{STRATA_ERROR_INVALID_ARGUMENT, "InvalidArgument: " + what + ". Fix: " + fix, {}};
}

// Kokkos start-up state owned by this interface.
std::mutex lifecycle_mutex;
bool initialized_by_strata = false;
bool finalized_by_strata = false;

void require_initialized(const char* function) {
  if (!Kokkos::is_initialized())
    throw CError{STRATA_ERROR_NOT_INITIALIZED,
                 std::string("NotInitialized: ") + function +
                     " needs Kokkos to be initialised. Fix: call strata_initialize() (or "
                     "Kokkos::initialize) before planning" +
                     (finalized_by_strata ? "; Kokkos cannot restart after strata_finalize()"
                                          : ""),
                 {}};
}

template <class Ordinal>
using HostPlan = strata::BarrierPlan<Kokkos::DefaultHostExecutionSpace, Ordinal>;

// Planning calls from C and Fortran may come from any thread. Kokkos does not
// promise concurrent dispatch on one execution-space instance (Serial's team
// scratch is global; Kokkos 3.4's OpenMP refuses any thread but the one that
// initialised it), so the calls are serialised by this mutex, and a thread
// that Kokkos' OpenMP backend will not run from (another thread under Kokkos
// 3.x, or a thread inside an OpenMP parallel region) plans on Kokkos::Serial.
std::mutex planning_mutex;

template <class Space, class Ordinal>
HostPlan<Ordinal> plan_on(const Space& space, std::uint64_t wave_count,
                          const std::vector<strata::WaveDependency<Ordinal>>& deps) {
  strata::PlannerScratch<Space, Ordinal, Ordinal> scratch;
  const auto plan = strata::plan_barriers(space, wave_count, deps.data(), deps.size(), scratch);
  return plan.host_mirror();
}

/// Whether the calling thread may dispatch on the default execution space.
bool default_space_usable_here() {
#if defined(KOKKOS_ENABLE_OPENMP)
  // (omp_in_parallel: Kokkos::OpenMP::in_parallel is deprecated in Kokkos 4)
  if constexpr (std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::OpenMP>)
    return !omp_in_parallel();
#endif
  return true;
}

/// Plans `deps` on the default execution space and returns the plan's host mirror.
template <class Ordinal>
HostPlan<Ordinal> plan_dependencies(const char* function, std::uint64_t wave_count,
                                    const std::vector<strata::WaveDependency<Ordinal>>& deps) {
  (void)function;  // named in the message when no backend can run here
  const std::lock_guard<std::mutex> lock(planning_mutex);
  if (default_space_usable_here())
    return plan_on(Kokkos::DefaultExecutionSpace(), wave_count, deps);
#if defined(KOKKOS_ENABLE_SERIAL)
  return plan_on(Kokkos::Serial(), wave_count, deps);
#else
  throw invalid_argument(std::string(function) +
                             ": called from a thread Kokkos' OpenMP backend cannot run from "
                             "(inside an OpenMP parallel region, or not the thread that "
                             "initialised Kokkos) and this Kokkos has no Serial backend",
                         "call it outside OpenMP parallel regions, from the thread that "
                         "called strata_initialize(), or build Kokkos with Serial enabled");
#endif
}

/// A dependency list of `count` records; failures are typed.
template <class Ordinal>
std::vector<strata::WaveDependency<Ordinal>> dependency_storage(std::size_t count) {
  // A count beyond the ordinal (the offset type is the same) is CountOverflow
  // before any copy is sized from it.
  strata::checked_count<Ordinal>(count, "dependency count");
  std::vector<strata::WaveDependency<Ordinal>> deps;
  try {
    deps.resize(count);
  } catch (const std::length_error&) {
    throw strata::PlanError::count_overflow("dependency count");
  } catch (const std::bad_alloc& e) {
    throw strata::PlanError::storage_reserve_failed("dependency copy", count, e.what());
  }
  return deps;
}

/// Plans (before, after) pairs on the default execution space.
template <class Ordinal>
HostPlan<Ordinal> plan_on_default_space(const char* function, std::uint64_t wave_count,
                                        const Ordinal* pairs, std::size_t dependency_count) {
  require_initialized(function);
  if (dependency_count > 0 && pairs == nullptr)
    throw invalid_argument(std::string(function) + ": pairs is NULL but dependency_count is " +
                               std::to_string(dependency_count),
                           "pass an array of 2 * dependency_count integers (before, after)");
  // The pairs are copied into WaveDependency records (reading a uint array
  // through a struct type would break C++'s aliasing rules).
  auto deps = dependency_storage<Ordinal>(dependency_count);
  for (std::size_t i = 0; i < dependency_count; ++i) {
    deps[i].before = pairs[2 * i];
    deps[i].after = pairs[2 * i + 1];
  }
  return plan_dependencies(function, wave_count, deps);
}

CError invalid_csr(const char* function, const std::string& what, const char* field,
                   std::uint64_t row, std::uint64_t index, const std::string& fix) {
  CError e{STRATA_ERROR_INVALID_CSR,
           std::string("InvalidCsr: ") + function + ": " + what + ". Fix: " + fix, field, index,
           row};
  return e;
}

/// Checks a CSR (strata_c.h lists the checks, in their order) and plans it.
template <class Ordinal>
HostPlan<Ordinal> plan_csr_on_default_space(const char* function, std::uint64_t wave_count,
                                            const Ordinal* row_map, const Ordinal* entries,
                                            std::size_t entry_count, strata_csr_kind kind) {
  require_initialized(function);
  if (kind != STRATA_CSR_OUT_EDGES && kind != STRATA_CSR_IN_EDGES &&
      kind != STRATA_CSR_LOWER_TRIANGLE && kind != STRATA_CSR_UPPER_TRIANGLE)
    throw invalid_argument(std::string(function) + ": unknown CSR kind " + std::to_string(kind),
                           "pass STRATA_CSR_OUT_EDGES, STRATA_CSR_IN_EDGES, "
                           "STRATA_CSR_LOWER_TRIANGLE or STRATA_CSR_UPPER_TRIANGLE");
  // row_map holds wave_count + 1 offsets: that count must be addressable.
  if (wave_count >= std::numeric_limits<std::size_t>::max())
    throw strata::PlanError::count_overflow("wave count");
  const auto n = static_cast<std::size_t>(wave_count);
  const std::string fix = "row_map holds wave_count + 1 non-decreasing offsets from 0 to "
                          "entry_count, entries holds entry_count wave ids below wave_count";
  if (row_map == nullptr) throw invalid_csr(function, "row_map is NULL", "row_map", 0, 0, fix);
  if (row_map[0] != 0)
    throw invalid_csr(function, "row_map[0] is " + std::to_string(row_map[0]) + ", not 0",
                      "row_map", 0, 0, fix);
  for (std::size_t w = 0; w < n; ++w)
    if (row_map[w + 1] < row_map[w])
      throw invalid_csr(function,
                        "row_map decreases at row " + std::to_string(w) + ": row_map[" +
                            std::to_string(w + 1) + "] = " + std::to_string(row_map[w + 1]) +
                            " < row_map[" + std::to_string(w) + "] = " +
                            std::to_string(row_map[w]),
                        "row_map", w, w + 1, fix);
  if (static_cast<std::uint64_t>(row_map[n]) != entry_count)
    throw invalid_csr(function,
                      "row_map[wave_count] = " + std::to_string(row_map[n]) +
                          " but entry_count is " + std::to_string(entry_count),
                      "row_map", n, n, fix);
  if (entries == nullptr && entry_count > 0)
    throw invalid_csr(function,
                      "entries is NULL but entry_count is " + std::to_string(entry_count),
                      "entries", 0, 0, fix);
  std::size_t count = 0;
  for (std::size_t w = 0; w < n; ++w)
    for (std::size_t k = row_map[w]; k < static_cast<std::size_t>(row_map[w + 1]); ++k) {
      const std::uint64_t v = entries[k];
      if (v >= wave_count)
        throw invalid_csr(function,
                          "entries[" + std::to_string(k) + "] = " + std::to_string(v) +
                              " (row " + std::to_string(w) + ") is not a wave below wave_count = " +
                              std::to_string(wave_count),
                          "entries", w, k, fix);
      count += kind == STRATA_CSR_LOWER_TRIANGLE ? v < w
               : kind == STRATA_CSR_UPPER_TRIANGLE ? v > w
                                                   : 1;
    }
  auto deps = dependency_storage<Ordinal>(count);
  std::size_t at = 0;
  for (std::size_t w = 0; w < n; ++w)
    for (std::size_t k = row_map[w]; k < static_cast<std::size_t>(row_map[w + 1]); ++k) {
      const Ordinal v = entries[k], row = static_cast<Ordinal>(w);
      if (kind == STRATA_CSR_OUT_EDGES)
        deps[at++] = {row, v};
      else if (kind == STRATA_CSR_IN_EDGES || (kind == STRATA_CSR_LOWER_TRIANGLE ? v < w : v > w))
        deps[at++] = {v, row};
    }
  return plan_dependencies(function, wave_count, deps);
}

template <class Ordinal>
void copy_view(const typename HostPlan<Ordinal>::view_type& view, std::vector<Ordinal>& out) {
  out.assign(view.data(), view.data() + view.extent(0));
}

/// A library-owned plan from `make_plan()` (a HostPlan<Ordinal>).
template <class Ordinal, class MakePlan>
strata_status plan_handle(const char* function, strata_plan_t** out, MakePlan&& make_plan) {
  return guarded([&]() -> strata_status {
    if (out == nullptr)
      throw invalid_argument(std::string(function) + ": out is NULL",
                             "pass the address of a strata_plan_t* to receive the plan");
    *out = nullptr;
    const HostPlan<Ordinal> host = make_plan();
    auto plan = std::make_unique<strata_plan>();
    plan->wave_count = host.wave_count();
    if constexpr (std::is_same_v<Ordinal, std::uint32_t>) {
      plan->ordinal_bits = 32;
      copy_view<Ordinal>(host.group_offsets, plan->offsets32);
      copy_view<Ordinal>(host.waves, plan->waves32);
      copy_view<Ordinal>(host.level, plan->levels32);
      if (plan->offsets32.empty()) plan->offsets32.push_back(0);
    } else {
      plan->ordinal_bits = 64;
      copy_view<Ordinal>(host.group_offsets, plan->offsets64);
      copy_view<Ordinal>(host.waves, plan->waves64);
      copy_view<Ordinal>(host.level, plan->levels64);
      if (plan->offsets64.empty()) plan->offsets64.push_back(0);
    }
    *out = plan.release();
    return STRATA_OK;
  });
}

CError buffer_too_small(const char* function, const char* field, std::size_t capacity,
                        std::uint64_t needed, const char* hint) {
  CError e{STRATA_ERROR_BUFFER_TOO_SMALL,
           std::string("BufferTooSmall: ") + function + ": " + field + " holds " +
               std::to_string(capacity) + " elements but the plan needs " +
               std::to_string(needed) + ". Fix: pass an array of at least " +
               std::to_string(needed) + " elements (" + hint + ")",
           field, needed};
  return e;
}

template <class Ordinal>
strata_status plan_into(const char* function, std::uint64_t wave_count, const Ordinal* pairs,
                        std::size_t dependency_count, Ordinal* group_offsets,
                        std::size_t group_offsets_capacity, Ordinal* waves,
                        std::size_t waves_capacity, Ordinal* levels, std::size_t levels_capacity,
                        std::uint64_t* group_count) {
  return guarded([&]() -> strata_status {
    if (group_count == nullptr)
      throw invalid_argument(std::string(function) + ": group_count is NULL",
                             "pass the address of a uint64_t to receive the group count");
    *group_count = 0;
    if (group_offsets == nullptr)
      throw invalid_argument(std::string(function) + ": group_offsets is NULL",
                             "pass an array of wave_count + 1 elements");
    if (waves == nullptr && wave_count > 0)
      throw invalid_argument(std::string(function) + ": waves is NULL",
                             "pass an array of wave_count elements");
    if (waves_capacity < wave_count)
      throw buffer_too_small(function, "waves", waves_capacity, wave_count, "wave_count");
    if (levels != nullptr && levels_capacity < wave_count)
      throw buffer_too_small(function, "levels", levels_capacity, wave_count,
                             "wave_count, or pass levels = NULL");
    const HostPlan<Ordinal> host =
        plan_on_default_space(function, wave_count, pairs, dependency_count);
    const std::uint64_t groups = host.group_count();
    if (group_offsets_capacity < groups + 1) {
      CError e = buffer_too_small(function, "group_offsets", group_offsets_capacity, groups + 1,
                                  "group_count + 1; wave_count + 1 is always enough");
      const strata_status status = record(e.status, e.message, e.field);
      last_error().info.requested = e.requested;
      *group_count = groups;
      return status;
    }
    if (host.group_offsets.extent(0) == 0) {
      group_offsets[0] = 0;
    } else {
      for (std::size_t g = 0; g <= groups; ++g) group_offsets[g] = host.group_offsets(g);
    }
    for (std::size_t w = 0; w < host.wave_count(); ++w) waves[w] = host.waves(w);
    if (levels != nullptr)
      for (std::size_t w = 0; w < host.wave_count(); ++w) levels[w] = host.level(w);
    *group_count = groups;
    return STRATA_OK;
  });
}

template <class T>
const T* plan_array(const strata_plan_t* plan, int bits, const char* name,
                    std::vector<T> strata_plan::*array) noexcept {
  if (plan == nullptr) {
    record(STRATA_ERROR_INVALID_ARGUMENT,
           std::string("InvalidArgument: ") + name +
               ": plan is NULL. Fix: pass a plan returned by strata_plan_u32/_u64");
    return nullptr;
  }
  if (plan->ordinal_bits != bits) {
    record(STRATA_ERROR_INVALID_ARGUMENT,
           std::string("InvalidArgument: ") + name + ": the plan has " +
               std::to_string(plan->ordinal_bits) + "-bit ordinals. Fix: use the _u" +
               std::to_string(plan->ordinal_bits) + " accessor for this plan");
    return nullptr;
  }
  return (plan->*array).data();
}

}  // namespace

extern "C" {

const char* strata_status_name(strata_status status) {
  switch (status) {
    case STRATA_OK: return "Ok";
    case STRATA_ERROR_BUFFER_TOO_SMALL: return "BufferTooSmall";
    case STRATA_ERROR_NOT_INITIALIZED: return "NotInitialized";
    case STRATA_ERROR_INVALID_CSR: return "InvalidCsr";
    case STRATA_ERROR_INTERNAL: return "Internal";
    default: break;
  }
  if (status >= STRATA_ERROR_INVALID_WAVE && status <= STRATA_ERROR_IO_ERROR)
    return strata::error_kind_name(static_cast<strata::ErrorKind>(status));
  return "Unknown";
}

strata_status strata_initialize(void) {
  return guarded([]() -> strata_status {
    const std::lock_guard<std::mutex> lock(lifecycle_mutex);
    if (Kokkos::is_initialized()) return STRATA_OK;
    if (finalized_by_strata)
      throw invalid_argument("strata_initialize: Kokkos was already finalised by "
                             "strata_finalize() and cannot be initialised again",
                             "call strata_finalize() once, at the very end of the program");
    // The strata tool's rules (runtime/kokkos_environment.hpp): thread counts
    // checked (InvalidArgument, not a crash inside Kokkos), OMP_PROC_BIND=false
    // when no binding is chosen (no Kokkos warning), threads per MPI rank.
    int argc = 0;
    strata::runtime::initialize(argc, nullptr);
    initialized_by_strata = true;
    return STRATA_OK;
  });
}

strata_status strata_finalize(void) {
  return guarded([]() -> strata_status {
    const std::lock_guard<std::mutex> lock(lifecycle_mutex);
    if (!initialized_by_strata || !Kokkos::is_initialized()) return STRATA_OK;
    Kokkos::finalize();
    initialized_by_strata = false;
    finalized_by_strata = true;
    return STRATA_OK;
  });
}

int strata_is_initialized(void) {
  try {
    return Kokkos::is_initialized() ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

const char* strata_execution_space_name(void) { return Kokkos::DefaultExecutionSpace::name(); }

const char* strata_version(void) { return STRATA_VERSION_STRING; }

strata_status strata_plan_u32(uint64_t wave_count, const uint32_t* pairs,
                              size_t dependency_count, strata_plan_t** out) {
  return plan_handle<std::uint32_t>("strata_plan_u32", out, [&] {
    return plan_on_default_space("strata_plan_u32", wave_count, pairs, dependency_count);
  });
}

strata_status strata_plan_u64(uint64_t wave_count, const uint64_t* pairs,
                              size_t dependency_count, strata_plan_t** out) {
  static_assert(std::is_same_v<uint64_t, std::uint64_t>, "uint64_t mismatch");
  return plan_handle<std::uint64_t>("strata_plan_u64", out, [&] {
    return plan_on_default_space("strata_plan_u64", wave_count, pairs, dependency_count);
  });
}

strata_status strata_plan_csr_u32(uint64_t wave_count, const uint32_t* row_map,
                                  const uint32_t* entries, size_t entry_count,
                                  strata_csr_kind kind, strata_plan_t** out) {
  return plan_handle<std::uint32_t>("strata_plan_csr_u32", out, [&] {
    return plan_csr_on_default_space("strata_plan_csr_u32", wave_count, row_map, entries,
                                     entry_count, kind);
  });
}

strata_status strata_plan_csr_u64(uint64_t wave_count, const uint64_t* row_map,
                                  const uint64_t* entries, size_t entry_count,
                                  strata_csr_kind kind, strata_plan_t** out) {
  return plan_handle<std::uint64_t>("strata_plan_csr_u64", out, [&] {
    return plan_csr_on_default_space("strata_plan_csr_u64", wave_count, row_map, entries,
                                     entry_count, kind);
  });
}

void strata_plan_destroy(strata_plan_t* plan) { delete plan; }

uint64_t strata_plan_wave_count(const strata_plan_t* plan) {
  return plan == nullptr ? 0 : plan->wave_count;
}

uint64_t strata_plan_group_count(const strata_plan_t* plan) {
  return plan == nullptr ? 0 : plan->group_count();
}

uint64_t strata_plan_global_barriers(const strata_plan_t* plan) {
  const std::uint64_t groups = strata_plan_group_count(plan);
  return groups == 0 ? 0 : groups - 1;
}

int strata_plan_ordinal_bits(const strata_plan_t* plan) {
  return plan == nullptr ? 0 : plan->ordinal_bits;
}

const uint32_t* strata_plan_group_offsets_u32(const strata_plan_t* plan) {
  return plan_array(plan, 32, "strata_plan_group_offsets_u32", &strata_plan::offsets32);
}
const uint32_t* strata_plan_waves_u32(const strata_plan_t* plan) {
  return plan_array(plan, 32, "strata_plan_waves_u32", &strata_plan::waves32);
}
const uint32_t* strata_plan_levels_u32(const strata_plan_t* plan) {
  return plan_array(plan, 32, "strata_plan_levels_u32", &strata_plan::levels32);
}
const uint64_t* strata_plan_group_offsets_u64(const strata_plan_t* plan) {
  return plan_array(plan, 64, "strata_plan_group_offsets_u64", &strata_plan::offsets64);
}
const uint64_t* strata_plan_waves_u64(const strata_plan_t* plan) {
  return plan_array(plan, 64, "strata_plan_waves_u64", &strata_plan::waves64);
}
const uint64_t* strata_plan_levels_u64(const strata_plan_t* plan) {
  return plan_array(plan, 64, "strata_plan_levels_u64", &strata_plan::levels64);
}

strata_status strata_plan_into_u32(uint64_t wave_count, const uint32_t* pairs,
                                   size_t dependency_count, uint32_t* group_offsets,
                                   size_t group_offsets_capacity, uint32_t* waves,
                                   size_t waves_capacity, uint32_t* levels,
                                   size_t levels_capacity, uint64_t* group_count) {
  return plan_into<std::uint32_t>("strata_plan_into_u32", wave_count, pairs, dependency_count,
                                  group_offsets, group_offsets_capacity, waves, waves_capacity,
                                  levels, levels_capacity, group_count);
}

strata_status strata_plan_into_u64(uint64_t wave_count, const uint64_t* pairs,
                                   size_t dependency_count, uint64_t* group_offsets,
                                   size_t group_offsets_capacity, uint64_t* waves,
                                   size_t waves_capacity, uint64_t* levels,
                                   size_t levels_capacity, uint64_t* group_count) {
  return plan_into<std::uint64_t>("strata_plan_into_u64", wave_count, pairs, dependency_count,
                                  group_offsets, group_offsets_capacity, waves, waves_capacity,
                                  levels, levels_capacity, group_count);
}

strata_status strata_last_error_kind(void) { return last_error().status; }

const char* strata_last_error_message(void) { return last_error().message.c_str(); }

void strata_last_error_info(strata_error_info* info) {
  if (info == nullptr) return;
  const LastError& e = last_error();
  *info = e.info;
  info->kind = e.status;
  info->field = e.field.c_str();
}

}  // extern "C"
