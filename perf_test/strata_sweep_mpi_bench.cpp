// strata_sweep_mpi_bench: the KBA sweep of examples/upwind_sweep3d_mpi across
// MPI ranks, one run per rank count (docs/distributed_execution.md):
//
//   mpiexec -n P strata_sweep_mpi_bench [--nb NB] [--weak C] [--bs BS] [--repeats R]
//                                       [--pingpong K] [--mode MODE] [--json FILE]
//                                       [--readiness segment|wave] [--levels-per-message L]
//                                       [--wave-batch W]
//
//   strong scaling (default): NB^3 blocks in all; weak (--weak C): C x C block
//   columns per rank, NB blocks along z. BS^3 cells per block, 8 octants.
//
// Measured in the same run, each the median over R repeats of the slowest
// rank's time, and each checked bitwise against the serial sweep once:
//   strata       distributed::Executor (one segment per run of levels, faces
//                as aggregated non-blocking messages)
//   bulk_sync    per global layer: the rank's blocks of that layer in one
//                launch, then every face of the layer in one MPI_Alltoallv
//   host_loop    Kripke's shape: poll for arrived faces (MPI_Testsome), run
//                one ready block, send its faces (one MPI_Isend each)
//   one_rank     the anchor: the same problem (strong) or one rank's share
//                (weak) on rank 0 alone through distributed::Executor
// Efficiency = one_rank / (P x strata) (strong) or one_rank / strata (weak);
// the KBA model's ideal per-octant pipelined efficiency is B / (Px + Py - 2 + B)
// with B the blocks per column (NB).
// --pingpong K (2+ ranks): a chain of 2K empty waves alternating between
// ranks 0 and 1, 8-byte messages: Strata's time per cross-rank dependency
// against a plain MPI_Send/MPI_Recv ping-pong of the same hops.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <strata/distributed/distributed_executor.hpp>
#include <strata/distributed/local_graph.hpp>
#include <strata/distributed/plan_barriers_distributed.hpp>
#include <strata/strata.hpp>

#include "kba_sweep.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using kba::Ordinal;
using kba::Space;
using Comm = strata::distributed::Communicator;
using OrdView = Kokkos::View<Ordinal*, kba::Memory>;
using Bytes = Kokkos::View<char*, kba::Memory>;
/// The baselines' MPI buffers: the device buffers themselves where the host
/// can read them, else host copies (Strata's executor stages the same way: an
/// MPI need not be GPU-aware).
using HostBytes = Bytes::HostMirror;

/// Bytes [first, end) x `bytes` of a buffer.
template <class View>
auto slots(const View& v, std::size_t first, std::size_t end, std::size_t bytes) {
  return Kokkos::subview(v, std::make_pair(first * bytes, end * bytes));
}

struct Args {
  int nb = 8, weak = 0, bs = 4, repeats = 5, pingpong = 2000;
  strata::ExecuteMode mode = strata::ExecuteMode::Automatic;
  strata::distributed::Readiness readiness = strata::distributed::ExchangeOptions{}.readiness;
  int levels_per_message = int(strata::distributed::ExchangeOptions{}.output_levels_per_message);
  int wave_batch = 0;
  std::string json;
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The median over `repeats` of the slowest rank's time of `body`.
double timed(const Comm& comm, int repeats, const std::function<void()>& body) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    const auto start = Clock::now();
    body();
    t.push_back(comm.max_double(seconds_since(start)));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// A grid's problem on `comm`: plan, local graph, data.
struct Problem {
  kba::Grid grid;
  strata::distributed::DistributedPlan<Space, Ordinal> plan;
  strata::DependencyGraph<Space, Ordinal, std::uint32_t> graph;
  kba::RankData data;
  std::vector<strata::WaveDependency<Ordinal>> deps;  ///< into this rank's waves
};

Problem make_problem(const Comm& comm, const kba::Grid& g) {
  Problem p;
  p.grid = g;
  p.deps = kba::dependencies_into(g, comm.rank());
  strata::distributed::DistributedOptions options;
  options.wave_begin = g.wave_begin();
  p.plan = strata::distributed::plan_barriers_distributed(Space(), comm, g.waves(), p.deps.data(),
                                                          p.deps.size(), options);
  p.graph = strata::distributed::local_graph(Space(), comm, p.plan, p.deps.data(), p.deps.size());
  p.data = kba::RankData(g, comm.rank());
  return p;
}

/// Whether every rank's cells equal the serial sweep's, bit for bit.
bool matches_serial(const Comm& comm, const Problem& p) {
  const auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kba::serial_sweep(Space(), p.grid));
  const auto psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.data.psi);
  const int i0 = p.data.mine.bx0 * p.grid.bs, j0 = p.data.mine.by0 * p.grid.bs;
  std::uint64_t bad = 0;
  for (int o = 0; o < 8; ++o)
    for (std::size_t k = 0; k < psi.extent(1); ++k)
      for (std::size_t j = 0; j < psi.extent(2); ++j)
        for (std::size_t i = 0; i < psi.extent(3); ++i) {
          const double a = psi(o, k, j, i), b = ref(o, k, j0 + int(j), i0 + int(i));
          bad += std::memcmp(&a, &b, sizeof a) != 0;
        }
  return comm.sum(bad) == 0;
}

