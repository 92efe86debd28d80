#pragma once
// The layer-width profile of a BarrierPlan: how many waves each group holds
// (`strata explain` prints it). Only the plan's group offsets (groups + 1
// entries) are copied to the host.
//
//   min, median, max  over the groups (the median of an even count is the
//                     lower middle value, so it is always a width that occurs)
//   histogram         groups per power-of-two width bucket [1,1], [2,3],
//                     [4,7], ... up to the bucket holding max; empty buckets
//                     in between are kept (a plot reads them as gaps)
// An empty plan has 0 groups, all widths 0 and no buckets.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

namespace strata {

struct LayerWidthBucket {
  std::uint64_t min_width = 0, max_width = 0;  ///< inclusive
  std::uint64_t groups = 0;
};

struct LayerWidthProfile {
  std::uint64_t groups = 0;
  std::uint64_t min = 0, median = 0, max = 0;
  std::vector<LayerWidthBucket> histogram;
};

template <class Plan>
LayerWidthProfile layer_width_profile(const Plan& plan) {
  LayerWidthProfile p;
  const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.group_offsets);
  p.groups = plan.group_count();
  if (p.groups == 0) return p;
  std::vector<std::uint64_t> widths(p.groups);
  for (std::size_t g = 0; g < p.groups; ++g)
    widths[g] = static_cast<std::uint64_t>(offsets(g + 1)) - static_cast<std::uint64_t>(offsets(g));
  std::uint64_t top = 0;
  for (const std::uint64_t w : widths) {
    std::size_t b = 0;
    while ((w >> (b + 1)) != 0) ++b;  // floor(log2(w)), widths are >= 1
    if (b >= p.histogram.size()) p.histogram.resize(b + 1);
    ++p.histogram[b].groups;
    top = std::max(top, w);
  }
  for (std::size_t b = 0; b < p.histogram.size(); ++b) {
    p.histogram[b].min_width = std::uint64_t(1) << b;
    p.histogram[b].max_width = (std::uint64_t(1) << b) * 2 - 1;
  }
  std::sort(widths.begin(), widths.end());
  p.min = widths.front();
  p.max = top;
  p.median = widths[(widths.size() - 1) / 2];
  return p;
}

}  // namespace strata
