// strata_solve_bench: Strata's sparse triangular solve (strata::TriangularSolve,
// every mode and the policy's choice) against Kokkos Kernels' level-set
// solves (SEQLVLSCHD_RP, SEQLVLSCHD_TP1, SEQLVLSCHD_TP1CHAIN), cuSPARSE's
// cusparseSpSV where the build has CUDA, and the serial host substitution, on
// a set of lower factors shaped like real ones, in one run on the build's
// default Kokkos backend.
//
//   strata_solve_bench [--set full|medium|smoke] [--matrices sweep2d,sweep3d,ilu3d,deep8k,deep40k,chain]
//                      [--reps 5] [--json FILE] [FILE.mtx ...]
//
// The set (full sizes; --set medium divides the rows by about 8, --set smoke
// is tiny for CI):
//   sweep2d   natural-order 5-point factor on 1000 x 1000 (1,999 levels)
//   sweep3d   natural-order 7-point factor on 108^3 (1.26M rows, 322 levels)
//   ilu3d     ILU(0) factor of the 7-point Laplacian on 100^3 under a random
//             symmetric permutation (20 levels: the wide case)
//   deep8k    `layered` 188 x 8,000, fan-in 8, ids in topological order
//   deep40k   `layered` 38 x 40,000, fan-in 8
//   chain     700k rows, row i reads i-1 and one to two rows among the 64
//             before it (about one row per level)
//   FILE.mtx  a real, integer or pattern Matrix Market file: its lower
//             triangle (pattern: values as the generated factors)
// Values as unit_test/sptrsv_matrices.hpp (diagonally dominant). Symbolic
// phases are untimed; every method's x is checked against the serial one
// (relative error <= 1e-12) before it is timed, and the run exits 1 if one
// fails. Medians of --reps solves after one untimed warm-up. Ratios: the
// best Kokkos Kernels method's time over the method's (> 1: faster than
// Kokkos Kernels), and cuSPARSE's time over the method's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/generate/graph_generators.hpp>
#include <strata/solve/triangular_solve.hpp>

#if defined(STRATA_BENCH_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

#include "bench_support.hpp"
#include "kokkos_kernels_sptrsv.hpp"