void clear(const Problem& p) {
  Kokkos::deep_copy(p.data.psi, 0.0);
  Kokkos::deep_copy(p.data.ghost_x, 0.0);
  Kokkos::deep_copy(p.data.ghost_y, 0.0);
}

template <class T>
Kokkos::View<T*, kba::Memory> to_device(const std::vector<T>& v) {
  Kokkos::View<T*, kba::Memory> d("bench::list", v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(v.data(), v.size()));
  return d;
}

/// The rank's waves and cross-rank edges, on the host.
struct HostGraph {
  std::uint64_t lo = 0, n = 0;
  std::vector<Ordinal> level;
  std::vector<std::vector<Ordinal>> out;  ///< global targets of each owned wave
  std::vector<std::uint64_t> remote_in;   ///< remote predecessors of each owned wave
  std::vector<std::uint64_t> in_degree;
};

HostGraph host_graph(const Comm& comm, const Problem& p) {
  HostGraph h;
  h.lo = p.plan.first_wave;
  h.n = p.plan.shard.wave_count_of(comm.rank());
  const auto level = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.plan.level);
  const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.graph.entries);
  h.level.assign(level.data(), level.data() + h.n);
  h.out.resize(h.n);
  for (std::uint64_t w = 0; w < h.n; ++w)
    for (auto e = rows(w); e < rows(w + 1); ++e) h.out[w].push_back(entries(e));
  h.remote_in.assign(h.n, 0);
  h.in_degree.assign(h.n, 0);
  for (const auto& d : p.deps) {
    ++h.in_degree[d.after - h.lo];
    if (d.before - h.lo >= h.n) ++h.remote_in[d.after - h.lo];
  }
  return h;
}

/// Cross-rank edges this rank sends (by destination) and receives (by source),
/// each list sorted by (before, after): both ends agree on the order.
struct CrossEdges {
  std::vector<std::vector<std::pair<Ordinal, Ordinal>>> to, from;
};

CrossEdges cross_edges(const Comm& comm, const Problem& p, const HostGraph& h) {
  CrossEdges c;
  const auto begin = p.grid.wave_begin();
  c.to.resize(std::size_t(comm.size()));
  c.from.resize(std::size_t(comm.size()));
  for (std::uint64_t w = 0; w < h.n; ++w)
    for (Ordinal t : h.out[w])
      if (t - h.lo >= h.n)
        c.to[std::size_t(std::upper_bound(begin.begin(), begin.end(), t) - begin.begin() - 1)]
            .push_back({Ordinal(h.lo + w), t});
  for (const auto& d : p.deps)
    if (d.before - h.lo >= h.n)
      c.from[std::size_t(std::upper_bound(begin.begin(), begin.end(), d.before) - begin.begin() - 1)]
          .push_back({d.before, d.after});
  for (auto& v : c.to) std::sort(v.begin(), v.end());
  for (auto& v : c.from) std::sort(v.begin(), v.end());
  return c;
}

/// Runs `count` blocks listed in `waves` from `first` as one team launch.
void run_blocks(const kba::RankData& d, const OrdView& waves, std::size_t first, std::size_t count) {
  if (count == 0) return;
  const kba::SweepWave wave{d};
  Kokkos::parallel_for(
      "bench::blocks", Kokkos::TeamPolicy<Space>(Space(), int(count), Kokkos::AUTO),
      KOKKOS_LAMBDA(const kba::team_member& team) { (void)wave(team, waves(first + team.league_rank())); });
}

