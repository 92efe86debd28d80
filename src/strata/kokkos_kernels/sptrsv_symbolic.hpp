#pragma once
// A drop-in device symbolic phase for Kokkos Kernels' sparse triangular solve.
//
//   KokkosKernels::Experimental::KokkosKernelsHandle<...> kh;
//   kh.create_sptrsv_handle(SPTRSVAlgorithm::SEQLVLSCHD_TP1, rows, /*lower=*/true);
//   strata::kokkos_kernels::sptrsv_symbolic(&kh, row_map, entries);   // instead of
//   //   KokkosSparse::sptrsv_symbolic(&kh, row_map, entries)   (4.x;  ::Experimental:: in 3.x)
//   KokkosSparse::sptrsv_solve(&kh, row_map, entries, values, b, x);   // unchanged
//
// Kokkos Kernels' own level-set symbolic phase copies the matrix to the host
// and levels its rows in a serial loop there, on every backend. This one
// checks the matrix and levels its rows straight from its CSR on the
// handle's execution space — on a device ticket-ordered, every row levelled
// once the rows it reads are (strata::plan_in_edges), on a host backend in
// one checking pass in row order (strata::levels_from_in_edges); the Kahn
// levels of the rows are exactly Kokkos Kernels' level sets — then writes
// the handle as Kokkos Kernels' symbolic phase of the same version would,
// field for field (schedule_layout.hpp):
// nodes_grouped_by_level, nodes_per_level and their host copies, level_list,
// the level count, the TP1CHAIN chain and the symbolic-complete flag. The
// solve therefore runs unchanged and gives bitwise the same x.
//
// Lower triangular handles level the rows top-down, upper triangular ones
// bottom-up (as their solves run). Algorithms: the level-set ones,
// SEQLVLSCHD_RP, SEQLVLSCHD_TP1 and SEQLVLSCHD_TP1CHAIN (SEQLVLSCHED_TP2 is
// commented out in both 3.4 and 4.6).
//
// Errors (strata::PlanError, InvalidArgument unless said otherwise, each with
// a Fix: hint; the handle is left untouched): a null handle or no sptrsv
// handle; an algorithm that is not a level-set one; an empty row_map; offsets
// that descend or run past `entries`; a column outside 0..rows-1; an entry on
// the wrong side of the diagonal (the matrix is not triangular as the handle
// declares); a row without its diagonal (first offending row reported, the
// same on every backend); TP1CHAIN with chain threshold < 1 on a matrix whose
// rows form a single chain (Kokkos Kernels' chain pointer is one entry too
// short for it). From the planner: CountOverflow, StorageReserveFailed.
// Kokkos Kernels' own phase checks none of these.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>

#include <strata/core/error.hpp>
#include <strata/core/storage.hpp>
#include <strata/kokkos_kernels/detail/fill_level_schedule.hpp>
#include <strata/kokkos_kernels/detail/row_dependencies.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/plan_in_edges.hpp>
#include <strata/plan/planner_scratch.hpp>
#include <strata/solve/check_triangle.hpp>

