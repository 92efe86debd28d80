#pragma once
// Strata 0.2.0 named the distributed planner's namespace strata::dist; it is
// strata::distributed now, like its folder. The old name stays an alias so
// that code written against 0.2.0 still compiles.
namespace strata::distributed {}

namespace strata {
namespace dist = distributed;
}  // namespace strata