void pack(const kba::RankData& d, const OrdView& before, const OrdView& after, std::size_t first,
          std::size_t count, const Bytes& buffer, std::size_t bytes) {
  if (count == 0) return;
  const kba::FaceMessages m{d};
  Kokkos::parallel_for(
      "bench::pack", Kokkos::RangePolicy<Space>(Space(), first, first + count),
      KOKKOS_LAMBDA(const std::size_t i) { m.pack(before(i), after(i), buffer.data() + i * bytes); });
}

void unpack(const kba::RankData& d, const OrdView& before, const OrdView& after, std::size_t first,
            std::size_t count, const Bytes& buffer, std::size_t bytes) {
  if (count == 0) return;
  const kba::FaceMessages m{d};
  Kokkos::parallel_for(
      "bench::unpack", Kokkos::RangePolicy<Space>(Space(), first, first + count),
      KOKKOS_LAMBDA(const std::size_t i) { m.unpack(before(i), after(i), buffer.data() + i * bytes); });
}

/// The bulk-synchronous baseline (see the file comment).
struct BulkSync {
  std::size_t bytes = 0, layers = 0;
  OrdView waves;
  std::vector<std::size_t> layer_first;  ///< layers + 1
  // per layer: send slots (grouped by destination) and receive slots (by source)
  OrdView send_before, send_after, recv_before, recv_after;
  std::vector<std::size_t> send_first, recv_first;                  ///< layers + 1
  std::vector<std::vector<int>> send_counts, recv_counts;           ///< bytes, per layer and rank
  Bytes send, recv;
  HostBytes send_host, recv_host;

  BulkSync(const Comm& comm, const Problem& p, const HostGraph& h, const CrossEdges& c) {
    bytes = sizeof(double) * std::size_t(p.grid.bs) * std::size_t(p.grid.bs);
    layers = p.plan.group_count();
    std::vector<Ordinal> order(h.n);
    for (std::uint64_t w = 0; w < h.n; ++w) order[w] = Ordinal(h.lo + w);
    std::stable_sort(order.begin(), order.end(),
                     [&](Ordinal a, Ordinal b) { return h.level[a - h.lo] < h.level[b - h.lo]; });
    layer_first.assign(layers + 1, 0);
    for (std::uint64_t w = 0; w < h.n; ++w) ++layer_first[h.level[w] + 1];
    for (std::size_t l = 0; l < layers; ++l) layer_first[l + 1] += layer_first[l];
    waves = to_device(order);
    const auto level_of = [&](Ordinal w) {  // global level of any wave: owned here, or sent with it
      return h.level[w - h.lo];
    };
    // The level of a received edge's `before` comes with it.
    std::vector<std::uint64_t> out_records;
    std::vector<int> out_counts(std::size_t(comm.size()), 0), in_counts;
    for (int r = 0; r < comm.size(); ++r)
      for (const auto& e : c.to[std::size_t(r)]) {
        out_records.insert(out_records.end(), {e.first, e.second, level_of(e.first)});
        ++out_counts[std::size_t(r)];
      }
    in_counts = comm.exchange_counts(out_counts);
    std::size_t incoming = 0;
    for (int q : in_counts) incoming += std::size_t(q);
    std::vector<std::uint64_t> in_records(3 * incoming);
    const strata::distributed::ContiguousType<std::uint64_t> record(3);
    comm.all_to_all(out_records.data(), out_counts, in_records.data(), in_counts, record.get());
    struct Slot {
      std::uint64_t layer;
      int rank;
      Ordinal before, after;
    };
    std::vector<Slot> s, r;
    for (int q = 0; q < comm.size(); ++q)
      for (const auto& e : c.to[std::size_t(q)]) s.push_back({level_of(e.first), q, e.first, e.second});
    for (std::size_t i = 0, q = 0, left = 0; i < in_records.size(); i += 3) {
      while (left == 0) left = std::size_t(in_counts[q++]);
      r.push_back({in_records[i + 2], int(q - 1), Ordinal(in_records[i]), Ordinal(in_records[i + 1])});
      --left;
    }
    const auto by = [](const Slot& a, const Slot& b) {
      return std::tie(a.layer, a.rank, a.before, a.after) < std::tie(b.layer, b.rank, b.before, b.after);
    };
    std::sort(s.begin(), s.end(), by);
    std::sort(r.begin(), r.end(), by);
    const auto lay_out = [&](const std::vector<Slot>& v, OrdView& before, OrdView& after,
                             std::vector<std::size_t>& first, std::vector<std::vector<int>>& counts) {
      std::vector<Ordinal> b, a;
      first.assign(layers + 1, 0);
      counts.assign(layers, std::vector<int>(std::size_t(comm.size()), 0));
      for (const auto& x : v) {
        b.push_back(x.before);
        a.push_back(x.after);
        ++first[x.layer + 1];
        counts[x.layer][std::size_t(x.rank)] += int(bytes);
      }
      for (std::size_t l = 0; l < layers; ++l) first[l + 1] += first[l];
      before = to_device(b);
      after = to_device(a);
    };
    lay_out(s, send_before, send_after, send_first, send_counts);
    lay_out(r, recv_before, recv_after, recv_first, recv_counts);
    send = Bytes("bench::bsp_send", s.size() * bytes);
    recv = Bytes("bench::bsp_recv", r.size() * bytes);
    send_host = Kokkos::create_mirror_view(send);
    recv_host = Kokkos::create_mirror_view(recv);
  }

