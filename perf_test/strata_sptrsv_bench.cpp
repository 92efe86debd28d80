// strata_sptrsv_bench: Kokkos Kernels' sparse triangular solve with its own
// level-set symbolic phase against the same solve with Strata's
// (strata::kokkos_kernels::sptrsv_symbolic), in the same run, on the build's
// default Kokkos backend.
//
//   strata_sptrsv_bench [--sizes 40,70,100] [--triangles lower,upper]
//                       [--algorithms TP1] [--reps 5] [--json FILE] [--quick] [--profile]
//
// Matrices: the ILU(0) factors of the 7-point Laplacian on an n x n x n grid
// under the random symmetric permutation of `strata gen ilu3d n n n 1`
// (L: rows in order, columns ascending, diagonal last; U = L^T, diagonal
// first; values as unit_test/sptrsv_matrices.hpp). n = 100 is 10^6 rows.
// Per matrix, triangle and algorithm:
//   symbolic         a fresh sptrsv handle (created untimed), then the
//                    symbolic phase and a fence: Kokkos Kernels' vs Strata's
//   symbolic+solve   the same followed by one sptrsv_solve and a fence
// Medians of --reps repetitions after one untimed warm-up; ratios are Kokkos
// Kernels' time over Strata's (> 1: Strata faster). --profile: the kernels of
// one more (untimed) Strata symbolic phase, by time (Kokkos Tools callbacks,
// bench_support.hpp), in the JSON and on stdout. Every pair is checked:
// the same level count and bitwise the same x (exit 1 otherwise).
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/kokkos_kernels/sptrsv_symbolic.hpp>

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

struct Options {
  std::vector<std::string> sizes{"40", "70", "100"};
  std::vector<std::string> triangles{"lower", "upper"};
  std::vector<std::string> algorithms{"TP1"};
  int reps = 5;
  bool profile = false;
  std::string json = "strata_sptrsv_bench.json";
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
    if (a == "--sizes") o.sizes = split(value());
    else if (a == "--triangles") o.triangles = split(value());
    else if (a == "--algorithms") o.algorithms = split(value());
    else if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--json") o.json = value();
    else if (a == "--profile") o.profile = true;
    else if (a == "--quick") { o.sizes = {"8", "16"}; o.reps = 1; o.algorithms = {"RP", "TP1", "TP1CHAIN"}; }
    else if (a == "--help") {
      std::cout << "strata_sptrsv_bench [--sizes 40,70,100] [--triangles lower,upper] "
                   "[--algorithms RP,TP1,TP1CHAIN] [--reps 5] [--json FILE] [--quick] [--profile]\n";
      std::exit(0);
    } else if (a.rfind("--kokkos", 0) != 0) throw std::invalid_argument("unknown option " + a);
  }
  if (o.reps < 1) throw std::invalid_argument("--reps must be >= 1");
  return o;
}

Algorithm algorithm_of(const std::string& name) {
  if (name == "RP") return Algorithm::SEQLVLSCHD_RP;
  if (name == "TP1") return Algorithm::SEQLVLSCHD_TP1;
  if (name == "TP1CHAIN") return Algorithm::SEQLVLSCHD_TP1CHAIN;
  throw std::invalid_argument("unknown algorithm " + name + " (RP, TP1 or TP1CHAIN)");
}

struct Record {
  std::string matrix, triangle, algorithm;
  std::int64_t rows = 0, nonzeros = 0;
  std::uint64_t levels = 0;
  Timing kk_symbolic, strata_symbolic, kk_total, strata_total;
  bool same_levels = false, bitwise = false;
  std::vector<Phase> phases;  ///< --profile: Strata's symbolic phase by kernel
};

Record run(const Options& opt, const std::string& matrix, const HostCsr& a, bool lower,
           const std::string& algorithm_name) {
  Record r;
  r.matrix = matrix;
  r.triangle = lower ? "lower" : "upper";
  r.algorithm = algorithm_name;
  r.rows = a.rows;
  r.nonzeros = static_cast<std::int64_t>(a.entries.size());
  const Algorithm algorithm = algorithm_of(algorithm_name);
  const auto row_map = device_copy<Mem>(a.row_map, "row_map");
  const auto entries = device_copy<Mem>(a.entries, "entries");
  const auto values = device_copy<Mem>(a.values, "values");
  const auto b = device_copy<Mem>(strata_sptrsv_test::rhs_of(a.rows), "b");
  Kokkos::View<double*, Mem> x_kk("x kk", a.rows), x_strata("x strata", a.rows);

  Handle kh;
  auto fresh = [&] { kh.create_sptrsv_handle(algorithm, a.rows, lower); };
  auto ours = [&] { strata::kokkos_kernels::sptrsv_symbolic(&kh, row_map, entries); ExecSpace().fence(); };
  auto theirs = [&] { kk_symbolic(kh, row_map, entries); ExecSpace().fence(); };
  r.kk_symbolic = time_calls(opt.reps, 1, theirs, fresh);
  r.strata_symbolic = time_calls(opt.reps, 1, ours, fresh);
  r.kk_total = time_calls(opt.reps, 1, [&] { theirs(); kk_solve(kh, row_map, entries, values, b, x_kk); ExecSpace().fence(); }, fresh);
  const std::uint64_t kk_levels = kh.get_sptrsv_handle()->get_num_levels();
  r.strata_total = time_calls(opt.reps, 1, [&] { ours(); kk_solve(kh, row_map, entries, values, b, x_strata); ExecSpace().fence(); }, fresh);
  r.levels = kh.get_sptrsv_handle()->get_num_levels();
  if (opt.profile) {
    fresh();
    r.phases = phases_of(ours, "outside kernels (allocation, copies, host)");
  }
  r.same_levels = r.levels == kk_levels;
  const auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_kk);
  const auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_strata);
  r.bitwise = std::memcmp(hk.data(), hs.data(), sizeof(double) * hk.extent(0)) == 0;
  kh.destroy_sptrsv_handle();
  return r;
}

