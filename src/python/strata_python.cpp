// strata._strata: the Python module's native part, over Strata's C interface
// (<strata/c/strata_c.h>): exception-free, it initialises Kokkos once, plans
// on Kokkos' default execution space (Serial when called from a thread
// Kokkos' OpenMP backend cannot run from) and keeps each error's kind and
// fields. The typed exceptions, the argument checks and the Plan class are
// in strata/__init__.py.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <strata/c/strata_c.h>

namespace py = pybind11;

namespace {

using Int = std::int64_t;  // NumPy's default integer: no uint64 + int64 -> float64 surprises

/// A copy of `count` ids as an int64 NumPy array.
py::array_t<Int> int64_array(const std::uint64_t* data, std::size_t count) {
  py::array_t<Int> out(static_cast<py::ssize_t>(count));
  Int* dst = out.mutable_data();
  for (std::size_t i = 0; i < count; ++i) dst[i] = static_cast<Int>(data[i]);
  return out;
}

/// The last error of this thread: (kind name, message, fields).
py::tuple last_error() {
  strata_error_info info{};
  strata_last_error_info(&info);
  py::dict fields;
  switch (info.kind) {
    case STRATA_ERROR_INVALID_WAVE:
      fields["wave_count"] = info.wave_count;
      fields["before"] = info.before;
      fields["after"] = info.after;
      break;
    case STRATA_ERROR_SELF_DEPENDENCY: fields["wave"] = info.wave; break;
    case STRATA_ERROR_CYCLE: fields["unscheduled_waves"] = info.unscheduled_waves; break;
    case STRATA_ERROR_COUNT_OVERFLOW: fields["field"] = info.field ? info.field : ""; break;
    case STRATA_ERROR_STORAGE_RESERVE_FAILED:
      fields["field"] = info.field ? info.field : "";
      fields["requested"] = info.requested;
      break;
    default: break;
  }
  return py::make_tuple(strata_status_name(info.kind), std::string(strata_last_error_message()),
                        fields);
}

/// Starts Kokkos unless it runs already, by strata_initialize(): the strata
/// tool's rules (checked thread counts, OMP_PROC_BIND=false when no binding
/// is set) are applied there.
py::object initialize() {
  if (strata_initialize() != STRATA_OK) return last_error();
  return py::none();
}

/// Plans; returns (0, (group_offsets, waves, level)) or (status, (kind, message, fields)).
py::tuple plan(std::uint64_t wave_count,
               py::array_t<std::uint64_t, py::array::c_style> pairs) {
  if (pairs.ndim() != 2 || pairs.shape(1) != 2)
    throw py::value_error("pairs must have shape (E, 2)");  // checked by __init__.py first
  const auto count = static_cast<std::size_t>(pairs.shape(0));
  strata_plan_t* raw = nullptr;
  strata_status status = STRATA_OK;
  {
    py::gil_scoped_release release;
    status = strata_plan_u64(wave_count, count == 0 ? nullptr : pairs.data(), count, &raw);
  }
  if (status != STRATA_OK) return py::make_tuple(status, last_error());
  const std::unique_ptr<strata_plan_t, void (*)(strata_plan_t*)> handle(raw, strata_plan_destroy);
  const std::uint64_t groups = strata_plan_group_count(raw);
  const std::uint64_t waves = strata_plan_wave_count(raw);
  return py::make_tuple(
      0, py::make_tuple(int64_array(strata_plan_group_offsets_u64(raw), groups + 1),
                        int64_array(strata_plan_waves_u64(raw), waves),
                        int64_array(strata_plan_levels_u64(raw), waves)));
}

}  // namespace

PYBIND11_MODULE(_strata, m) {
  m.doc() = "Native part of the strata Python module (see strata.plan).";
  m.def("initialize", &initialize,
        "Start Kokkos unless it runs already; None, or (kind, message, fields) on failure.");
  m.def("finalize", [] { (void)strata_finalize(); }, "Finalize Kokkos if initialize() started it.");
  m.def("plan", &plan, py::arg("wave_count"), py::arg("pairs"),
        "Plan; (0, (group_offsets, waves, level)) or (status, (kind, message, fields)).");
  m.def("execution_space", [] { return std::string(strata_execution_space_name()); },
        "The Kokkos execution space plans run on.");
  m.def("version", [] { return std::string(strata_version()); }, "The library's version.");
}