  void run(const Comm& comm, const kba::RankData& d) const {
    const auto displs = [](const std::vector<int>& counts) {
      std::vector<int> out(counts.size(), 0);
      for (std::size_t i = 1; i < counts.size(); ++i) out[i] = out[i - 1] + counts[i - 1];
      return out;
    };
    for (std::size_t l = 0; l < layers; ++l) {
      run_blocks(d, waves, layer_first[l], layer_first[l + 1] - layer_first[l]);
      pack(d, send_before, send_after, send_first[l], send_first[l + 1] - send_first[l], send, bytes);
      Space().fence();
      const auto sd = displs(send_counts[l]), rd = displs(recv_counts[l]);
      // deep_copy of a view onto itself (host memory) copies nothing
      Kokkos::deep_copy(slots(send_host, send_first[l], send_first[l + 1], bytes),
                        slots(send, send_first[l], send_first[l + 1], bytes));
      MPI_Alltoallv(send_host.data() + send_first[l] * bytes, send_counts[l].data(), sd.data(), MPI_BYTE,
                    recv_host.data() + recv_first[l] * bytes, recv_counts[l].data(), rd.data(), MPI_BYTE,
                    comm.comm());
      Kokkos::deep_copy(slots(recv, recv_first[l], recv_first[l + 1], bytes),
                        slots(recv_host, recv_first[l], recv_first[l + 1], bytes));
      unpack(d, recv_before, recv_after, recv_first[l], recv_first[l + 1] - recv_first[l], recv, bytes);
    }
    Space().fence();
  }
};

/// The Kripke-shaped host loop (see the file comment).
struct HostLoop {
  std::size_t bytes = 0;
  const HostGraph* h = nullptr;
  OrdView one_wave;  // the block being run
  OrdView in_before, in_after, out_before, out_after;
  std::vector<std::vector<std::size_t>> out_slots;  ///< remote out-slots of each owned wave
  std::vector<int> out_dest, out_tag, in_source, in_tag;
  Bytes send, recv;
  HostBytes send_host, recv_host;

  HostLoop(const Comm& comm, const Problem& p, const HostGraph& hg, const CrossEdges& c) : h(&hg) {
    bytes = sizeof(double) * std::size_t(p.grid.bs) * std::size_t(p.grid.bs);
    std::vector<Ordinal> ib, ia, ob, oa;
    out_slots.resize(hg.n);
    for (int r = 0; r < comm.size(); ++r) {
      int tag = 0;
      for (const auto& e : c.from[std::size_t(r)]) {
        ib.push_back(e.first);
        ia.push_back(e.second);
        in_source.push_back(r);
        in_tag.push_back(tag++);
      }
      tag = 0;
      for (const auto& e : c.to[std::size_t(r)]) {
        out_slots[e.first - hg.lo].push_back(ob.size());
        ob.push_back(e.first);
        oa.push_back(e.second);
        out_dest.push_back(r);
        out_tag.push_back(tag++);
      }
    }
    in_before = to_device(ib);
    in_after = to_device(ia);
    out_before = to_device(ob);
    out_after = to_device(oa);
    send = Bytes("bench::loop_send", ob.size() * bytes);
    recv = Bytes("bench::loop_recv", ib.size() * bytes);
    send_host = Kokkos::create_mirror_view(send);
    recv_host = Kokkos::create_mirror_view(recv);
    one_wave = OrdView("bench::one_wave", 1);
  }

