// strata_bench: planning time of every generated graph x planner mode on
// Kokkos::DefaultExecutionSpace, beside (a) the in-project serial reference
// (reference_kahn, a plain host port of the seed's algorithm) and (b) Kokkos
// Kernels' sptrsv_symbolic level set, in the same run. Writes a table on
// stdout and a JSON file (--json). How to run it and what each column means:
// docs/performance.md.
//
// What is timed (wall clock, one call, median over --repetitions):
//   strata modes   plan_barriers(space, V, dependencies View, scratch, mode)
//                  with a fresh PlannerScratch per call: validation, CSR build,
//                  the layers and the layout, everything allocated inside
//                  (auto+scratch: the same with one scratch reused across calls;
//                  auto+csr: the CSR built outside the timed region, as KK's is;
//                  auto+in-csr: plan_in_edges from the very in-edge CSR KK is
//                  given, built outside the timed region).
//                  The dependencies are already in a View of the default
//                  memory space; parsing and generation are never timed.
//   reference      reference_kahn(V, host dependencies): validation, its CSR
//                  build, Kahn with current/next lists, per-group sort.
//   kk             create_sptrsv_handle + sptrsv_symbolic on a CSR of in-edges
//                  (row i lists the j < i it waits for) built outside the timed
//                  region; only where every dependency has before < after.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <strata/generate/graph_generators.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/plan_in_edges.hpp>
#include <strata/plan/reference_kahn.hpp>
#include <strata/version.hpp>

#include "bench_support.hpp"
#include "kokkos_kernels_sptrsv.hpp"  // unit_test/

