#pragma once
// strata plan --max-memory BYTES: the memory budget of one planning call, and
// the check that rejects a graph whose planner storage cannot fit *before*
// anything is allocated for it (a header claiming 2^40 waves is a few bytes
// of text but terabytes of CSR, scratch and plan).
//
// The byte needs come from strata::planner_storage_bytes (plan/), the one
// formula the planner's own device_memory_budget_bytes check and the launch
// policy use; here it is evaluated without overflow for counts a header can
// claim, plus the dependency list(s) the tool holds meanwhile.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <unistd.h>

#include <strata/core/error.hpp>
#include <strata/graph/build_dependency_graph.hpp>
#include <strata/graph/wave_dependency.hpp>
#include <strata/plan/planner_storage.hpp>

#include "commands.hpp"

namespace strata::tools {

/// Physical memory of this machine (the default budget); 2^64 - 1 if unknown.
inline std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();
  const auto p = static_cast<std::uint64_t>(pages), s = static_cast<std::uint64_t>(page);
  return p > std::numeric_limits<std::uint64_t>::max() / s
             ? std::numeric_limits<std::uint64_t>::max()
             : p * s;
}

/// The memory budget of one command: --max-memory BYTES, else the physical
/// memory. Every reader and storage check of the command is bounded by it.
struct MemoryBudget {
  std::uint64_t bytes = 0;
  bool given = false;  ///< from --max-memory (not the physical memory)
};

/// The budget of a command whose --max-memory is `max_memory` (0: not given).
inline MemoryBudget memory_budget(std::uint64_t max_memory) {
  return max_memory != 0 ? MemoryBudget{max_memory, true}
                         : MemoryBudget{physical_memory_bytes(), false};
}

/// "1073741824", "512M", "8G", "1T" (K/M/G/T: powers of 1024); UsageError otherwise.
inline std::uint64_t parse_byte_count(const std::string& text,
                                      const std::string& option = "--max-memory") {
  const auto bad = [&] {
    return UsageError{option + " must be a positive byte count such as 1073741824, 512M "
                      "or 8G, not '" + text + "'"};
  };
  std::size_t digits = 0;
  std::uint64_t value = 0;
  for (; digits < text.size() && text[digits] >= '0' && text[digits] <= '9'; ++digits) {
    const auto d = static_cast<std::uint64_t>(text[digits] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - d) / 10) throw bad();
    value = value * 10 + d;
  }
  if (digits == 0 || value == 0) throw bad();
  unsigned shift = 0;
  if (digits + 1 == text.size()) {
    switch (text[digits]) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      case 'T': case 't': shift = 40; break;
      default: throw bad();
    }
  } else if (digits != text.size()) {
    throw bad();
  }
  if (shift != 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad();
  return value << shift;
}

/// Bytes one `strata plan` of this shape holds at its high point, after the
/// reader (whose own high point, text plus list, the reader bounds): the
/// planner's storage (CSR, scratch, result; sparse mode, the smallest) plus
/// the dependencies it plans from. With 64-bit ordinals that is the reader's
/// list (16 bytes each); narrower ordinals plan from a narrowed copy and the
/// 64-bit list is freed first, so the high point is the larger of the
/// narrowing (both lists) and the planning (the copy). Saturates at 2^64 - 1
/// instead of wrapping.
template <class Ordinal>
std::uint64_t plan_memory_bytes(std::uint64_t waves, std::uint64_t dependencies) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  // planner_storage_bytes multiplies counts by at most ~8 x 8 bytes: keep its
  // arguments where that cannot wrap.
  constexpr std::uint64_t safe = std::uint64_t(1) << 56;
  if (waves >= safe || dependencies >= safe) return max;
  const auto need = planner_storage_bytes(waves, dependencies, sizeof(Ordinal), sizeof(Ordinal));
  const std::uint64_t list = dependencies * sizeof(WaveDependency<std::uint64_t>);
  if (sizeof(Ordinal) == sizeof(std::uint64_t)) return need.total() + list;
  const std::uint64_t copy = dependencies * sizeof(WaveDependency<Ordinal>);
  const std::uint64_t planning = need.total() + copy, narrowing = list + copy;
  return planning > narrowing ? planning : narrowing;
}