  void run(const Comm& comm, const kba::RankData& d) const {
    const HostGraph& g = *h;
    std::vector<MPI_Request> recvs(in_source.size()), sends;
    for (std::size_t i = 0; i < recvs.size(); ++i)
      MPI_Irecv(recv_host.data() + i * bytes, int(bytes), MPI_BYTE, in_source[i], in_tag[i], comm.comm(),
                &recvs[i]);
    std::vector<std::uint64_t> remaining = g.in_degree;
    std::deque<std::uint64_t> ready;
    for (std::uint64_t w = 0; w < g.n; ++w)
      if (remaining[w] == 0) ready.push_back(w);
    const auto host_in_after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in_after);
    auto wave_host = Kokkos::create_mirror_view(one_wave);
    std::vector<int> done(recvs.size());
    std::uint64_t finished = 0;
    while (finished < g.n) {
      int count = 0;
      if (!recvs.empty()) {
        MPI_Testsome(int(recvs.size()), recvs.data(), &count, done.data(), MPI_STATUSES_IGNORE);
        if (count == MPI_UNDEFINED) count = 0;
      }
      for (int k = 0; k < count; ++k) {
        const std::size_t i = std::size_t(done[std::size_t(k)]);
        Kokkos::deep_copy(slots(recv, i, i + 1, bytes), slots(recv_host, i, i + 1, bytes));
        unpack(d, in_before, in_after, i, 1, recv, bytes);
        if (--remaining[host_in_after(i) - g.lo] == 0) ready.push_back(host_in_after(i) - g.lo);
      }
      if (ready.empty()) continue;
      const std::uint64_t w = ready.front();
      ready.pop_front();
      wave_host(0) = Ordinal(g.lo + w);
      Kokkos::deep_copy(one_wave, wave_host);
      run_blocks(d, one_wave, 0, 1);
      for (std::size_t slot : out_slots[w]) pack(d, out_before, out_after, slot, 1, send, bytes);
      Space().fence();
      for (std::size_t slot : out_slots[w]) {
        Kokkos::deep_copy(slots(send_host, slot, slot + 1, bytes), slots(send, slot, slot + 1, bytes));
        sends.emplace_back();
        MPI_Isend(send_host.data() + slot * bytes, int(bytes), MPI_BYTE, out_dest[slot], out_tag[slot],
                  comm.comm(), &sends.back());
      }
      for (Ordinal t : g.out[w])
        if (t - g.lo < g.n && --remaining[t - g.lo] == 0) ready.push_back(t - g.lo);
      ++finished;
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    Space().fence();
  }
};

/// The distributed executor's run of a problem, to completion.
double run_strata(strata::distributed::Executor<Space, Ordinal>& executor, const Problem& p,
                  const strata::RunOptions& options, strata::distributed::DistributedRunReport* last = nullptr) {
  executor.reset();
  strata::distributed::DistributedRunReport r;
  do r = executor.run(kba::SweepWave{p.data}, kba::FaceMessages{p.data}, options);
  while (!r.complete);
  Space().fence();
  if (last) *last = r;
  return r.elapsed_seconds;
}