namespace {

using namespace strata_bench;
using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using Ordinal = std::uint32_t;
using Offset = std::uint32_t;
using Dep = strata::WaveDependency<Ordinal>;

// ---------------------------------------------------------------------------
// Peak memory, measured: Kokkos' allocate/deallocate tool callbacks (the same
// C interface in Kokkos 3.4 and 4.x) count live bytes per memory space. They
// are installed only around an extra, untimed call, so timed calls see no tool.
using LabelBytes = std::vector<std::pair<std::string, std::uint64_t>>;

struct SpaceBytes {
  char name[64] = {0};
  std::int64_t live = 0;
  std::int64_t peak = 0;
  std::int64_t plan_live = 0;     ///< of `live`: the returned plan's Views
  std::int64_t working_peak = 0;  ///< peak of live - plan_live
  /// The live allocations (address -> label, bytes), and what of them was
  /// working memory at the working peak (bytes per label, largest first):
  /// where a peak comes from.
  std::unordered_map<const void*, std::pair<std::string, std::int64_t>> allocations;
  LabelBytes at_working_peak;
};

/// The bytes of each memory space the callbacks have seen (space_bytes); the
/// returned plan's Views are told apart by strata::is_plan_view_label.
SpaceBytes g_spaces[8];

std::string json_label_bytes(const LabelBytes& labels) {
  std::ostringstream out;
  out << "{";
  for (std::size_t i = 0; i < labels.size(); ++i)
    out << (i ? ", " : "") << json_string(labels[i].first) << ": " << labels[i].second;
  out << "}";
  return out.str();
}

SpaceBytes& space_bytes(const char* name) {
  for (auto& s : g_spaces) {
    if (s.name[0] == 0) {
      std::snprintf(s.name, sizeof(s.name), "%s", name);
      return s;
    }
    if (std::strcmp(s.name, name) == 0) return s;
  }
  return g_spaces[7];  // more than 8 spaces: lump the rest together
}

void on_allocate(const Kokkos_Profiling_SpaceHandle handle, const char* label, const void* ptr,
                 const std::uint64_t size) {
  SpaceBytes& s = space_bytes(handle.name);
  s.live += static_cast<std::int64_t>(size);
  if (strata::is_plan_view_label(label)) s.plan_live += static_cast<std::int64_t>(size);
  s.peak = std::max(s.peak, s.live);
  s.allocations[ptr] = {label != nullptr ? label : "", static_cast<std::int64_t>(size)};
  if (s.live - s.plan_live <= s.working_peak) return;
  s.working_peak = s.live - s.plan_live;
  std::map<std::string, std::uint64_t> by_label;
  for (const auto& a : s.allocations)
    if (!strata::is_plan_view_label(a.second.first.c_str()))
      by_label[a.second.first] += static_cast<std::uint64_t>(a.second.second);
  s.at_working_peak.assign(by_label.begin(), by_label.end());
  std::stable_sort(s.at_working_peak.begin(), s.at_working_peak.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}
void on_deallocate(const Kokkos_Profiling_SpaceHandle handle, const char* label, const void* ptr,
                   const std::uint64_t size) {
  SpaceBytes& s = space_bytes(handle.name);
  s.live -= static_cast<std::int64_t>(size);
  if (strata::is_plan_view_label(label)) s.plan_live -= static_cast<std::int64_t>(size);
  s.allocations.erase(ptr);
}

struct PeakBytes {
  std::uint64_t total = 0;    ///< everything the call held at once, the returned plan included
  std::uint64_t working = 0;  ///< the same without the returned plan's Views
  LabelBytes working_labels;  ///< the working peak's bytes per allocation label
};

/// Runs `f` with the callbacks on; returns the peak bytes that `f` held at once
/// in the execution space's memory space (allocations from before are not
/// counted), with and without the returned plan's Views.
template <class F>
PeakBytes peak_bytes_of(F&& f) {
  for (auto& s : g_spaces) s = SpaceBytes{};
  Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocate);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(on_deallocate);
  try {
    f();
  } catch (...) {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
    throw;
  }
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  const SpaceBytes& s = space_bytes(MemSpace::name());
  return {static_cast<std::uint64_t>(s.peak), static_cast<std::uint64_t>(s.working_peak),
          s.at_working_peak};
}

struct Options {
  bool quick = false;
  std::string filter;
  std::vector<std::string> filters;  ///< --filter A,B: graphs whose name contains A or B
  int repetitions = 5;
  std::string json = "strata_bench.json";
  std::vector<std::string> modes = {"auto",   "auto+scratch", "auto+csr", "auto+in-csr",
                                    "sparse", "dense",        "hybrid",   "fused"};
  bool kk = true;
  bool reference = true;
  bool profile = false;  ///< per-kernel times of one extra call of auto, auto+csr, auto+in-csr
  double dense_max_work = 4e9;     ///< dense: groups x waves wave visits
  double stepwise_max_layers = 2e5;  ///< sparse / hybrid: launches per layer
  double kk_max_work = 1.2e10;     ///< KK before 4.6: levels x rows row visits
  std::string command_line;
};

struct Spec {
  std::string name;
  std::function<strata::generate::GeneratedGraph()> make;
};

std::vector<Spec> graph_specs(bool quick) {
  namespace g = strata::generate;
  using g::TreeDirection;
  if (quick)
    return {
        {"sweep2d-40", [] { return g::sweep2d(40, 40); }},
        {"sweep3d-12", [] { return g::sweep3d(12, 12, 12); }},
        {"random-2k-10k", [] { return g::random_dag(2000, 10000, 1); }},
        {"layered-50x10", [] { return g::layered(50, 10, 4, 10, true, 1); }},
        {"chain-1k", [] { return g::chain(1000); }},
        {"fanout-1k", [] { return g::fanout(1000); }},
        {"fanin-1k", [] { return g::fanin(1000); }},
        {"tree-out-1k", [] { return g::binary_tree(1023, TreeDirection::Out); }},
        {"tree-in-1k", [] { return g::binary_tree(1023, TreeDirection::In); }},
        {"ilu2d-40", [] { return g::ilu2d(40, 40, 1); }},
        {"ilu3d-12", [] { return g::ilu3d(12, 12, 12, 1); }},
        {"powerlaw-2k", [] { return g::power_law(2000, 4, 1); }},
    };
  return {
      {"sweep2d-2000", [] { return g::sweep2d(2000, 2000); }},
      {"sweep3d-200", [] { return g::sweep3d(200, 200, 200); }},
      {"random-2M-10M", [] { return g::random_dag(2000000, 10000000, 1); }},
      {"layered-10000x100", [] { return g::layered(10000, 100, 4, 10, true, 1); }},
      {"chain-1M", [] { return g::chain(1000000); }},
      {"fanout-1M", [] { return g::fanout(1000000); }},
      {"fanin-1M", [] { return g::fanin(1000000); }},
      {"tree-out-2M", [] { return g::binary_tree((1u << 21) - 1, TreeDirection::Out); }},
      {"tree-in-2M", [] { return g::binary_tree((1u << 21) - 1, TreeDirection::In); }},
      {"ilu2d-2000", [] { return g::ilu2d(2000, 2000, 1); }},
      {"ilu3d-160", [] { return g::ilu3d(160, 160, 160, 1); }},
      {"powerlaw-2M", [] { return g::power_law(2000000, 4, 1); }},
  };
}

// ---------------------------------------------------------------------------
// Result of one graph.
struct ModeResult {
  std::string mode;
  std::string skipped;  ///< non-empty: why it did not run
  Timing timing;
  std::uint64_t peak_bytes = 0;     ///< the call's peak, the returned plan included
  std::uint64_t working_bytes = 0;  ///< the call's peak without the returned plan
  LabelBytes working_labels;        ///< working_bytes per allocation label
  std::uint64_t plan_bytes = 0;     ///< the returned plan's Views (level, waves, group offsets)
  std::uint64_t groups = 0;
  bool plan_matches_reference = false;
  strata::PlanStatistics statistics;
  std::vector<Phase> phases;  ///< --profile only
};

struct KkResult {
  std::string skipped;
  Timing timing;
  std::uint64_t levels = 0;
  std::uint64_t peak_bytes = 0;
};

struct GraphResult {
  std::string name, description;
  std::uint64_t waves = 0, deps = 0, groups = 0;
  bool topological_ids = false;
  std::uint64_t csr_bytes = 0, input_bytes = 0;
  double generate_seconds = 0;
  Timing reference;
  std::vector<ModeResult> modes;
  KkResult kk;
};

bool same_as_reference(const strata::BarrierPlan<ExecSpace, Ordinal>& plan,
                       const strata::ReferencePlan& ref) {
  const auto host = plan.host_mirror();
  if (host.group_count() != ref.group_count()) return false;
  for (std::size_t g = 0; g < ref.group_offsets.size(); ++g)
    if (host.group_offsets(g) != ref.group_offsets[g]) return false;
  for (std::size_t i = 0; i < ref.waves.size(); ++i)
    if (host.waves(i) != ref.waves[i]) return false;
  return true;
}

std::uint64_t plan_bytes_of(const strata::BarrierPlan<ExecSpace, Ordinal>& plan) {
  return (plan.level.span() + plan.waves.span() + plan.group_offsets.span()) * sizeof(Ordinal);
}

bool kk_symbolic_is_linear() {
  // Read in the sources: Kokkos Kernels 4.6.02's lower_tri_symbolic assigns
  // levels in one pass over the rows (O(rows + nnz)); 3.4's rescans every row
  // once per level (O(levels x rows)). Versions in between are treated as the
  // latter, which only makes the driver skip more.
  int major = 0, minor = 0;
  std::sscanf(STRATA_BENCH_KOKKOSKERNELS_VERSION, "%d.%d", &major, &minor);
  return major > 4 || (major == 4 && minor >= 6);
}

// CSR of in-edges, lower triangular: row i lists every j < i that i waits
// for (duplicates kept, as the planner keeps them), int offsets as Kokkos
// Kernels takes them: what Kokkos Kernels' symbolic phase and the
// auto+in-csr mode (strata::plan_in_edges) are given. Built untimed.
struct InEdgeCsr {
  Kokkos::View<int*, MemSpace> row_map, entries;
};

InEdgeCsr in_edge_csr(const std::vector<Dep>& deps, std::uint64_t waves) {
  InEdgeCsr csr{Kokkos::View<int*, MemSpace>("in-edge row_map", waves + 1),
                Kokkos::View<int*, MemSpace>("in-edge entries", deps.size())};
  auto h_row = Kokkos::create_mirror_view(csr.row_map);
  auto h_ent = Kokkos::create_mirror_view(csr.entries);
  Kokkos::deep_copy(h_row, 0);
  for (const auto& d : deps) ++h_row(d.after + 1);
  for (std::uint64_t i = 0; i < waves; ++i) h_row(i + 1) += h_row(i);
  std::vector<int> cursor(h_row.data(), h_row.data() + waves);
  for (const auto& d : deps) h_ent(cursor[d.after]++) = static_cast<int>(d.before);
  Kokkos::deep_copy(csr.row_map, h_row);
  Kokkos::deep_copy(csr.entries, h_ent);
  return csr;
}

/// Why a graph has no in-edge CSR for Kokkos Kernels or auto+in-csr (empty: it has one).
std::string in_edge_csr_unavailable(const std::vector<Dep>& deps, std::uint64_t waves,
                                    bool topological_ids) {
  if (!topological_ids) return "n/a: ids not topologically ordered";
  if (waves > 0x7fffffffull || deps.size() > 0x7fffffffull)
    return "n/a: more than 2^31 rows or entries for int offsets";
  return "";
}

KkResult run_kk(const Options& opt, const std::vector<Dep>& deps, std::uint64_t waves,
                std::uint64_t groups, bool topological_ids) {
  KkResult r;
  if (!opt.kk) {
    r.skipped = "n/a: disabled (--no-kk)";
    return r;
  }
  r.skipped = in_edge_csr_unavailable(deps, waves, topological_ids);
  if (!r.skipped.empty()) return r;
  const double work = double(groups) * double(waves);
  if (!kk_symbolic_is_linear() && work > opt.kk_max_work) {
    std::ostringstream s;
    s << "skipped: Kokkos Kernels " << STRATA_BENCH_KOKKOSKERNELS_VERSION
      << " rescans all rows once per level (" << groups << " x " << waves << " = " << std::setprecision(3)
      << work << " row visits > --kk-max-work " << opt.kk_max_work << ")";
    r.skipped = s.str();
    return r;
  }
  const InEdgeCsr csr = in_edge_csr(deps, waves);
  const auto row_map = csr.row_map;
  const auto entries = csr.entries;
  auto symbolic = [&](std::uint64_t* levels) {
    strata_sptrsv_test::KkHandle<ExecSpace, MemSpace> kh;
    kh.create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1,
                            static_cast<int>(waves), true /*lower*/);
    strata_sptrsv_test::kk_symbolic(kh, row_map, entries);
    ExecSpace().fence();
    if (levels) *levels = static_cast<std::uint64_t>(kh.get_sptrsv_handle()->get_num_levels());
    kh.destroy_sptrsv_handle();
  };
  r.peak_bytes = peak_bytes_of([&] { symbolic(&r.levels); }).total;
  r.timing = time_calls(opt.repetitions, 0, [&] { symbolic(nullptr); });
  return r;
}

