#pragma once
// Bytes the planner (plan/) holds for a shape, computed from the same buffers
// PlannerScratch and BarrierPlan allocate (unit_test/tstPlanner.cpp checks the
// estimate against a real plan). Used by the planner policy's memory rule.
#include <cstdint>

namespace strata {

struct PlannerStorageBytes {
  std::uint64_t csr = 0;      ///< row_map + entries
  std::uint64_t scratch = 0;  ///< every other planning buffer the walk always holds
  /// Wave-sized spare ordinals: the level counts / frontier of the host
  /// rules T and K, the layout's radix spare when offsets are not the
  /// ordinal type, or chain links when offsets are narrower than ordinals
  /// (else they take the fill cursor's bytes). A fresh plan holds them only when
  /// its path needs them; PlannerScratch::reserve always does. Counted
  /// whether held or not, so total() bounds every mode.
  std::uint64_t spare = 0;
  std::uint64_t result = 0;   ///< the BarrierPlan (level, waves, group offsets at most V + 1)
  /// The host backends' CSR build from a dependency list: one spare index
  /// per dependency (graph/detail/csr_by_row_buckets.hpp), freed before the
  /// plan is allocated, so it counts against `result`, not beside it. 0
  /// unless asked (device backends, a CSR the caller built).
  std::uint64_t build = 0;
  std::uint64_t total() const { return csr + scratch + spare + (build > result ? build : result); }
};

/// `reverse` adds the in-edge CSR and cursors of the dense and hybrid modes;
/// `host_csr_build` the host backends' CSR build (`build`).
inline PlannerStorageBytes planner_storage_bytes(std::uint64_t waves, std::uint64_t dependencies,
                                                 unsigned ordinal_bytes, unsigned offset_bytes,
                                                 bool reverse = false,
                                                 bool host_csr_build = false) {
  PlannerStorageBytes b;
  b.csr = (waves + 1) * offset_bytes + dependencies * ordinal_bytes;
  // fill cursor (then release counts, chain links or rule K's outboxes)
  // and remaining in-degree (with the chain distances, then the layout's
  // spare), both offsets; the walk writes the scheduled waves straight into
  // the result's `waves`
  b.scratch = waves * 2ull * offset_bytes;
  b.spare = waves * std::uint64_t(ordinal_bytes);
  if (reverse) b.scratch += b.csr + waves * offset_bytes;  // in-edge CSR + per-wave cursor
  b.result = waves * 2ull * ordinal_bytes + (waves + 1) * ordinal_bytes;
  if (host_csr_build)
    b.build = dependencies * std::uint64_t(ordinal_bytes > offset_bytes ? ordinal_bytes : offset_bytes);
  return b;
}

}  // namespace strata