/// 8 bytes per message: the hook of the ping-pong chain.
struct Word {
  Kokkos::View<std::uint64_t*, kba::Memory> value;
  std::uint64_t lo = 0;
  KOKKOS_FUNCTION void pack(Ordinal before, Ordinal, char* slot) const {
    const std::uint64_t v = value(before - lo);
    for (int b = 0; b < 8; ++b) slot[b] = char((v >> (8 * b)) & 0xff);
  }
  KOKKOS_FUNCTION void unpack(Ordinal, Ordinal after, const char* slot) const {
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= std::uint64_t(std::uint8_t(slot[b])) << (8 * b);
    value(after - lo) = v;
  }
};
struct Step {
  Kokkos::View<std::uint64_t*, kba::Memory> value;
  std::uint64_t lo = 0;
  KOKKOS_FUNCTION strata::TaskState operator()(const Ordinal w) const {
    value(w - lo) += 1;
    return strata::TaskState::Completed;
  }
};

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const Comm comm(MPI_COMM_WORLD);
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string k = argv[i], v = argv[i + 1];
      if (k == "--nb") a.nb = std::stoi(v);
      else if (k == "--weak") a.weak = std::stoi(v);
      else if (k == "--bs") a.bs = std::stoi(v);
      else if (k == "--repeats") a.repeats = std::stoi(v);
      else if (k == "--pingpong") a.pingpong = std::stoi(v);
      else if (k == "--mode") a.mode = strata::parse_execute_mode(v);
      else if (k == "--json") a.json = v;
      else if (k == "--levels-per-message") a.levels_per_message = std::stoi(v);
      else if (k == "--wave-batch") a.wave_batch = std::stoi(v);
      else if (k == "--readiness" && (v == "segment" || v == "wave"))
        a.readiness = v == "wave" ? strata::distributed::Readiness::Wave : strata::distributed::Readiness::Segment;
      else {
        if (comm.rank() == 0) std::fprintf(stderr, "strata_sweep_mpi_bench: unknown option %s\n", k.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    }
    const int ranks = comm.size();
    int px = 1;
    for (int d = 1; d * d <= ranks; ++d)
      if (ranks % d == 0) px = d;
    kba::Grid grid;
    grid.bs = a.bs;
    grid.px = px;
    grid.py = ranks / px;
    grid.nbz = a.nb;
    grid.nbx = a.weak ? px * a.weak : a.nb;
    grid.nby = a.weak ? grid.py * a.weak : a.nb;
    strata::RunOptions options;
    options.mode = a.mode;
    const std::size_t face = sizeof(double) * std::size_t(a.bs) * std::size_t(a.bs);
    strata::distributed::ExchangeOptions exchange;
    exchange.message_bytes = face;
    exchange.readiness = a.readiness;
    exchange.output_levels_per_message = std::uint64_t(a.levels_per_message);
    exchange.wave_batch = std::uint64_t(a.wave_batch);

    // The sweep, three ways.
    const Problem p = make_problem(comm, grid);
    strata::distributed::Executor<Space, Ordinal> executor(Space(), comm, p.plan, p.graph, {}, exchange);
    const HostGraph h = host_graph(comm, p);
    const CrossEdges c = cross_edges(comm, p, h);
    const BulkSync bsp(comm, p, h, c);
    const HostLoop loop(comm, p, h, c);
    strata::distributed::DistributedRunReport report;
    bool ok = true;
    clear(p);
    run_strata(executor, p, options, &report);
    ok = ok && matches_serial(comm, p);
    clear(p);
    bsp.run(comm, p.data);
    ok = ok && matches_serial(comm, p);
    clear(p);
    loop.run(comm, p.data);
    ok = ok && matches_serial(comm, p);
    // Where each rank's time goes in Strata's runs (DistributedRunReport),
    // summed over the timed repeats.
    double prof_elapsed = 0, prof_waves = 0, prof_idle = 0;
    const double t_strata = timed(comm, a.repeats, [&] {
      strata::distributed::DistributedRunReport r;
      run_strata(executor, p, options, &r);
      prof_elapsed += r.elapsed_seconds;
      prof_waves += r.wave_seconds;
      prof_idle += r.idle_seconds;
    });
    std::vector<double> prof(3 * std::size_t(comm.size()));
    {
      const double mine[3] = {prof_elapsed, prof_waves, prof_idle};
      MPI_Gather(mine, 3, MPI_DOUBLE, prof.data(), 3, MPI_DOUBLE, 0, comm.comm());
    }
    const double t_bsp = timed(comm, a.repeats, [&] { bsp.run(comm, p.data); });
    const double t_loop = timed(comm, a.repeats, [&] { loop.run(comm, p.data); });

    // The anchor on rank 0 alone: the whole problem (strong) or one rank's share (weak).
    double t_one = 0;
    {
      MPI_Comm self;
      MPI_Comm_split(MPI_COMM_WORLD, comm.rank() == 0 ? 0 : MPI_UNDEFINED, 0, &self);
      if (comm.rank() == 0) {
        const Comm solo(self);
        kba::Grid g1 = grid;
        g1.px = g1.py = 1;
        if (a.weak) g1.nbx = g1.nby = a.weak;
        const Problem p1 = make_problem(solo, g1);
        strata::distributed::Executor<Space, Ordinal> e1(Space(), solo, p1.plan, p1.graph, {}, exchange);
        t_one = timed(solo, a.repeats, [&] { run_strata(e1, p1, options); });
        MPI_Comm_free(&self);
      }
      // The other ranks wait without spinning a core the anchor needs.
      MPI_Request bar;
      MPI_Ibarrier(MPI_COMM_WORLD, &bar);
      for (int done = 0; !done;) {
        MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        if (!done) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      MPI_Bcast(&t_one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }

    // The ping-pong chain between ranks 0 and 1.
    double t_chain = 0, t_mpi = 0;
    const std::uint64_t K = std::uint64_t(a.pingpong);
    if (ranks >= 2 && K > 0) {
      std::vector<std::uint64_t> begin(std::size_t(ranks) + 1, 2 * K);
      begin[0] = 0;
      begin[1] = K;
      std::vector<strata::WaveDependency<Ordinal>> deps;
      for (std::uint64_t i = 0; i < K && comm.rank() == 0; ++i) {
        deps.push_back({Ordinal(i), Ordinal(K + i)});
        if (i + 1 < K) deps.push_back({Ordinal(K + i), Ordinal(i + 1)});
      }
      strata::distributed::DistributedOptions o;
      o.wave_begin = begin;
      const auto plan = strata::distributed::plan_barriers_distributed(Space(), comm, 2 * K, deps.data(), deps.size(), o);
      const auto graph = strata::distributed::local_graph(Space(), comm, plan, deps.data(), deps.size());
      strata::distributed::ExchangeOptions x;
      x.message_bytes = 8;
      x.readiness = a.readiness;
      strata::distributed::Executor<Space, Ordinal> chain(Space(), comm, plan, graph, {}, x);
      const std::uint64_t lo = plan.first_wave;
      Kokkos::View<std::uint64_t*, kba::Memory> value("bench::chain", plan.shard.wave_count_of(comm.rank()));
      t_chain = timed(comm, a.repeats, [&] {
        chain.reset();
        strata::distributed::DistributedRunReport r;
        do r = chain.run(Step{value, lo}, Word{value, lo}, options);
        while (!r.complete);
      });
      std::uint64_t word = 0;
      t_mpi = timed(comm, a.repeats, [&] {
        for (std::uint64_t i = 0; i + 1 < 2 * K; ++i) {
          const int from = int(i % 2), to = 1 - from;
          if (comm.rank() == from) MPI_Send(&word, 1, MPI_UINT64_T, to, 7, comm.comm());
          if (comm.rank() == to) MPI_Recv(&word, 1, MPI_UINT64_T, from, 7, comm.comm(), MPI_STATUS_IGNORE);
        }
      });
    }

    if (comm.rank() == 0) {
      const int B = grid.nbz;
      const double kba_ideal = double(B) / double(grid.px + grid.py - 2 + B);
      const double eff = a.weak ? t_one / t_strata : t_one / (double(ranks) * t_strata);
      const double eff_bsp = a.weak ? t_one / t_bsp : t_one / (double(ranks) * t_bsp);
      const double eff_loop = a.weak ? t_one / t_loop : t_one / (double(ranks) * t_loop);
      const std::uint64_t deps_chain = K > 0 ? 2 * K - 1 : 0;
      // The profile: shares of each rank's own run time, mean and largest over
      // ranks, and the ranks' wave time together against the 1-rank anchor's
      // whole time for the same waves (above 1: the waves cost more spread
      // over ranks, e.g. a launch per small batch).
      double wave_mean = 0, wave_max = 0, idle_mean = 0, idle_max = 0, wave_sum = 0;
      for (int r = 0; r < ranks; ++r) {
        const double el = prof[3 * r] > 0 ? prof[3 * r] : 1;
        const double w = prof[3 * r + 1] / el, i = prof[3 * r + 2] / el;
        wave_mean += w / ranks;
        idle_mean += i / ranks;
        wave_max = std::max(wave_max, w);
        idle_max = std::max(idle_max, i);
        wave_sum += prof[3 * r + 1] / a.repeats;
      }
      const double wave_over_anchor = t_one > 0 ? wave_sum / ((a.weak ? ranks : 1) * t_one) : 0;
      char line[2560];
      std::snprintf(line, sizeof line,
                    "{\"bench\":\"strata_sweep_mpi\",\"scaling\":\"%s\",\"ranks\":%d,\"px\":%d,\"py\":%d,"
                    "\"blocks\":[%d,%d,%d],\"bs\":%d,\"waves\":%llu,\"groups\":%zu,\"backend\":\"%s\","
                    "\"concurrency\":%d,\"mode\":\"%s\",\"readiness\":\"%s\",\"levels_per_message\":%d,\"wave_batch\":%d,\"repeats\":%d,\"bitwise_equal\":%s,"
                    "\"cross_rank_dependencies\":%llu,\"messages\":%llu,\"segments\":%llu,"
                    "\"seconds\":{\"strata\":%.6g,\"bulk_sync\":%.6g,\"host_loop\":%.6g,\"one_rank\":%.6g},"
                    "\"efficiency\":{\"strata\":%.4f,\"bulk_sync\":%.4f,\"host_loop\":%.4f,\"kba_ideal\":%.4f,"
                    "\"strata_over_kba\":%.4f},"
                    "\"speedup\":{\"strata_over_bulk_sync\":%.4f,\"strata_over_host_loop\":%.4f},"
                    "\"pingpong\":{\"dependencies\":%llu,\"strata_us_per_dependency\":%.4g,"
                    "\"mpi_us_per_hop\":%.4g},"
                    "\"profile\":{\"wave_share_mean\":%.4f,\"wave_share_max\":%.4f,\"idle_share_mean\":%.4f,"
                    "\"idle_share_max\":%.4f,\"wave_time_over_anchor\":%.4f}}",
                    a.weak ? "weak" : "strong", ranks, grid.px, grid.py, grid.nbx, grid.nby, grid.nbz,
                    grid.bs, (unsigned long long)grid.waves(), p.plan.group_count(), Space::name(),
                    int(Space().concurrency()), strata::execute_mode_name(a.mode),
                    a.readiness == strata::distributed::Readiness::Wave ? "wave" : "segment", a.levels_per_message, a.wave_batch, a.repeats,
                    ok ? "true" : "false", (unsigned long long)report.cross_rank_dependencies,
                    (unsigned long long)report.messages_sent, (unsigned long long)report.segments_run,
                    t_strata, t_bsp, t_loop, t_one, eff, eff_bsp, eff_loop, kba_ideal, eff / kba_ideal,
                    t_bsp / t_strata, t_loop / t_strata, (unsigned long long)deps_chain,
                    deps_chain ? t_chain * 1e6 / double(deps_chain) : 0.0,
                    deps_chain ? t_mpi * 1e6 / double(deps_chain) : 0.0, wave_mean, wave_max, idle_mean,
                    idle_max, wave_over_anchor);
      std::printf("%s\n", line);
      std::printf("| %-6s | ranks %2d (%dx%d) | blocks %dx%dx%d of %d^3 | strata %.4g s | bulk-sync %.4g s | "
                  "host loop %.4g s | 1 rank %.4g s | eff %.2f (KBA ideal %.2f) | x%.2f vs bulk-sync, x%.2f vs loop | "
                  "ping-pong %.3g us/dep (MPI %.3g us/hop) | %s |\n",
                  a.weak ? "weak" : "strong", ranks, grid.px, grid.py, grid.nbx, grid.nby, grid.nbz, grid.bs,
                  t_strata, t_bsp, t_loop, t_one, eff, kba_ideal, t_bsp / t_strata, t_loop / t_strata,
                  deps_chain ? t_chain * 1e6 / double(deps_chain) : 0.0,
                  deps_chain ? t_mpi * 1e6 / double(deps_chain) : 0.0, ok ? "bitwise ok" : "MISMATCH");
      std::printf("| profile | a rank's time: waves %.0f %% (most %.0f %%), waiting %.0f %% (most %.0f %%), "
                  "exchange %.0f %% | wave time of all ranks / 1-rank time: %.2f |\n",
                  100 * wave_mean, 100 * wave_max, 100 * idle_mean, 100 * idle_max,
                  100 * std::max(0.0, 1 - wave_mean - idle_mean), wave_over_anchor);
      if (!a.json.empty()) std::ofstream(a.json, std::ios::app) << line << "\n";
      if (!ok) std::fprintf(stderr, "strata_sweep_mpi_bench: a result differs from the serial sweep\n");
    }
    code = comm.max(ok ? 0 : 1);
  }
  MPI_Finalize();
  return code;
}
