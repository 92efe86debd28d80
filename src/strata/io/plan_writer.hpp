#pragma once
// Writers for a BarrierPlan (any backend: the plan is mirrored to the host).
//
//   text: "groups G barriers B", then one line per group, its waves ascending,
//         separated by single spaces
//   json: {"wave_count":V,"group_count":G,"global_barriers":B,
//          "groups":[[...],[...]],"levels":[...]}
//         levels[w] is the group (Kahn layer) of wave w; the keys before it
//         are unchanged since the first release, new keys are only appended
//   dot:  see plan_dot.hpp (it needs the dependencies as well)

#include <charconv>
#include <cstddef>
#include <exception>
#include <ostream>
#include <string>

#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>

namespace strata::io {

namespace detail {
/// Appends to a fixed buffer and writes it in large pieces (plans can hold
/// millions of waves). The buffer is allocated once, before anything is
/// written, and never grows: an allocation failure (the host mirror, the
/// buffer) happens before the first byte reaches the stream, so a writer that
/// throws leaves the stream untouched instead of holding half a plan. Nothing
/// is written on destruction: only finish() writes the tail.
class BufferedWriter {
 public:
  static constexpr std::size_t flush_at = std::size_t(1) << 20;
  explicit BufferedWriter(std::ostream& out) : out_(out) {
    try {
      buffer_.reserve(flush_at + 64);
    } catch (const std::exception& e) {  // std::bad_alloc
      throw PlanError::storage_reserve_failed("plan output buffer bytes", flush_at + 64, e.what());
    }
  }
  void put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= flush_at) flush();
  }
  /// Short literals only (under 64 bytes): the buffer must not grow.
  void put(const char* s) {
    buffer_ += s;
    if (buffer_.size() >= flush_at) flush();
  }
  void number(unsigned long long v) {
    char digits[24];
    buffer_.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
    if (buffer_.size() >= flush_at) flush();
  }
  void finish() { flush(); }

 private:
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }
  std::ostream& out_;
  std::string buffer_;
};


/// The plan on the host (a copy for a device plan); failure is StorageReserveFailed.
template <class Plan>
auto plan_on_host(const Plan& plan) {
  try {
    return plan.host_mirror();
  } catch (const PlanError&) {
    throw;
  } catch (const std::exception& e) {
    throw PlanError::storage_reserve_failed("plan host copy waves", plan.wave_count(),
                                            strata::one_line_message(e.what()));
  }
}
}  // namespace detail

template <class Plan>
void write_plan_text(std::ostream& out, const Plan& plan) {
  const auto host = detail::plan_on_host(plan);
  detail::BufferedWriter w(out);
  w.put("groups ");
  w.number(host.group_count());
  w.put(" barriers ");
  w.number(host.global_barriers());
  w.put('\n');
  for (std::size_t g = 0; g < host.group_count(); ++g) {
    for (std::size_t i = host.group_offsets(g); i < host.group_offsets(g + 1); ++i) {
      if (i != host.group_offsets(g)) w.put(' ');
      w.number(host.waves(i));
    }
    w.put('\n');
  }
  w.finish();
}

template <class Plan>
void write_plan_json(std::ostream& out, const Plan& plan) {
  const auto host = detail::plan_on_host(plan);
  detail::BufferedWriter w(out);
  w.put("{\"wave_count\":");
  w.number(host.wave_count());
  w.put(",\"group_count\":");
  w.number(host.group_count());
  w.put(",\"global_barriers\":");
  w.number(host.global_barriers());
  w.put(",\"groups\":[");
  for (std::size_t g = 0; g < host.group_count(); ++g) {
    if (g != 0) w.put(',');
    w.put('[');
    for (std::size_t i = host.group_offsets(g); i < host.group_offsets(g + 1); ++i) {
      if (i != host.group_offsets(g)) w.put(',');
      w.number(host.waves(i));
    }
    w.put(']');
  }
  w.put("],\"levels\":[");
  for (std::size_t v = 0; v < host.wave_count(); ++v) {
    if (v != 0) w.put(',');
    w.number(host.level(v));
  }
  w.put("]}\n");
  w.finish();
}

/// The plan as `strata plan` prints it: JSON or text, then a flush. An
/// exception (out of memory for the host mirror or the buffer) leaves `out`
/// untouched; a failed write leaves `out` in a failed state (badbit), which
/// the caller checks, as with any ostream.
template <class Plan>
void write_plan(std::ostream& out, const Plan& plan, bool json) {
  if (json)
    write_plan_json(out, plan);
  else
    write_plan_text(out, plan);
  out.flush();
}

}  // namespace strata::io