namespace {

using namespace strata_bench;
using strata_sptrsv_test::HostCsr;
using ExecSpace = Kokkos::DefaultExecutionSpace;
using Mem = ExecSpace::memory_space;
using Handle = strata_sptrsv_test::KkHandle<ExecSpace>;
using Algorithm = strata_sptrsv_test::KkAlgorithm;
using strata_sptrsv_test::device_copy;
using strata_sptrsv_test::kk_solve;
using strata_sptrsv_test::kk_symbolic;
using Solve = strata::TriangularSolve<ExecSpace, int, int, double>;
using strata::solve::SolveMode;

struct Options {
  std::string set = "full";
  std::vector<std::string> matrices{"sweep2d", "sweep3d", "ilu3d", "deep8k", "deep40k", "chain"};
  std::vector<std::string> files;
  int reps = 5;
  bool tune = false;  ///< also time SolvePolicy's knobs (device: rules A, D, R, V; host: O)
  std::string json = "strata_solve_bench.json";
  std::string command;
};

Options parse(int argc, char* argv[]) {
  Options o;
  o.command = command_line(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--set") o.set = value();
    else if (a == "--matrices") o.matrices = split(value());
    else if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--json") o.json = value();
    else if (a == "--tune") o.tune = true;
    else if (a == "--help") {
      std::cout << "strata_solve_bench [--set full|medium|smoke] [--matrices "
                   "sweep2d,sweep3d,ilu3d,deep8k,deep40k,chain] [--reps 5] [--json FILE] [--tune] "
                   "[FILE.mtx ...]\n";
      std::exit(0);
    } else if (a.rfind("--kokkos", 0) == 0) continue;
    else if (a.rfind("--", 0) == 0) throw std::invalid_argument("unknown option " + a);
    else o.files.push_back(a);
  }
  if (o.set != "full" && o.set != "medium" && o.set != "smoke")
    throw std::invalid_argument("--set is full, medium or smoke");
  if (o.reps < 1) throw std::invalid_argument("--reps must be >= 1");
  return o;
}

/// Row i reads i-1 and one or two of the 64 rows before it.
HostCsr chain_like(int rows, std::uint64_t seed) {
  strata::generate::GeneratedGraph g;
  g.wave_count = static_cast<std::uint64_t>(rows);
  strata::generate::SplitMix64 rng(seed);
  for (int i = 1; i < rows; ++i) {
    const std::uint64_t u = static_cast<std::uint64_t>(i);
    g.dependencies.push_back({u - 1, u});
    const std::uint64_t extra = 1 + rng.below(2);
    for (std::uint64_t e = 0; e < extra && i > 2; ++e) {
      const std::uint64_t back = 2 + rng.below(std::min<std::uint64_t>(63, u - 1));
      g.dependencies.push_back({u - std::min(back, u), u});
    }
  }
  return strata_sptrsv_test::lower_from_pattern(g);
}

HostCsr generated(const std::string& name, const std::string& set, std::string& label) {
  namespace gen = strata::generate;
  const bool full = set == "full", smoke = set == "smoke";
  auto pick = [&](std::uint64_t f, std::uint64_t m, std::uint64_t s) { return full ? f : smoke ? s : m; };
  if (name == "sweep2d") {
    const std::uint64_t n = pick(1000, 350, 30);
    label = "sweep2d-" + std::to_string(n);
    return strata_sptrsv_test::lower_from_pattern(gen::sweep2d(n, n));
  }
  if (name == "sweep3d") {
    const std::uint64_t n = pick(108, 54, 8);
    label = "sweep3d-" + std::to_string(n);
    return strata_sptrsv_test::lower_from_pattern(gen::sweep3d(n, n, n));
  }
  if (name == "ilu3d") {
    const std::uint64_t n = pick(100, 50, 8);
    label = "ilu3d-" + std::to_string(n);
    return strata_sptrsv_test::lower_from_pattern(gen::ilu3d(n, n, n, 1));
  }
  if (name == "deep8k" || name == "deep40k") {
    const bool deep = name == "deep40k";
    const std::uint64_t depth = deep ? pick(40000, 40000, 400) : pick(8000, 8000, 80);
    const std::uint64_t width = deep ? pick(38, 5, 5) : pick(188, 24, 6);
    label = name + "-" + std::to_string(width) + "x" + std::to_string(depth);
    return strata_sptrsv_test::lower_from_pattern(gen::layered(width, depth, 8, 0, false, 7));
  }
  if (name == "chain") {
    const int rows = static_cast<int>(pick(700000, 100000, 2000));
    label = "chain-" + std::to_string(rows);
    return chain_like(rows, 11);
  }
  throw std::invalid_argument("unknown matrix " + name);
}

/// The lower triangle of a Matrix Market file (coordinate; real, integer or
/// pattern; general or symmetric), columns ascending, diagonal supplied.
HostCsr read_mtx(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::string banner;
  std::getline(in, banner);
  const bool pattern = banner.find("pattern") != std::string::npos;
  if (banner.find("coordinate") == std::string::npos)
    throw std::invalid_argument(path + ": only coordinate Matrix Market files");
  std::string line;
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {}
  std::istringstream size(line);
  long long rows = 0, cols = 0, nnz = 0;
  size >> rows >> cols >> nnz;
  std::vector<std::vector<std::pair<int, double>>> r(static_cast<std::size_t>(rows));
  for (long long k = 0; k < nnz; ++k) {
    long long i = 0, j = 0;
    double v = 1.0;
    in >> i >> j;
    if (!pattern) in >> v;
    if (i < j) std::swap(i, j);  // symmetric files store one triangle: take it as the lower
    r[static_cast<std::size_t>(i - 1)].push_back({static_cast<int>(j - 1), v});
  }
  HostCsr a;
  a.rows = static_cast<int>(rows);
  for (int i = 0; i < a.rows; ++i) {
    auto& row = r[static_cast<std::size_t>(i)];
    row.push_back({i, 0.0});
    std::sort(row.begin(), row.end(), [](auto x, auto y) { return x.first < y.first; });
    row.erase(std::unique(row.begin(), row.end(), [](auto x, auto y) { return x.first == y.first; }), row.end());
    for (const auto& e : row) a.entries.push_back(e.first);
    a.row_map.push_back(static_cast<int>(a.entries.size()));
  }
  strata_sptrsv_test::assign_values(a);  // deterministic, diagonally dominant
  return a;
}

std::vector<double> serial_solve(const HostCsr& a, const std::vector<double>& b) {
  std::vector<double> x(b.size());
  for (int i = 0; i < a.rows; ++i) {
    double sum = b[i], d = 1.0;
    for (int p = a.row_map[i]; p < a.row_map[i + 1]; ++p) {
      if (a.entries[p] == i) d = a.values[p];
      else sum -= a.values[p] * x[a.entries[p]];
    }
    x[i] = sum / d;
  }
  return x;
}

double relative_error(const Kokkos::View<double*, Mem>& x, const std::vector<double>& ref) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = std::abs(h(i) - ref[i]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    norm = std::max(norm, std::abs(ref[i]));
  }
  return norm == 0 ? diff : diff / norm;
}

