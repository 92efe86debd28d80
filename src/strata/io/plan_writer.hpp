#pragma once
// Writers for a BarrierPlan (any backend: the plan is mirrored to the host).
//
//   text: "groups G barriers B", then one line per group, its waves ascending,
//         separated by single spaces
//   json: {"wave_count":V,"group_count":G,"global_barriers":B,
//          "groups":[[...],[...]]}

#include <charconv>
#include <cstddef>
#include <ostream>
#include <string>

namespace strata::io {

namespace detail {
// Appends to a buffer and flushes it in large writes (plans can hold millions of waves).
class BufferedWriter {
 public:
  explicit BufferedWriter(std::ostream& out) : out_(out) {}
  ~BufferedWriter() { flush(); }
  void put(char c) { buffer_.push_back(c); }
  void put(const std::string& s) { buffer_ += s; }
  void number(unsigned long long v) {
    char digits[24];
    buffer_.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
    if (buffer_.size() > (1u << 20)) flush();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

 private:
  std::ostream& out_;
  std::string buffer_;
};
}  // namespace detail

template <class Plan>
void write_plan_text(std::ostream& out, const Plan& plan) {
  const auto host = plan.host_mirror();
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
}

template <class Plan>
void write_plan_json(std::ostream& out, const Plan& plan) {
  const auto host = plan.host_mirror();
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
  w.put("]}\n");
}

/// The plan as `strata plan` prints it: JSON or text, then a flush.
template <class Plan>
void write_plan(std::ostream& out, const Plan& plan, bool json) {
  if (json)
    write_plan_json(out, plan);
  else
    write_plan_text(out, plan);
  out.flush();
}

}  // namespace strata::io
