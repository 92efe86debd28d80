#pragma once
// Which triangle of a sparse matrix a TriangularSolve reads, and whether its
// diagonal is stored or taken as ones.
namespace strata::solve {

enum class Triangle { Lower, Upper };

/// NonUnit: every row stores its diagonal, and the solve divides by it.
/// Unit: the diagonal is one; a stored diagonal entry is ignored.
enum class Diagonal { NonUnit, Unit };

inline const char* triangle_name(Triangle t) noexcept {
  return t == Triangle::Lower ? "lower" : "upper";
}

}  // namespace strata::solve
