// strata_barrier_bench: the cost of one episode of strata::DeviceBarrier
// (core/device_barrier.hpp), the device-wide barrier between the groups of
// the executor's persistent mode and between the layers of the planner's
// persistent step, against what it replaces: one queued kernel launch per
// group (the layered mode, the planner's paced steps). Same run, same device.
//
//   barrier   one launch of a co-resident league (resident_teams)
//             that passes E barrier episodes; each episode's completion
//             function bumps a counter, which is checked afterwards
//   launches  E empty TeamPolicy kernels of the same league queued on the
//             instance, one fence at the end
//
// For league sizes 1, 2, 8, 32, ... up to the co-resident bound, at two team
// sizes. Prints microseconds per episode / per launch (medians over
// --repetitions) and their ratio; --json FILE writes the same records.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/device_barrier.hpp>
#include <strata/core/device_limits.hpp>
#include <strata/core/league_rendezvous.hpp>
#include <strata/core/resident_teams.hpp>

#include "bench_support.hpp"

namespace {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;

struct BarrierKernel {
  strata::DeviceBarrier<MemSpace> barrier;
  strata::LeagueRendezvous<MemSpace> rendezvous;
  Kokkos::View<std::uint64_t, MemSpace> episodes_seen;
  std::uint64_t league = 1, episodes = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!rendezvous.arrive(team, league)) return;
    std::uint64_t* const seen = &episodes_seen();
    for (std::uint64_t e = 0; e < episodes; ++e)
      if (!barrier.arrive_and_wait(team, league, [&]() { *seen += 1; })) return;
  }
};

struct EmptyKernel {
  KOKKOS_INLINE_FUNCTION void operator()(const Member&) const {}
};

struct Record {
  int team_size = 0;
  std::uint64_t league = 0;
  double barrier_us = 0, launch_us = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  int repetitions = 5;
  std::uint64_t episodes = 2000;
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repetitions" && i + 1 < argc) {
      repetitions = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--episodes" && i + 1 < argc) {
      episodes = std::max<std::uint64_t>(1, std::strtoull(argv[++i], nullptr, 10));
    } else if (a == "--json" && i + 1 < argc) {
      json = argv[++i];
    } else {
      std::cerr << "usage: strata_barrier_bench [--repetitions R] [--episodes E] [--json FILE]\n";
      return a == "--help" ? 0 : 2;
    }
  }
  const ExecSpace space;
  const auto limits = strata::DeviceLimits::query(space);
  std::vector<Record> records;
  std::cout << "strata_barrier_bench: " << ExecSpace::name() << ", " << episodes
            << " episodes per launch, medians of " << repetitions << "\n"
            << std::setw(6) << "team" << std::setw(8) << "league" << std::setw(14)
            << "barrier us" << std::setw(14) << "launch us" << std::setw(16)
            << "launch/barrier" << "\n";
  const int host = strata::is_host_backend_v<ExecSpace> ? 1 : 0;
  for (const int wanted_team : {host ? 1 : 32, host ? 2 : 256}) {
    BarrierKernel kernel{strata::DeviceBarrier<MemSpace>("bench::barrier"),
                         strata::LeagueRendezvous<MemSpace>("bench::rendezvous"),
                         Kokkos::View<std::uint64_t, MemSpace>("bench::episodes_seen"), 1,
                         episodes};
    const int team = std::min<int>(wanted_team, static_cast<int>(limits.max_team_size));
    const std::uint64_t resident = strata::resident_teams(space, kernel, team, limits);
    std::vector<std::uint64_t> leagues;
    for (std::uint64_t l = 1; l < resident; l = l < 2 ? 2 : l * 4) leagues.push_back(l);
    leagues.push_back(resident);
    for (const std::uint64_t league : leagues) {
      kernel.league = league;
      // The reset before each launch and the check after it are not timed.
      const auto check = [&] {
        std::uint64_t seen = 0;
        Kokkos::deep_copy(seen, kernel.episodes_seen);
        if (kernel.rendezvous.abandoned() || seen != episodes) {
          std::cerr << "barrier check failed: league " << league << " team " << team << " saw "
                    << seen << " of " << episodes << " episodes\n";
          std::exit(1);
        }
      };
      strata_bench::Timing barrier_timing;
      for (int rep = 0; rep <= repetitions; ++rep) {  // the first is a warm-up
        kernel.barrier.reset(space);
        kernel.rendezvous.reset(space);
        Kokkos::deep_copy(space, kernel.episodes_seen, std::uint64_t(0));
        space.fence();
        const double t = strata_bench::seconds_of([&] {
          Kokkos::parallel_for("bench::barrier",
                               Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team),
                               kernel);
          space.fence();
        });
        check();
        if (rep > 0) barrier_timing.seconds.push_back(t);
      }
      const auto launch_timing = strata_bench::time_calls(repetitions, 1, [&] {
        for (std::uint64_t e = 0; e < episodes; ++e)
          Kokkos::parallel_for("bench::empty",
                               Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(league), team),
                               EmptyKernel{});
        space.fence();
      });
      Record r{team, league, barrier_timing.median() * 1e6 / double(episodes),
               launch_timing.median() * 1e6 / double(episodes)};
      records.push_back(r);
      std::cout << std::setw(6) << team << std::setw(8) << league << std::setw(14)
                << std::setprecision(3) << r.barrier_us << std::setw(14) << r.launch_us
                << std::setw(16) << r.launch_us / r.barrier_us << "\n";
    }
  }
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"backend\": " << strata_bench::json_string(ExecSpace::name())
        << ",\n  \"episodes\": " << episodes << ",\n  \"repetitions\": " << repetitions
        << ",\n  \"records\": [\n";
    for (std::size_t i = 0; i < records.size(); ++i)
      out << "    {\"team_size\": " << records[i].team_size << ", \"league\": " << records[i].league
          << ", \"barrier_us\": " << strata_bench::json_number(records[i].barrier_us)
          << ", \"launch_us\": " << strata_bench::json_number(records[i].launch_us) << "}"
          << (i + 1 < records.size() ? ",\n" : "\n");
    out << "  ]\n}\n";
  }
  return 0;
}