double ratio(const Timing& kk, const Timing& strata) {
  return strata.median() > 0 ? kk.median() / strata.median() : 0;
}

void print(const Record& r) {
  std::cout << std::left << std::setw(14) << r.matrix << std::setw(6) << r.triangle << std::setw(9)
            << r.algorithm << std::right << std::setw(9) << r.rows << std::setw(10) << r.nonzeros
            << std::setw(7) << r.levels << std::fixed << std::setprecision(3) << std::setw(11)
            << r.kk_symbolic.median() * 1e3 << std::setw(11) << r.strata_symbolic.median() * 1e3
            << std::setprecision(1) << std::setw(8) << ratio(r.kk_symbolic, r.strata_symbolic)
            << std::setprecision(3) << std::setw(11) << r.kk_total.median() * 1e3 << std::setw(11)
            << r.strata_total.median() * 1e3 << std::setprecision(2) << std::setw(8)
            << ratio(r.kk_total, r.strata_total) << "  " << (r.same_levels && r.bitwise ? "yes" : "NO")
            << std::endl;
}

void write_json(const Options& opt, const std::vector<Record>& records, const std::string& date,
                const std::string& load_start) {
  std::ofstream out(opt.json);
  out << "{\n  \"benchmark\": \"strata_sptrsv_bench\",\n  \"environment\": {\n"
      << json_environment(opt.command, date, load_start) << "    \"repetitions\": " << opt.reps
      << "\n  },\n  \"records\": [\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    out << "    {\"matrix\": " << json_string(r.matrix) << ", \"triangle\": " << json_string(r.triangle)
        << ", \"algorithm\": " << json_string(r.algorithm) << ", \"rows\": " << r.rows
        << ", \"nonzeros\": " << r.nonzeros << ", \"levels\": " << r.levels
        << ",\n     \"kk_symbolic\": " << json_timing(r.kk_symbolic)
        << ",\n     \"strata_symbolic\": " << json_timing(r.strata_symbolic)
        << ",\n     \"kk_symbolic_solve\": " << json_timing(r.kk_total)
        << ",\n     \"strata_symbolic_solve\": " << json_timing(r.strata_total)
        << ",\n     \"symbolic_ratio\": " << json_number(ratio(r.kk_symbolic, r.strata_symbolic))
        << ", \"symbolic_solve_ratio\": " << json_number(ratio(r.kk_total, r.strata_total))
        << ", \"same_levels\": " << (r.same_levels ? "true" : "false")
        << ", \"bitwise_same_x\": " << (r.bitwise ? "true" : "false") << json_phases(r.phases) << "}"
        << (i + 1 < records.size() ? "," : "") << "\n";
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
    std::cout << bench_heading("strata_sptrsv_bench", STRATA_BENCH_KOKKOSKERNELS_VERSION) << ", "
              << opt.reps << " repetitions (medians, ms), load " << load_start << "\n"
              << "ratio: Kokkos Kernels' time / Strata's (> 1: Strata faster)\n"
              << std::left << std::setw(14) << "matrix" << std::setw(6) << "tri" << std::setw(9) << "algo"
              << std::right << std::setw(9) << "rows" << std::setw(10) << "nnz" << std::setw(7) << "levels"
              << std::setw(11) << "kk sym" << std::setw(11) << "strata sym" << std::setw(8) << "ratio"
              << std::setw(11) << "kk +solve" << std::setw(11) << "strata +s" << std::setw(8) << "ratio"
              << "  same x" << std::endl;
    std::vector<Record> records;
    for (const std::string& size : opt.sizes) {
      const std::uint64_t n = std::stoull(size);
      const std::string name = "ilu3d-" + size;
      const HostCsr lower = strata_sptrsv_test::lower_from_pattern(strata::generate::ilu3d(n, n, n, 1));
      for (const std::string& t : opt.triangles) {
        if (t != "lower" && t != "upper") throw std::invalid_argument("unknown triangle " + t);
        const HostCsr a = t == "lower" ? lower : strata_sptrsv_test::transpose(lower);
        for (const std::string& algorithm : opt.algorithms) {
          records.push_back(run(opt, name, a, t == "lower", algorithm));
          print(records.back());
          for (const Phase& p : records.back().phases)
            if (p.seconds * 1e3 >= 0.01)
              std::cout << "    " << std::fixed << std::setprecision(3) << std::setw(9) << p.seconds * 1e3
                        << " ms  " << p.calls << "x  " << p.name << "\n";
          if (!records.back().same_levels || !records.back().bitwise) rc = 1;
          write_json(opt, records, date, load_start);
        }
      }
    }
    std::cout << "JSON: " << opt.json << (rc ? "  (FAILED: a schedule or x differs)" : "") << "\n";
  } catch (const std::exception& e) {
    std::cerr << "strata_sptrsv_bench: " << e.what() << "\n";
    rc = 2;
  }
  Kokkos::finalize();
  return rc;
}