// A mode's memory (from its untimed checking call), its kernel profile
// (--profile) and its timing, `plan_fresh` planning once with a fresh scratch.
template <class PlanFresh>
void measure_fresh_plans(const Options& opt, const PeakBytes& peak, bool profile, ModeResult& r,
                         const PlanFresh& plan_fresh) {
  r.peak_bytes = peak.total;
  r.working_bytes = peak.working;
  r.working_labels = peak.working_labels;
  if (profile) r.phases = phases_of(plan_fresh, "(outside kernels: host loop, allocation, launch overhead)");
  r.timing = time_calls(opt.repetitions, 0, plan_fresh);
}

ModeResult run_mode(const Options& opt, const std::string& mode_name,
                    const Kokkos::View<const Dep*, MemSpace>& deps, std::uint64_t waves,
                    std::uint64_t groups, const strata::ReferencePlan* ref) {
  ModeResult r;
  r.mode = mode_name;
  const bool reuse = mode_name == "auto+scratch";
  const bool given_csr = mode_name == "auto+csr";
  const bool chains = mode_name == "chains";  // auto, chain contraction forced (a device's path)
  strata::PlanOptions options;
  options.mode = strata::parse_plan_mode(reuse || given_csr || chains ? "auto" : mode_name);
  if (chains) options.chains = strata::ChainContraction::Always;
  const double layers = double(groups);
  if ((options.mode == strata::PlanMode::Dense) && layers * double(waves) > opt.dense_max_work) {
    std::ostringstream s;
    s << "skipped: bottom-up steps visit every wave per layer (" << groups << " x " << waves
      << " > --dense-max-work " << opt.dense_max_work << ")";
    r.skipped = s.str();
    return r;
  }
  if ((options.mode == strata::PlanMode::Sparse || options.mode == strata::PlanMode::Hybrid) &&
      layers > opt.stepwise_max_layers) {
    std::ostringstream s;
    s << "skipped: two launches and a host read per layer, " << groups
      << " layers > --stepwise-max-layers " << opt.stepwise_max_layers;
    r.skipped = s.str();
    return r;
  }
  const ExecSpace space;
  using Scratch = strata::PlannerScratch<ExecSpace, Ordinal, Offset>;
  if (given_csr) {
    // The CSR built outside the timed region (like Kokkos Kernels' input);
    // timed: plan_barriers(space, graph, fresh scratch) — layers and layout.
    strata::DependencyGraphStorage<ExecSpace, Ordinal, Offset> storage;
    const auto graph = strata::build_dependency_graph(space, waves, deps, storage);
    strata::PlanOptions checked = options;
    checked.statistics = &r.statistics;
    const PeakBytes peak = peak_bytes_of([&] {
      Scratch scratch;
      const auto plan = strata::plan_barriers(space, graph, scratch, checked);
      r.plan_bytes = plan_bytes_of(plan);
      r.groups = plan.group_count();
      r.plan_matches_reference = ref ? same_as_reference(plan, *ref) : true;
    });
    measure_fresh_plans(opt, peak, opt.profile, r, [&] {
      Scratch scratch;
      strata::plan_barriers(space, graph, scratch, options);
    });
    return r;
  }
  // Correctness and memory: one untimed call (fresh scratch, statistics on).
  strata::PlanOptions checked = options;
  checked.statistics = &r.statistics;
  const PeakBytes peak = peak_bytes_of([&] {
    Scratch scratch;
    const auto plan = strata::plan_barriers(space, waves, deps, scratch, checked);
    r.plan_bytes = plan_bytes_of(plan);
    r.groups = plan.group_count();
    r.plan_matches_reference = ref ? same_as_reference(plan, *ref) : true;
  });
  if (reuse) {
    r.peak_bytes = peak.total;
    r.working_bytes = peak.working;
    r.working_labels = peak.working_labels;
    Scratch scratch;
    strata::plan_barriers(space, waves, deps, scratch, options);  // warm: sized once
    r.timing = time_calls(opt.repetitions, 0,
                          [&] { strata::plan_barriers(space, waves, deps, scratch, options); });
  } else {
    measure_fresh_plans(opt, peak, opt.profile && mode_name == "auto", r, [&] {
      Scratch scratch;
      strata::plan_barriers(space, waves, deps, scratch, options);
    });
  }
  return r;
}