struct Method {
  std::string name;
  Timing time;
  double error = 0;
  bool ran = false;
  std::string note;  ///< the schedule (Strata) or why a method did not run
  /// Device memory its handle holds beyond the matrix (Strata's
  /// workspace_bytes(); Kokkos Kernels' level list, rows grouped by level and
  /// level sizes; cuSPARSE's buffer); 0 where not known (the serial one).
  /// Host memory is left out on both sides: Strata's host_bytes() (per
  /// level) and Kokkos Kernels 3.4's host copies of the last two (per row).
  std::uint64_t workspace_bytes = 0;
};

struct Record {
  std::string matrix;
  std::int64_t rows = 0, nonzeros = 0;
  std::uint64_t levels = 0;
  std::vector<Method> methods;
  double best_kk = 0, cusparse = 0;
};

std::string schedule_note(const Solve& ts) {
  std::ostringstream s;
  const auto& sch = ts.schedule();
  for (std::size_t i = 0; i < sch.stretches.size(); ++i) {
    const auto& st = sch.stretches[i];
    s << (i ? "+" : "") << (st.block_rows != 0 ? "pipelined" : strata::solve::solve_mode_name(st.mode))
      << "[" << st.end_level - st.first_level << "]";
    if (st.block_rows != 0) s << "/" << st.block_rows;
  }
  return s.str();
}

#if defined(STRATA_BENCH_CUSPARSE)
#define STRATA_CUSPARSE_CHECK(call)                                                        \
  do {                                                                                     \
    const cusparseStatus_t status_ = (call);                                               \
    if (status_ != CUSPARSE_STATUS_SUCCESS)                                                \
      throw std::runtime_error(std::string("cuSPARSE: ") + #call + ": " +                   \
                               cusparseGetErrorString(status_));                           \
  } while (0)

