#pragma once
// A drop-in solve phase for Kokkos Kernels' sparse triangular solve, running
// Strata's solve (strata::solve::TriangularSolve) on the level schedule that
// strata::kokkos_kernels::sptrsv_symbolic (or Kokkos Kernels' own symbolic
// phase) left in the handle:
//
//   kh.create_sptrsv_handle(SPTRSVAlgorithm::SEQLVLSCHD_TP1, rows, /*lower=*/true);
//   strata::kokkos_kernels::sptrsv_symbolic(&kh, row_map, entries);
//   strata::kokkos_kernels::sptrsv_solve(&kh, row_map, entries, values, b, x);  // instead of
//   //   KokkosSparse::sptrsv_solve(&kh, row_map, entries, values, b, x)
//
// Each call checks the matrix and the handle's schedule against each other
// (TriangularSolve::symbolic_from_levels: one parallel pass over the entries
// and one over the rows), lets the solve policy pick the kernels from the
// level profile, and solves: x equals Kokkos Kernels' to rounding (each row
// sums its entries in stored order on a host backend; Kokkos Kernels' TP1
// and a device reduce over lanes). A Kokkos Kernels handle has no room for
// Strata's workspace, so the checks and workspace are paid on every call;
// code that solves with one matrix many times keeps a TriangularSolve.
//
// Errors (strata::PlanError, InvalidArgument, with a Fix: hint; x untouched):
// a null handle, no sptrsv handle or no completed symbolic phase; a matrix
// that is not triangular as the handle declares, lacks a diagonal or has a
// zero one (naming row and column); a schedule that is not this matrix's.
#include <cstdint>
#include <vector>

#include <type_traits>

#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>

#include <strata/core/error.hpp>
#include <strata/solve/triangular_solve.hpp>

namespace strata::kokkos_kernels {

/// The solve phase on `space` (an instance of the handle's execution space).
template <class ExecSpace, class KernelHandle, class RowMap, class Entries, class Values,
          class B, class X>
void sptrsv_solve(const ExecSpace& space, KernelHandle* handle, const RowMap& row_map,
                  const Entries& entries, const Values& values, const B& b, const X& x) {
  using size_type = typename KernelHandle::size_type;
  using lno_t = typename KernelHandle::nnz_lno_t;
  using scalar_t = typename Values::non_const_value_type;
  static_assert(std::is_same_v<ExecSpace, typename KernelHandle::HandleExecSpace>,
                "strata::kokkos_kernels::sptrsv_solve: the execution space must be the handle's");
  if (handle == nullptr)
    throw PlanError::invalid_argument("sptrsv_solve: the KokkosKernelsHandle is null",
                                      "pass the address of a KokkosKernelsHandle");
  auto* sh = handle->get_sptrsv_handle();
  if (sh == nullptr || !sh->is_symbolic_complete())
    throw PlanError::invalid_argument(
        "sptrsv_solve: the KokkosKernelsHandle has no completed sptrsv symbolic phase",
        "call create_sptrsv_handle(...) and strata::kokkos_kernels::sptrsv_symbolic(&handle, "
        "row_map, entries) first");
  const auto per_level = sh->get_host_nodes_per_level();
  const std::uint64_t levels = static_cast<std::uint64_t>(sh->get_num_levels());
  if (per_level.extent(0) < levels)
    throw PlanError::invalid_argument(
        "sptrsv_solve: the handle's nodes_per_level is shorter than its level count",
        "run the symbolic phase on the handle again");
  std::vector<std::uint64_t> offsets(levels + 1, 0);
  for (std::uint64_t l = 0; l < levels; ++l)
    offsets[l + 1] = offsets[l] + static_cast<std::uint64_t>(per_level(l));
  solve::TriangularSolve<ExecSpace, lno_t, size_type, scalar_t> ts;
  ts.symbolic_from_levels(space, row_map, entries,
                          sh->is_lower_tri() ? solve::Triangle::Lower : solve::Triangle::Upper,
                          solve::Diagonal::NonUnit, sh->get_nodes_grouped_by_level(),
                          std::move(offsets));
  ts.solve(space, values, b, x);
}

/// On a default instance of the handle's execution space (the signature of
/// KokkosSparse::sptrsv_solve(handle, row_map, entries, values, b, x)).
template <class KernelHandle, class RowMap, class Entries, class Values, class B, class X>
void sptrsv_solve(KernelHandle* handle, const RowMap& row_map, const Entries& entries,
                  const Values& values, const B& b, const X& x) {
  sptrsv_solve(typename KernelHandle::HandleExecSpace(), handle, row_map, entries, values, b, x);
}

}  // namespace strata::kokkos_kernels
