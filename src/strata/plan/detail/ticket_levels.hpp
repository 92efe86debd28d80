#pragma once
// Levels in ticket order, on a device, where the ids are a topological order
// (every dependency goes from a lower to a higher id) and each wave's
// predecessors are given as an in-edge CSR: a triangular matrix's rows
// (plan_in_edges.hpp).
//
// Each team takes the next `team_size` waves from one global ticket counter
// (one atomic per team) and each thread levels its wave as soon as the
// wave's predecessors are levelled: it spins until every predecessor's level
// is published, then publishes 1 + the largest of them.
//
// Why it cannot hang: a thread waits only on lower ids, and every lower id
// was handed out (ticket order) to a team that was already running when it
// took its ticket, so the lowest unlevelled wave always has every
// predecessor levelled. Teams that the device has not started yet hold no
// ticket, so no co-residency is needed. The spin is written as one loop that
// also does the work (never "wait, then work"), so lanes of one warp or
// wavefront that wait on each other also progress on devices without
// independent thread scheduling.
//
// What it costs: one pass over the matrix, plus one memory round trip per
// level along the critical path, which the waiting threads make slower the
// more of them the device holds. A deep graph would serialise on it, so the
// pass gives up once a level passes `depth_budget` (every thread sees the
// abort flag and leaves; PlanPolicy::ticket_depth_budget() has the
// measurements). The planner's own walk does not use it: a push form of the
// same pass over the planner's out-edge CSR was several times slower than
// the layer walk on deep sweeps on a GPU, and only slightly faster on
// shallow ILU patterns.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <strata/core/ordinal.hpp>
#include <strata/core/spin_wait.hpp>

namespace strata::plan::detail {

/// Threads per team of a ticket pass: one ticket atomic per team on a
/// device, one wave per team on a host backend (tests run it there).
template <class ExecSpace>
int ticket_team_size(const ExecSpace&) {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible
             ? 1
             : 128;
}

struct TicketLevelsResult {
  bool finished = false;     ///< false: a level passed the depth budget (nothing usable)
  std::uint64_t groups = 0;  ///< deepest level + 1 (when finished)
};

/// Device-side control words of one pass: [0] the ticket, [1] the abort flag.
template <class ExecSpace>
using TicketControl = Kokkos::View<std::uint64_t[2], typename ExecSpace::memory_space>;

/// Reads the abort flag and, where the pass finished, shifts the published
/// levels (level + 1) down and counts the groups.
template <class ExecSpace, class LevelView>
TicketLevelsResult finish_ticket_levels(const ExecSpace& space, const TicketControl<ExecSpace>& control,
                                        const LevelView& level) {
  TicketLevelsResult out;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), control);
  if (host(1) != 0) return out;
  out.finished = true;
  if (level.extent(0) == 0) return out;
  using L = typename LevelView::non_const_value_type;
  using M = scan_value_t<L>;
  M deepest = 0;
  Kokkos::parallel_reduce(
      "strata::plan::ticket_levels_zero_based",
      Kokkos::RangePolicy<ExecSpace>(space, 0, level.extent(0)),
      KOKKOS_LAMBDA(const std::size_t w, M& m) {
        const L l = L(level(w) - 1);
        level(w) = l;
        if (M(l) > m) m = M(l);
      },
      Kokkos::Max<M>(deepest));
  out.groups = std::uint64_t(deepest) + 1;
  return out;
}

/// Whether a ticket pass can be launched over `waves` waves (its league
/// size is an int).
template <class ExecSpace>
bool ticket_league_fits(const ExecSpace& space, std::uint64_t waves) {
  const std::uint64_t team = std::uint64_t(ticket_team_size(space));
  return (waves + team - 1) / team <= std::uint64_t(std::numeric_limits<int>::max());
}

/// The pass over an in-edge CSR: wave w's predecessors are the entries of
/// row r = (mirrored ? waves-1-w : w) other than r itself, each entry c being
/// wave (mirrored ? waves-1-c : c), all below w (the caller checked: a
/// triangular matrix, lower or, mirrored, upper). `level` (waves entries) is
/// overwritten.
template <class ExecSpace, class RowMap, class Entries, class LevelView>
TicketLevelsResult pull_ticket_levels(const ExecSpace& space, const RowMap& row_map,
                                      const Entries& entries, bool mirrored,
                                      const LevelView& level, std::uint64_t depth_budget) {
  using L = typename LevelView::non_const_value_type;
  const std::uint64_t waves = level.extent(0);
  TicketControl<ExecSpace> control("strata::ticket levels control");
  if (waves == 0) return finish_ticket_levels(space, control, level);
  if (!ticket_league_fits(space, waves)) return TicketLevelsResult{};
  Kokkos::deep_copy(space, level, L(0));  // 0: not levelled yet; a levelled wave holds level + 1
  const int team_size = ticket_team_size(space);
  const std::uint64_t teams = (waves + team_size - 1) / team_size;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const std::uint64_t budget = depth_budget;
  Kokkos::parallel_for(
      "strata::plan::ticket_levels", Policy(space, static_cast<int>(teams), team_size),
      KOKKOS_LAMBDA(const Member& team) {
        std::uint64_t base = 0;
        Kokkos::single(
            Kokkos::PerTeam(team),
            [&](std::uint64_t& b) {
              b = Kokkos::atomic_fetch_add(&control(0), std::uint64_t(team.team_size()));
            },
            base);
        const std::uint64_t w = base + std::uint64_t(team.team_rank());
        if (w >= waves) return;
        const std::uint64_t row = mirrored ? waves - 1 - w : w;
        const std::uint64_t end = std::uint64_t(row_map(row + 1));
        std::uint64_t e = std::uint64_t(row_map(row));
        std::uint64_t best = 0;
        for (std::uint64_t spins = 0;; ++spins) {
          // Take every predecessor already levelled; stop at the first that is not.
          for (; e < end; ++e) {
            const std::uint64_t c = std::uint64_t(entries(e));
            if (c == row) continue;  // the diagonal
            const std::uint64_t p = mirrored ? waves - 1 - c : c;
            const std::uint64_t v = std::uint64_t(volatile_load(&level(p)));
            if (v == 0) break;
            if (v > best) best = v;
          }
          if (e == end) {
            if (best > budget) {  // the wave's level (0-based) is `best`: give up
              Kokkos::atomic_fetch_max(&control(1), std::uint64_t(1));
            } else {
              volatile_store(&level(w), L(best + 1));
            }
            return;
          }
          if (volatile_load(&control(1)) != 0) return;
          spin_pause(spins);
        }
      });
  return finish_ticket_levels(space, control, level);
}

}  // namespace strata::plan::detail
