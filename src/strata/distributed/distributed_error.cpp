#include <strata/distributed/distributed_error.hpp>

#include <strata/core/storage.hpp>

namespace strata::distributed {

namespace {
void put(std::vector<char>& out, std::uint64_t v) {
  const std::size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}
void put(std::vector<char>& out, const std::string& s) {
  put(out, std::uint64_t(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}
struct Reader {
  const std::vector<char>& in;
  std::size_t pos = 0;
  std::uint64_t u64() {
    std::uint64_t v = 0;
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    std::string s(in.data() + pos, static_cast<std::size_t>(n));
    pos += static_cast<std::size_t>(n);
    return s;
  }
};
}  // namespace

std::vector<char> serialize_error(const PlanError& error) {
  const PlanError::Fields f = error.fields();
  std::vector<char> out;
  put(out, std::uint64_t(static_cast<int>(f.kind)));
  put(out, f.text);
  put(out, f.field);
  put(out, f.message);
  for (std::uint64_t v : {f.wave_count, f.before, f.after, f.wave, f.unscheduled_waves,
                          f.requested, f.line, f.slot, f.needed_bytes, f.budget_bytes,
                          f.needed_ranks, f.available_ranks, f.available, std::uint64_t(f.state_word)})
    put(out, v);
  return out;
}

PlanError deserialize_error(const std::vector<char>& bytes) {
  Reader r{bytes};
  PlanError::Fields f;
  f.kind = static_cast<ErrorKind>(static_cast<int>(r.u64()));
  f.text = r.str();
  f.field = r.str();
  f.message = r.str();
  f.wave_count = r.u64();
  f.before = r.u64();
  f.after = r.u64();
  f.wave = r.u64();
  f.unscheduled_waves = r.u64();
  f.requested = r.u64();
  f.line = r.u64();
  f.slot = r.u64();
  f.needed_bytes = r.u64();
  f.budget_bytes = r.u64();
  f.needed_ranks = r.u64();
  f.available_ranks = r.u64();
  f.available = r.u64();
  f.state_word = static_cast<std::uint32_t>(r.u64());
  return PlanError::from_fields(f);
}

PlanError with_fix(const PlanError& error, const std::string& fix) {
  PlanError::Fields f = error.fields();
  const auto at = f.text.rfind(" Fix: ");
  f.text = (at == std::string::npos ? f.text : f.text.substr(0, at)) + " Fix: " + fix + ".";
  return PlanError::from_fields(f);
}

PlanError in_distributed_terms(const PlanError& error) {
  if (error.kind() == ErrorKind::StorageReserveFailed) return with_fix(error, rank_memory_fix);
  return error;
}

PlanError allocation_failed(const char* what) {
  PlanError::Fields f;
  f.kind = ErrorKind::StorageReserveFailed;
  f.field = "distributed planning buffers";
  f.message = strata::one_line_message(what);
  f.text = std::string(error_kind_name(f.kind)) + ": a rank could not allocate " + f.field +
           ": " + f.message + ". Fix: " + rank_memory_fix + ".";
  return PlanError::from_fields(f);
}

void agree_on_errors(const Communicator& comm, const std::optional<OrderedError>& local) {
  const int any = comm.max(local ? 1 : 0);
  if (any == 0) return;
  constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t key = comm.min(local ? local->key : none);
  const int winner = comm.min(local && local->key == key ? comm.rank() : comm.size());
  std::vector<char> bytes;
  if (comm.rank() == winner) bytes = serialize_error(local->error);
  std::uint64_t size = bytes.size();
  comm.broadcast_bytes(&size, sizeof size, winner);
  bytes.resize(static_cast<std::size_t>(size));
  comm.broadcast_bytes(bytes.data(), bytes.size(), winner);
  throw deserialize_error(bytes);
}

}  // namespace strata::distributed