/// Bytes one `strata run` of this shape holds at its high point: what
/// `strata plan` holds (plan_memory_bytes), plus the run's own storage, all
/// counted at once (an upper bound: the reader's 64-bit list stays alive):
/// per dependency the 64-bit list, a device copy, the reversed copy and the
/// predecessor CSR's entry with its build scratch; per wave the synthetic
/// wave's three counters, the predecessor CSR's row, and the executor's
/// per-wave state (a ticket, a state and a queue slot). Saturates at 2^64 - 1.
template <class Ordinal>
std::uint64_t run_memory_bytes(std::uint64_t waves, std::uint64_t dependencies) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t safe = std::uint64_t(1) << 56;
  const std::uint64_t plan = plan_memory_bytes<Ordinal>(waves, dependencies);
  if (plan == max || waves >= safe || dependencies >= safe) return max;
  const std::uint64_t per_dependency =
      sizeof(WaveDependency<std::uint64_t>) + 2 * sizeof(WaveDependency<Ordinal>) +
      2 * sizeof(Ordinal);
  const std::uint64_t per_wave = 3 * 8 + 2 * sizeof(Ordinal) + 3 * 8;
  const std::uint64_t run = per_dependency * dependencies + per_wave * waves;
  return plan > max - run ? max : plan + run;
}

/// Bytes one `strata solve` of a `rows` x `rows` matrix with `entries` stored
/// entries holds at its high point after the reader: the symbolic phase's
/// planning of the rows (plan_memory_bytes, 64-bit, one dependency per
/// entry at most), plus per entry the host CSR being built (a (column,
/// value) pair, then the column and the value) and its device copy, and per
/// row the offsets (host and device), b and x (host and device) and the
/// solve's per-row state (diagonal offset, order, level, ticket, ready flag).
/// An upper bound; saturates at 2^64 - 1.
inline std::uint64_t solve_memory_bytes(std::uint64_t rows, std::uint64_t entries) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t safe = std::uint64_t(1) << 56;
  const std::uint64_t plan = plan_memory_bytes<std::uint64_t>(rows, entries);
  if (plan == max || rows >= safe || entries >= safe) return max;
  const std::uint64_t per_entry = 16 + 2 * 8 + 2 * 8;
  const std::uint64_t per_row = 2 * 8 + 2 * 8 + 2 * 8 + 4 * 8 + 4;
  const std::uint64_t solve = per_entry * entries + per_row * rows;
  return plan > max - solve ? max : plan + solve;
}

/// MemoryConstrained (exit 3, worded for the tool) when solving a matrix of
/// this shape cannot fit the budget; allocates nothing.
inline void check_solve_memory(std::uint64_t rows, std::uint64_t entries, std::uint64_t budget) {
  const std::uint64_t need = solve_memory_bytes(rows, entries);
  if (need > budget)
    throw CliError{"MemoryConstrained: solving needs " + std::to_string(need) +
                       " bytes but the memory budget is " + std::to_string(budget) +
                       " bytes. Fix: raise --max-memory (default: the physical memory), or "
                       "solve a smaller matrix.",
                   exit_invalid_graph};
}

/// What check_plan_memory checks, for `strata plan` (PlanMemory) or `strata
/// run` (RunMemory: run_memory_bytes).
struct PlanMemory {};
struct RunMemory {};

/// Throws what planning would (CountOverflow for a shape the types cannot
/// hold), else MemoryConstrained{needed, budget} when the plan cannot fit the
/// budget; allocates nothing.
template <class Ordinal, class Kind = PlanMemory>
void check_plan_memory(std::uint64_t waves, std::uint64_t dependencies, std::uint64_t budget,
                       Kind = {}) {
  check_graph_shape<Ordinal, Ordinal>(waves, dependencies);
  // A graph that cannot be planned answers as `strata plan` does, in every
  // subcommand; `strata run` then checks what running adds.
  const std::uint64_t need = plan_memory_bytes<Ordinal>(waves, dependencies);
  if (need > budget) throw PlanError::memory_constrained(need, budget);
  if constexpr (std::is_same_v<Kind, RunMemory>) {
    const std::uint64_t run = run_memory_bytes<Ordinal>(waves, dependencies);
    if (run > budget)
      throw CliError{"MemoryConstrained: running needs " + std::to_string(run) +
                         " bytes (planning " + std::to_string(need) +
                         " of them) but the memory budget is " + std::to_string(budget) +
                         " bytes. Fix: raise --max-memory (default: the physical memory), or run "
                         "a smaller graph.",
                     exit_invalid_graph};
  }
}

}  // namespace strata::tools