// auto+in-csr: strata::plan_in_edges from the in-edge CSR Kokkos Kernels is
// given (built untimed; its peak bytes exclude it): the seam for a caller
// that holds a triangular matrix, on the same input as Kokkos Kernels.
ModeResult run_in_csr_mode(const Options& opt, const std::vector<Dep>& host_deps,
                           std::uint64_t waves, bool topological_ids,
                           const strata::ReferencePlan* ref) {
  ModeResult r;
  r.mode = "auto+in-csr";
  r.skipped = in_edge_csr_unavailable(host_deps, waves, topological_ids);
  if (!r.skipped.empty()) return r;
  const InEdgeCsr csr = in_edge_csr(host_deps, waves);
  const ExecSpace space;
  using Scratch = strata::PlannerScratch<ExecSpace, Ordinal, Offset>;
  const auto plan_once = [&](Scratch& scratch) {
    return strata::plan_in_edges(space, csr.row_map, csr.entries, /*mirrored=*/false, scratch);
  };
  bool planned = false;
  const PeakBytes peak = peak_bytes_of([&] {
    Scratch scratch;
    const auto plan = plan_once(scratch);
    planned = plan.has_value();
    if (!planned) return;
    r.plan_bytes = plan_bytes_of(*plan);
    r.groups = plan->group_count();
    r.plan_matches_reference = ref ? same_as_reference(*plan, *ref) : true;
  });
  if (!planned) {
    r.skipped =
        "n/a: plan_in_edges declined, the graph is deeper than its device pass's budget "
        "(PlanPolicy::ticket_depth_budget()); its caller plans the dependency list then";
    return r;
  }
  measure_fresh_plans(opt, peak, opt.profile, r, [&] {
    Scratch scratch;
    plan_once(scratch);
  });
  return r;
}