namespace strata::kokkos_kernels {

/// The triangle check of a handle's matrix (strata::solve::check_triangle):
/// every diagonal stored (the solve divides by it), a diagonal stored more
/// than once allowed (the levels skip every diagonal entry), in the words of
/// sptrsv_symbolic and its handle.
inline solve::TriangleCheck sptrsv_triangle_check(bool lower) {
  solve::TriangleCheck check;
  check.triangle = lower ? solve::Triangle::Lower : solve::Triangle::Upper;
  check.diagonal_required = true;
  check.duplicate_diagonal_allowed = true;
  check.wording.caller = "sptrsv_symbolic";
  check.wording.offsets_fix =
      "give row_map as nondecreasing offsets into entries (row_map(i) .. row_map(i+1) - 1 are "
      "row i's entries)";
  check.wording.columns_fix =
      "give column indices below the row count (a square matrix; row_map has rows + 1 entries)";
  check.wording.missing_diagonal_fix =
      "store the diagonal of every row (the solve divides by it), also where it is 1";
  check.wording.name_missing_column = false;
  check.wording.declare_upper = "create the sptrsv handle with lower_tri = false";
  check.wording.declare_lower = "create the sptrsv handle with lower_tri = true";
  return check;
}

/// Whether `algorithm` is one this symbolic phase fills the handle for.
inline bool is_level_set_algorithm(KokkosSparse::Experimental::SPTRSVAlgorithm algorithm) {
  using A = KokkosSparse::Experimental::SPTRSVAlgorithm;
  return algorithm == A::SEQLVLSCHD_RP || algorithm == A::SEQLVLSCHD_TP1 ||
         algorithm == A::SEQLVLSCHD_TP1CHAIN;
}

/// The symbolic phase on `space` (an instance of the handle's execution
/// space). Returns once the handle is complete (host copies included).
template <class ExecSpace, class KernelHandle, class RowMap, class Entries>
void sptrsv_symbolic(const ExecSpace& space, KernelHandle* handle, const RowMap& row_map,
                     const Entries& entries) {
  using size_type = typename KernelHandle::size_type;
  using lno_t = typename KernelHandle::nnz_lno_t;
  static_assert(std::is_same_v<ExecSpace, typename KernelHandle::HandleExecSpace>,
                "strata::kokkos_kernels::sptrsv_symbolic: the execution space must be the "
                "handle's");
  static_assert(std::is_same_v<typename RowMap::non_const_value_type, size_type>,
                "strata::kokkos_kernels::sptrsv_symbolic: row_map's value type must be the "
                "handle's size_type (const does not matter)");
  static_assert(std::is_same_v<typename Entries::non_const_value_type, lno_t>,
                "strata::kokkos_kernels::sptrsv_symbolic: entries' value type must be the "
                "handle's nnz_lno_t (const does not matter)");
  static_assert(RowMap::rank == 1 && Entries::rank == 1,
                "strata::kokkos_kernels::sptrsv_symbolic: row_map and entries are rank-1 Views");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename RowMap::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Entries::memory_space>::accessible,
                "strata::kokkos_kernels::sptrsv_symbolic: row_map and entries must be readable "
                "by the handle's execution space");
  using Ordinal = std::make_unsigned_t<lno_t>;
  using Offset = std::make_unsigned_t<size_type>;