/// cusparseSpSV on the lower triangle (analysis untimed).
Method run_cusparse(int reps, const HostCsr& a, const Kokkos::View<int*, Mem>& row_map,
                    const Kokkos::View<int*, Mem>& entries, const Kokkos::View<double*, Mem>& values,
                    const Kokkos::View<double*, Mem>& b, const std::vector<double>& ref) {
  Method m;
  m.name = "cusparse-SpSV";
  Kokkos::View<double*, Mem> x("x cusparse", a.rows);
  cusparseHandle_t handle = nullptr;
  STRATA_CUSPARSE_CHECK(cusparseCreate(&handle));
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vb = nullptr, vx = nullptr;
  cusparseSpSVDescr_t sv = nullptr;
  const std::int64_t n = a.rows, nnz = static_cast<std::int64_t>(a.entries.size());
  STRATA_CUSPARSE_CHECK(cusparseCreateCsr(&mat, n, n, nnz, row_map.data(), entries.data(), values.data(),
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  STRATA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
  STRATA_CUSPARSE_CHECK(cusparseSpMatSetAttribute(mat, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
  STRATA_CUSPARSE_CHECK(cusparseCreateDnVec(&vb, n, b.data(), CUDA_R_64F));
  STRATA_CUSPARSE_CHECK(cusparseCreateDnVec(&vx, n, x.data(), CUDA_R_64F));
  STRATA_CUSPARSE_CHECK(cusparseSpSV_createDescr(&sv));
  const double one = 1.0;
  std::size_t bytes = 0;
  STRATA_CUSPARSE_CHECK(cusparseSpSV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vb, vx,
                                                CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv, &bytes));
  Kokkos::View<char*, Mem> buffer("cusparse buffer", bytes == 0 ? 1 : bytes);
  m.workspace_bytes = bytes;
  STRATA_CUSPARSE_CHECK(cusparseSpSV_analysis(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vb, vx,
                                              CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv, buffer.data()));
  cudaDeviceSynchronize();
  const auto solve = [&] {
    STRATA_CUSPARSE_CHECK(cusparseSpSV_solve(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vb, vx,
                                             CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv));
    cudaDeviceSynchronize();
  };
  solve();
  m.error = relative_error(x, ref);
  if (m.error <= 1e-12) {
    m.time = time_calls(reps, 1, solve);
    m.ran = true;
  }
  cusparseSpSV_destroyDescr(sv);
  cusparseDestroyDnVec(vb);
  cusparseDestroyDnVec(vx);
  cusparseDestroySpMat(mat);
  cusparseDestroy(handle);
  return m;
}
#endif

Record run(const Options& opt, const std::string& label, const HostCsr& a) {
  Record r;
  r.matrix = label;
  r.rows = a.rows;
  r.nonzeros = static_cast<std::int64_t>(a.entries.size());
  const auto row_map = device_copy<Mem>(a.row_map, "row_map");
  const auto entries = device_copy<Mem>(a.entries, "entries");
  const auto values = device_copy<Mem>(a.values, "values");
  const std::vector<double> hb = strata_sptrsv_test::rhs_of(a.rows);
  const auto b = device_copy<Mem>(hb, "b");
  const std::vector<double> ref = serial_solve(a, hb);
  Kokkos::View<double*, Mem> x("x", a.rows);
  // x starts as NaN, so an entry a method leaves unwritten fails the check.
  // Kokkos Kernels' SEQLVLSCHD_RP (4.x) adds its result to x's prior
  // contents (its row loop starts from x(row)), so its methods start from 0.
  const auto reset_x = [&](double start) { Kokkos::deep_copy(x, start); ExecSpace().fence(); };
  const auto finish = [&](Method m, const std::function<void()>& solve) {
    reset_x(m.name.rfind("kk-", 0) == 0 ? 0.0 : std::nan(""));
    solve();
    m.error = relative_error(x, ref);
    if (m.error <= 1e-12) {
      m.time = time_calls(opt.reps, 1, solve);
      m.ran = true;
    }
    r.methods.push_back(std::move(m));
  };

  {  // the serial host substitution
    Method m;
    m.name = "serial";
    std::vector<double> hx;
    m.time = time_calls(opt.reps, 1, [&] { hx = serial_solve(a, hb); });
    m.ran = true;
    r.methods.push_back(m);
  }
  for (const SolveMode mode : {SolveMode::Automatic, SolveMode::Layered, SolveMode::Dataflow}) {
    Solve ts(mode);
    ts.symbolic(ExecSpace(), row_map, entries, strata::solve::Triangle::Lower);
    r.levels = ts.level_count();
    Method m;
    m.name = std::string("strata-") + strata::solve::solve_mode_name(mode);
    m.note = schedule_note(ts);
    m.workspace_bytes = ts.workspace_bytes();
    finish(m, [&] { ts.solve(ExecSpace(), values, b, x); ExecSpace().fence(); });
  }
  // --tune: the device launch knobs (SolvePolicy rules A, D, R and V, the
  // dataflow kernel's warps per ticket) over a grid, each a method of its
  // own ("-l1", "-l32": rule R's dataflow lanes per row fixed; "-flags":
  // rule V off, the dataflow rows wait on ready flags).
  if (opt.tune && !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    struct Variant {
      SolveMode mode;
      bool one_launch;
      int warps;
      std::uint64_t lookahead;
      bool value_ready;
      int lanes;
    };
    std::vector<Variant> grid;
    for (const int lanes : {0, 1, 32})
      for (const std::uint64_t la : {2, 8})
        for (const int w : {1, 4}) grid.push_back({SolveMode::Dataflow, false, w, la, true, lanes});
    grid.push_back({SolveMode::Dataflow, false, 4, 2, false, 0});
    for (const std::uint64_t la : {0, 2, 8})
      grid.push_back({SolveMode::Layered, true, 4, la, true, 0});
    for (const Variant& v : grid) {
      strata::solve::SolvePolicy policy = strata::solve::SolvePolicy::standard();
      policy.device_layered_one_launch = v.one_launch;
      policy.device_dataflow_warps_per_team = v.warps;
      policy.device_lookahead_levels = v.lookahead;
      policy.device_value_ready = v.value_ready;
      policy.device_dataflow_lanes = v.lanes;
      Solve ts(v.mode, policy);
      ts.symbolic(ExecSpace(), row_map, entries, strata::solve::Triangle::Lower);
      Method m;
      m.name = v.mode == SolveMode::Dataflow
                   ? "tune-df-w" + std::to_string(v.warps) + "-la" + std::to_string(v.lookahead) +
                         (v.lanes != 0 ? "-l" + std::to_string(v.lanes) : std::string()) +
                         (v.value_ready ? "" : "-flags")
                   : "tune-ls-la" + std::to_string(v.lookahead);
      m.note = schedule_note(ts);
      finish(m, [&] { ts.solve(ExecSpace(), values, b, x); ExecSpace().fence(); });
    }
  }
  // --tune on a host backend: rule O off (a one-worker solve in level
  // order), and rule P on (pipelined row order where it applies).
  if (opt.tune && Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    for (const bool pipeline : {false, true}) {
      strata::solve::SolvePolicy policy = strata::solve::SolvePolicy::standard();
      policy.host_row_order = pipeline;
      policy.host_pipeline = pipeline;
      Solve ts(SolveMode::Automatic, policy);
      ts.symbolic(ExecSpace(), row_map, entries, strata::solve::Triangle::Lower);
      Method m;
      m.name = pipeline ? "tune-pipeline" : "tune-level-order";
      m.note = schedule_note(ts);
      finish(m, [&] { ts.solve(ExecSpace(), values, b, x); ExecSpace().fence(); });
    }
  }
  for (const auto& [name, algorithm] : {std::pair<const char*, Algorithm>{"kk-RP", Algorithm::SEQLVLSCHD_RP},
                                        {"kk-TP1", Algorithm::SEQLVLSCHD_TP1},
                                        {"kk-TP1CHAIN", Algorithm::SEQLVLSCHD_TP1CHAIN}}) {
    Handle kh;
    kh.create_sptrsv_handle(algorithm, a.rows, true);
    kk_symbolic(kh, row_map, entries);
    ExecSpace().fence();
    Method m;
    m.name = name;
    {
      auto* h = kh.get_sptrsv_handle();
      m.workspace_bytes = h->get_level_list().span() * sizeof(typename decltype(h->get_level_list())::value_type) +
                          h->get_nodes_per_level().span() * sizeof(typename decltype(h->get_nodes_per_level())::value_type) +
                          h->get_nodes_grouped_by_level().span() *
                              sizeof(typename decltype(h->get_nodes_grouped_by_level())::value_type);
    }
    finish(m, [&] { kk_solve(kh, row_map, entries, values, b, x); ExecSpace().fence(); });
    kh.destroy_sptrsv_handle();
  }
#if defined(STRATA_BENCH_CUSPARSE)
  r.methods.push_back(run_cusparse(opt.reps, a, row_map, entries, values, b, ref));
#endif
  for (const Method& m : r.methods) {
    if (!m.ran) continue;
    if (m.name.rfind("kk-", 0) == 0 && (r.best_kk == 0 || m.time.median() < r.best_kk)) r.best_kk = m.time.median();
    if (m.name == "cusparse-SpSV") r.cusparse = m.time.median();
  }
  return r;
}

double ratio(double anchor, const Method& m) {
  return m.ran && m.time.median() > 0 && anchor > 0 ? anchor / m.time.median() : 0;
}

void print(const Record& r) {
  std::cout << r.matrix << ": " << r.rows << " rows, " << r.nonzeros << " nonzeros, " << r.levels
            << " levels\n";
  for (const Method& m : r.methods) {
    std::cout << "  " << std::left << std::setw(18) << m.name << std::right;
    if (!m.ran) {
      std::cout << "  FAILED: relative error " << m.error << " > 1e-12\n";
      continue;
    }
    const double ms = m.time.median() * 1e3;
    std::cout << std::fixed << std::setprecision(3) << std::setw(10) << ms << " ms"
              << std::setprecision(3) << std::setw(9) << 1e3 * ms / std::max<std::uint64_t>(1, r.levels)
              << " us/level" << std::setprecision(2) << std::setw(8) << ratio(r.best_kk, m) << "x kk";
    if (r.cusparse > 0) std::cout << std::setw(8) << ratio(r.cusparse, m) << "x cusparse";
    if (m.workspace_bytes != 0)
      std::cout << std::setprecision(2) << std::setw(8)
                << double(m.workspace_bytes) / double(std::max<std::int64_t>(1, r.rows))
                << " B/row";
    if (!m.note.empty()) std::cout << "  " << m.note;
    std::cout << std::endl;
  }
}

void write_json(const Options& opt, const std::vector<Record>& records, const std::string& date,
                const std::string& load_start) {
  std::ofstream out(opt.json);
  out << "{\n  \"benchmark\": \"strata_solve_bench\",\n  \"environment\": {\n"
      << json_environment(opt.command, date, load_start) << "    \"repetitions\": " << opt.reps
#if defined(STRATA_BENCH_CUSPARSE)
      << ",\n    \"cusparse\": true"
#else
      << ",\n    \"cusparse\": false"
#endif
      << "\n  },\n  \"records\": [\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    out << "    {\"matrix\": " << json_string(r.matrix) << ", \"rows\": " << r.rows
        << ", \"nonzeros\": " << r.nonzeros << ", \"levels\": " << r.levels
        << ", \"best_kk_seconds\": " << json_number(r.best_kk)
        << ", \"cusparse_seconds\": " << json_number(r.cusparse) << ",\n     \"methods\": [";
    for (std::size_t k = 0; k < r.methods.size(); ++k) {
      const Method& m = r.methods[k];
      out << (k ? ",\n       " : "\n       ") << "{\"method\": " << json_string(m.name)
          << ", \"verified\": " << (m.ran ? "true" : "false")
          << ", \"relative_error\": " << json_number(m.error) << ", \"time\": " << json_timing(m.time)
          << ", \"ratio_vs_best_kk\": " << json_number(ratio(r.best_kk, m))
          << ", \"ratio_vs_cusparse\": " << json_number(ratio(r.cusparse, m))
          << ", \"workspace_bytes\": " << m.workspace_bytes
          << ", \"schedule\": " << json_string(m.note) << "}";
    }
    out << "]}" << (i + 1 < records.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    const Options opt = parse(argc, argv);
    const std::string date = utc_now(), load_start = load_average();
    std::cout << bench_heading("strata_solve_bench", STRATA_BENCH_KOKKOSKERNELS_VERSION) << ", "
              << opt.reps
              << " repetitions (medians), load " << load_start << "\n"
#if defined(STRATA_BENCH_CUSPARSE)
              << "cuSPARSE: cusparseSpSV (analysis untimed)\n"
#else
              << "cuSPARSE: not in this build (no CUDA): skipped\n"
#endif
              << "Nx kk: the best Kokkos Kernels method's time / this one's (> 1: faster)\n";
    std::vector<std::pair<std::string, HostCsr>> inputs;
    std::vector<Record> records;
    const auto measure = [&](const std::string& label, const HostCsr& a) {
      records.push_back(run(opt, label, a));
      print(records.back());
      for (const Method& m : records.back().methods)
        if (!m.ran) rc = 1;
      write_json(opt, records, date, load_start);
    };
    for (const std::string& name : opt.matrices) {
      std::string label;
      const HostCsr a = generated(name, opt.set, label);
      measure(label, a);
    }
    for (const std::string& file : opt.files) measure(file, read_mtx(file));
    std::cout << "JSON: " << opt.json << (rc ? "  (FAILED: a method's x differs from the serial one)" : "")
              << "\n";
  } catch (const std::exception& e) {
    std::cerr << "strata_solve_bench: " << e.what() << "\n";
    rc = 2;
  }
  Kokkos::finalize();
  return rc;
}