GraphResult run_graph(const Options& opt, const Spec& spec) {
  GraphResult r;
  r.name = spec.name;
  std::vector<Dep> host_deps;
  {
    const auto start = Clock::now();
    const auto g = spec.make();
    r.generate_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.description = g.description;
    r.waves = g.wave_count;
    r.topological_ids = strata::generate::ids_topologically_ordered(g);
    host_deps = strata::generate::narrowed<Ordinal>(g);
  }
  r.deps = host_deps.size();
  r.csr_bytes = (r.waves + 1) * sizeof(Offset) + r.deps * sizeof(Ordinal);
  r.input_bytes = r.deps * sizeof(Dep);

  // (a) the serial reference: also the plan every mode is checked against.
  strata::ReferencePlan ref = strata::reference_kahn(r.waves, host_deps);
  r.groups = ref.group_count();
  if (opt.reference)
    r.reference = time_calls(opt.repetitions, 0, [&] {
      const auto p = strata::reference_kahn(r.waves, host_deps.data(), host_deps.size());
      if (p.group_count() != r.groups) std::abort();
    });

  // The dependencies in the execution space's memory (no copy on host backends).
  const Kokkos::View<const Dep*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host_view(host_deps.data(), host_deps.size());
  const Kokkos::View<const Dep*, MemSpace> deps =
      Kokkos::create_mirror_view_and_copy(MemSpace(), host_view);
  for (const auto& m : opt.modes)
    r.modes.push_back(m == "auto+in-csr"
                          ? run_in_csr_mode(opt, host_deps, r.waves, r.topological_ids, &ref)
                          : run_mode(opt, m, deps, r.waves, r.groups, &ref));
  ref = strata::ReferencePlan{};

  // (b) Kokkos Kernels' level set.
  r.kk = run_kk(opt, host_deps, r.waves, r.groups, r.topological_ids);
  return r;
}