  if (handle == nullptr)
    throw PlanError::invalid_argument("sptrsv_symbolic: the KokkosKernelsHandle is null",
                                      "pass the address of a KokkosKernelsHandle");
  auto* sh = handle->get_sptrsv_handle();
  if (sh == nullptr)
    throw PlanError::invalid_argument(
        "sptrsv_symbolic: the KokkosKernelsHandle has no sptrsv handle",
        "call create_sptrsv_handle(algorithm, rows, lower_tri) on it first");
  if (!is_level_set_algorithm(sh->get_algorithm()))
    throw PlanError::invalid_argument(
        "sptrsv_symbolic: the sptrsv handle's algorithm (number " +
            std::to_string(static_cast<int>(sh->get_algorithm())) +
            ") is not a level-set algorithm",
        "create the sptrsv handle with SEQLVLSCHD_RP, SEQLVLSCHD_TP1 or SEQLVLSCHD_TP1CHAIN, or "
        "call Kokkos Kernels' own sptrsv_symbolic for the other algorithms");
  if (row_map.extent(0) == 0)
    throw PlanError::invalid_argument(
        "sptrsv_symbolic: row_map is empty",
        "give row_map with rows + 1 offsets (a matrix of 0 rows has row_map = {0})");
  const bool lower = sh->is_lower_tri();
  const std::uint64_t rows = row_map.extent(0) - 1;
  {
    const auto first = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(std::size_t(0), std::size_t(1))));
    const auto last = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), Kokkos::subview(row_map, std::make_pair(std::size_t(rows), std::size_t(rows + 1))));
    const long long first_offset = static_cast<long long>(first(0));
    const long long last_offset = static_cast<long long>(last(0));
    if (first_offset < 0 || last_offset < first_offset ||
        static_cast<std::uint64_t>(last_offset) > entries.extent(0))
      throw PlanError::invalid_argument(
          "sptrsv_symbolic: row_map runs from " + std::to_string(first_offset) + " to " +
              std::to_string(last_offset) + " but entries holds " +
              std::to_string(entries.extent(0)),
          "give 0 <= row_map(0) <= row_map(rows) <= entries.extent(0)");
  }

  // The rows are checked (triangular as declared, every diagonal stored)
  // and named by their first offending row on every backend
  // (strata::solve::check_triangle).
  const solve::TriangleCheck check = sptrsv_triangle_check(lower);

  if constexpr (plan_in_edges_checks_rows<ExecSpace>()) {
    // A host backend: one pass in row order levels the rows and checks them
    // as it reads them (strata::levels_from_in_edges: level(i) = 1 + max
    // level(pred), Kokkos Kernels' own one-pass level set), then one pass
    // places them by level into the handle. No plan in between: the same
    // passes as Kokkos Kernels' phase (docs/performance.md has the figures).
    using Levels = Kokkos::View<Ordinal*, typename ExecSpace::memory_space>;
    const Levels level = allocate_view<Levels>(rows, "sptrsv row levels");  // by row
    const Levels count = allocate_view<Levels>(rows, "sptrsv rows per level");
    const std::optional<std::uint64_t> groups =
        levels_from_in_edges(space, row_map, entries, /*mirrored=*/!lower,
                             /*require_diagonal=*/true, level, count, /*by_row=*/true);
    if (!groups) {
      solve::check_triangle(space, row_map, entries, check);
      throw PlanError::invalid_argument(
          std::string("sptrsv_symbolic: the matrix is not ") + (lower ? "lower" : "upper") +
              " triangular with every diagonal stored",
          "give the triangle and the diagonal of every row");
    }
    detail::check_chain_fits(*sh, rows, *groups);
    sh->new_init_handle(static_cast<size_type>(rows));
    detail::write_schedule_from_levels(space, *sh, level, count, *groups, lower);
    detail::finish_level_schedule(space, *sh, *groups, row_map, entries, lower);
  } else {
    // A device: the rows are checked first, in one parallel pass (the
    // device pass trusts its caller), then planned straight from the matrix
    // (plan_in_edges: ticket-ordered, every row levelled once the rows it
    // reads are). A matrix deeper than the device pass's budget is planned
    // as a dependency list by the layer walk.
    solve::check_triangle(space, row_map, entries, check);
    PlannerScratch<ExecSpace, Ordinal, Offset> scratch;
    std::optional<BarrierPlan<ExecSpace, Ordinal>> planned =
        plan_in_edges(space, row_map, entries, /*mirrored=*/!lower, scratch);
    if (!planned) {
      const auto deps = detail::counted_row_dependencies<Ordinal>(space, row_map, entries, lower);
      const Kokkos::View<const WaveDependency<Ordinal>*, typename ExecSpace::memory_space> list =
          deps;
      planned = plan_barriers(space, rows, list, scratch);
    }
    const BarrierPlan<ExecSpace, Ordinal>& plan = *planned;
    detail::check_chain_fits(*sh, rows, plan.group_count());
    sh->new_init_handle(static_cast<size_type>(rows));
    detail::write_schedule_from_plan(space, *sh, plan, lower);
    detail::finish_level_schedule(space, *sh, plan.group_count(), row_map, entries, lower);
  }
}

/// The symbolic phase on a default instance of the handle's execution space
/// (the signature of KokkosSparse::sptrsv_symbolic(handle, row_map, entries)).
template <class KernelHandle, class RowMap, class Entries>
void sptrsv_symbolic(KernelHandle* handle, const RowMap& row_map, const Entries& entries) {
  sptrsv_symbolic(typename KernelHandle::HandleExecSpace(), handle, row_map, entries);
}

}  // namespace strata::kokkos_kernels