// ---------------------------------------------------------------------------
// Output.
void write_json(const Options& opt, const std::vector<GraphResult>& results,
                const std::string& date, const std::string& load_start) {
  std::ofstream out(opt.json);
  out << "{\n  \"schema\": \"strata-bench/1\",\n  \"environment\": {\n"
      << json_environment(opt.command_line, date, load_start)
      << "    \"memory_space\": " << json_string(MemSpace::name()) << ",\n"
      << "    \"kk_symbolic\": "
      << json_string(std::string(kk_symbolic_is_linear() ? "one pass over the rows"
                                                          : "rescans all rows once per level") +
                     ", on the host (host mirrors of the CSR, levels copied back to the device)")
      << ",\n"
      << "    \"set\": " << json_string(opt.quick ? "quick" : "full") << ",\n"
      << "    \"repetitions\": " << opt.repetitions << "\n  },\n"
      << "  \"notes\": {\n"
      << "    \"strata\": " << json_string("plan_barriers from a View of dependencies in the default memory space: validation + CSR build + layers + layout, fresh PlannerScratch per call; auto+scratch reuses one scratch (warm); auto+csr plans from a DependencyGraph (CSR) built outside the timed region, as Kokkos Kernels' input is, and its peak_bytes exclude that CSR; auto+in-csr is plan_in_edges from the in-edge CSR Kokkos Kernels is given (topological ids only), its peak_bytes excluding that CSR. chains is auto with chain contraction forced (ChainContraction::Always: the path a device backend takes on chain-like graphs). Parsing and generation are not timed.") << ",\n"
      << "    \"reference\": " << json_string("reference_kahn on the host dependency array: validation + its own CSR build + Kahn + per-group sort (serial).") << ",\n"
      << "    \"kk\": " << json_string("create_sptrsv_handle(SEQLVLSCHD_TP1, lower) + sptrsv_symbolic; the in-edge CSR (row i lists j < i) is prepared outside the timed region. Only for graphs whose ids are topologically ordered.") << ",\n"
      << "    \"peak_bytes\": " << json_string("peak live bytes in the execution space's memory space during one call, from Kokkos' allocate/deallocate callbacks, the returned plan included; the input dependency View (input_bytes) already existed and is not counted. working_peak_bytes: the peak of the same count without the returned plan's Views (labels strata::wave levels, strata::plan waves, strata::group offsets: the caller's result); plan_bytes: those Views' bytes (2 x waves + groups + 1 ordinals). working_peak_labels: the working peak's bytes per allocation label, largest first (where the peak comes from).") << ",\n"
      << "    \"csr_bytes\": " << json_string("(waves + 1) * 4 + deps * 4: the CSR the planner builds (32-bit offsets and ordinals).") << "\n  },\n"
      << "  \"graphs\": [\n";
  for (std::size_t gi = 0; gi < results.size(); ++gi) {
    const auto& g = results[gi];
    out << "    {\"name\": " << json_string(g.name) << ", \"description\": " << json_string(g.description)
        << ",\n     \"waves\": " << g.waves << ", \"deps\": " << g.deps << ", \"groups\": " << g.groups
        << ", \"topological_ids\": " << (g.topological_ids ? "true" : "false")
        << ", \"csr_bytes\": " << g.csr_bytes << ", \"input_bytes\": " << g.input_bytes
        << ", \"generate_s\": " << json_number(g.generate_seconds) << ",\n     \"reference\": "
        << (opt.reference ? json_timing(g.reference) : "null") << ",\n     \"modes\": {";
    for (std::size_t mi = 0; mi < g.modes.size(); ++mi) {
      const auto& m = g.modes[mi];
      out << (mi ? "," : "") << "\n       " << json_string(m.mode) << ": ";
      if (!m.skipped.empty()) {
        out << "{\"skipped\": " << json_string(m.skipped) << "}";
        continue;
      }
      const double csr = double(std::max<std::uint64_t>(g.csr_bytes, 1));
      out << "{\"time\": " << json_timing(m.timing) << ", \"peak_bytes\": " << m.peak_bytes
          << ", \"peak_over_csr\": " << json_number(double(m.peak_bytes) / csr)
          << ", \"working_peak_bytes\": " << m.working_bytes
          << ", \"working_over_csr\": " << json_number(double(m.working_bytes) / csr)
          << ", \"working_peak_labels\": " << json_label_bytes(m.working_labels)
          << ", \"plan_bytes\": " << m.plan_bytes
          << ", \"plan_over_csr\": " << json_number(double(m.plan_bytes) / csr)
          << ", \"groups\": " << m.groups
          << ", \"plan_matches_reference\": " << (m.plan_matches_reference ? "true" : "false")
          << ", \"sparse_layers\": " << m.statistics.sparse_layers
          << ", \"dense_layers\": " << m.statistics.dense_layers
          << ", \"fused\": " << (m.statistics.fused ? "true" : "false")
          << ", \"fused_from_layer\": " << m.statistics.fused_from_layer
          << ", \"topological\": " << (m.statistics.topological ? "true" : "false")
          << ", \"first_decision\": " << json_string(m.statistics.first_decision)
          << ", \"waves_per_s\": " << json_number(double(g.waves) / m.timing.median())
          << ", \"deps_per_s\": " << json_number(double(g.deps) / m.timing.median());
      out << json_phases(m.phases);
      out << "}";
    }
    out << "},\n     \"kk\": ";
    if (!g.kk.skipped.empty())
      out << "{\"skipped\": " << json_string(g.kk.skipped) << "}";
    else
      out << "{\"time\": " << json_timing(g.kk.timing) << ", \"levels\": " << g.kk.levels
          << ", \"levels_match_groups\": " << (g.kk.levels == g.groups ? "true" : "false")
          << ", \"peak_bytes\": " << g.kk.peak_bytes << "}";
    out << "}" << (gi + 1 < results.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

std::string fmt_time(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(s < 0.01 ? 5 : 3) << s;
  return o.str();
}

void print_row(const Options& opt, const GraphResult& g) {
  std::ostringstream line;
  line << std::left << std::setw(18) << g.name << std::right << std::setw(9) << g.waves
       << std::setw(10) << g.deps << std::setw(8) << g.groups;
  const ModeResult* automatic = nullptr;
  for (const auto& m : g.modes) {
    line << std::setw(13) << (m.skipped.empty() ? fmt_time(m.timing.median()) : std::string("-"));
    if (m.mode == "auto" && m.skipped.empty()) automatic = &m;
  }
  line << std::setw(10) << (opt.reference ? fmt_time(g.reference.median()) : "-");
  line << std::setw(10) << (g.kk.skipped.empty() ? fmt_time(g.kk.timing.median()) : "n/a");
  if (automatic) {
    const double t = automatic->timing.median();
    line << std::setw(9) << std::fixed << std::setprecision(2) << (opt.reference ? g.reference.median() / t : 0.0)
         << std::setw(9) << (g.kk.skipped.empty() ? g.kk.timing.median() / t : 0.0);
    const double csr = double(std::max<std::uint64_t>(g.csr_bytes, 1));
    line << std::setw(9) << double(automatic->peak_bytes) / csr << std::setw(9)
         << double(automatic->working_bytes) / csr << std::setw(9)
         << double(automatic->plan_bytes) / csr;
  }
  std::cout << line.str() << "\n";
  for (const auto& m : g.modes) {
    if (m.skipped.empty() && (!m.plan_matches_reference || m.groups != g.groups))
      std::cout << "  MISMATCH: mode " << m.mode << " gave a plan different from the reference\n";
    if (!m.skipped.empty()) std::cout << "  " << m.mode << ": " << m.skipped << "\n";
    if (!m.phases.empty()) {
      std::cout << "  " << m.mode << " profile (one call):";
      for (std::size_t p = 0; p < m.phases.size() && p < 6; ++p)
        std::cout << (p ? ";" : "") << " " << m.phases[p].name << " " << fmt_time(m.phases[p].seconds)
                  << " s x" << m.phases[p].calls;
      std::cout << "\n";
    }
  }
  if (g.kk.skipped.empty())
    std::cout << "  kk levels " << g.kk.levels << (g.kk.levels == g.groups ? " == " : " != ")
              << "groups " << g.groups << (g.kk.levels == g.groups ? " (agree)" : "  MISMATCH") << "\n";
  else
    std::cout << "  kk: " << g.kk.skipped << "\n";
  std::cout.flush();
}

[[noreturn]] void usage(int code) {
  std::cout
      << "usage: strata_bench [--quick] [--filter SUBSTRING[,SUBSTRING...]] [--repetitions N] [--json FILE]\n"
         "                    [--modes auto,auto+scratch,auto+csr,auto+in-csr,sparse,dense,hybrid,fused,chains]\n"
         "                    [--no-kk]\n"
         "                    [--no-reference] [--dense-max-work X] [--stepwise-max-layers X]\n"
         "                    [--kk-max-work X] [--profile] [--list]\n"
         "                    [Kokkos options, e.g. --kokkos-threads=2]\n"
         "Runs on Kokkos::DefaultExecutionSpace (the build's backend). See docs/performance.md.\n";
  if (Kokkos::is_initialized()) Kokkos::finalize();
  std::exit(code);
}

Options parse(int argc, char* argv[], bool* list) {
  Options opt;
  opt.command_line = command_line(argc, argv);
  bool repetitions_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "strata_bench: " << a << " needs a value\n";
        usage(2);
      }
      return argv[++i];
    };
    if (a.rfind("--kokkos-", 0) == 0) continue;
    if (a == "--quick") opt.quick = true;
    else if (a == "--filter") {
      opt.filter = value();
      opt.filters = split(opt.filter);
    }
    else if (a == "--repetitions") { opt.repetitions = std::max(1, std::atoi(value().c_str())); repetitions_given = true; }
    else if (a == "--json") opt.json = value();
    else if (a == "--modes") opt.modes = split(value());
    else if (a == "--no-kk") opt.kk = false;
    else if (a == "--no-reference") opt.reference = false;
    else if (a == "--profile") opt.profile = true;
    else if (a == "--dense-max-work") opt.dense_max_work = std::atof(value().c_str());
    else if (a == "--stepwise-max-layers") opt.stepwise_max_layers = std::atof(value().c_str());
    else if (a == "--kk-max-work") opt.kk_max_work = std::atof(value().c_str());
    else if (a == "--list") *list = true;
    else if (a == "--help" || a == "-h") usage(0);
    else {
      std::cerr << "strata_bench: unknown argument '" << a << "'\n";
      usage(2);
    }
  }
  if (opt.quick && !repetitions_given) opt.repetitions = 1;
  for (const auto& m : opt.modes)
    if (m != "auto+scratch" && m != "auto+csr" && m != "auto+in-csr" && m != "chains")
      strata::parse_plan_mode(m);  // InvalidArgument on a bad name
  return opt;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    bool list = false;
    const Options opt = parse(argc, argv, &list);
    const std::string date = utc_now(), load_start = load_average();
    std::vector<Spec> specs;
    for (auto& s : graph_specs(opt.quick))
      if (opt.filter.empty() || std::any_of(opt.filters.begin(), opt.filters.end(), [&](const std::string& f) {
            return s.name.find(f) != std::string::npos;
          }))
        specs.push_back(s);
    if (list) {
      for (const auto& s : specs) std::cout << s.name << "\n";
    } else {
      std::cout << bench_heading("strata_bench", STRATA_BENCH_KOKKOSKERNELS_VERSION) << ", "
                << opt.repetitions
                << " repetitions (medians, seconds), load " << load_start << "\n";
      std::ostringstream head;
      head << std::left << std::setw(18) << "graph" << std::right << std::setw(9) << "waves"
           << std::setw(10) << "deps" << std::setw(8) << "groups";
      for (const auto& m : opt.modes) head << std::setw(13) << m;
      head << std::setw(10) << "ref" << std::setw(10) << "kk" << std::setw(9) << "ref/auto"
           << std::setw(9) << "kk/auto" << std::setw(9) << "mem/csr" << std::setw(9) << "work/csr"
           << std::setw(9) << "plan/csr";
      std::cout << head.str() << "\n";
      std::vector<GraphResult> results;
      for (const auto& s : specs) {
        results.push_back(run_graph(opt, s));
        print_row(opt, results.back());
        write_json(opt, results, date, load_start);  // after every graph: a partial run leaves valid JSON
      }
      write_json(opt, results, date, load_start);
      for (const auto& g : results)
        for (const auto& m : g.modes)
          if (m.skipped.empty() && (!m.plan_matches_reference || m.groups != g.groups)) rc = 1;
      for (const auto& g : results)
        if (g.kk.skipped.empty() && g.kk.levels != g.groups) rc = 1;
      std::cout << "JSON: " << opt.json << (rc ? "  (plan mismatches: see above)" : "") << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "strata_bench: " << e.what() << "\n";
    rc = 2;
  }
  Kokkos::finalize();
  return rc;
}
