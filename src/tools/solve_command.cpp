// strata solve FILE.mtx [--triangle lower|upper] [--unit-diagonal]
//                       [--rhs ones|random|FILE] [--mode auto|layered|dataflow]
//                       [--max-memory BYTES] [--time] [--output residual|x]
// Reads a Matrix Market matrix (the library's reader, within the memory
// budget, as `strata plan` reads one), solves T x = b with strata::TriangularSolve
// and prints the relative residual ||b - T x||inf / (||T||inf ||x||inf +
// ||b||inf) with the solve's schedule (--output residual, the default) or x,
// one value a line (--output x). --time: symbolic and solve seconds and
// microseconds per level, on stderr. Also the solve's part of `strata
// explain` for a .mtx (solve_schedule_report).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/generate/graph_generators.hpp>
#include <strata/io/matrix_market.hpp>
#include <strata/solve/triangular_solve.hpp>

#include "commands.hpp"
#include "graph_input.hpp"
#include "memory_budget.hpp"
#include "output.hpp"

namespace strata::tools {

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Ordinal = std::int64_t;
using Offset = std::uint64_t;
using Solve = solve::TriangularSolve<Space, Ordinal, Offset, double>;

/// A square matrix in CSR on the host, columns ascending, duplicates summed.
struct HostMatrix {
  std::uint64_t rows = 0;
  std::vector<Offset> row_map{0};
  std::vector<Ordinal> entries;
  std::vector<double> values;
  bool pattern = false;
  std::uint64_t supplied_diagonals = 0;  ///< pattern: diagonals the file lacked
};

/// [0, 1) from (i, j): the pattern's deterministic values.
double hashed_unit(std::uint64_t i, std::uint64_t j) {
  generate::SplitMix64 rng(i * 0x9e3779b97f4a7c15ull ^ (j + 0x632be59bd9b4e019ull));
  return static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0);
}

/// Reads `path` with the library's reader (io::read_matrix_market_entries:
/// coordinate; real, integer or pattern; general, symmetric or
/// skew-symmetric) within `budget` bytes, then checks that solving it fits
/// the budget before the CSR is built. A symmetric file's stored entries are
/// taken into the asked triangle (mirrored where they lie in the other). A
/// pattern gets off-diagonals in [-0.2, -0.1) and the diagonal 1 + the sum
/// of their magnitudes, supplied where missing.
HostMatrix read_matrix(const std::string& path, bool upper, const MemoryBudget& budget) {
  io::MatrixEntries file = read_matrix_entries(path, budget);
  check_solve_memory(file.rows, file.entries.size(), budget.bytes);
  HostMatrix m;
  m.pattern = file.pattern;
  m.rows = file.rows;
  std::vector<std::vector<std::pair<Ordinal, double>>> by_row(m.rows);
  for (io::MatrixEntry& e : file.entries) {
    // The stored triangle of a symmetric file, as asked.
    if (file.mirror != io::Mirror::None && e.row != e.column && ((e.row < e.column) != upper)) {
      std::swap(e.row, e.column);
      if (file.mirror == io::Mirror::Negated) e.value = -e.value;
    }
    by_row[e.row].push_back({static_cast<Ordinal>(e.column), e.value});
  }
  std::vector<io::MatrixEntry>().swap(file.entries);
  for (std::uint64_t r = 0; r < m.rows; ++r) {
    auto& row = by_row[r];
    if (m.pattern) {
      bool diagonal = false;
      for (const auto& e : row) diagonal = diagonal || e.first == Ordinal(r);
      if (!diagonal) {
        row.push_back({Ordinal(r), 0.0});
        ++m.supplied_diagonals;
      }
    }
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t diagonal_at = SIZE_MAX;
    double off = 0;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) {  // a duplicate: summed
        m.values.back() += row[k].second;
        continue;
      }
      m.entries.push_back(row[k].first);
      m.values.push_back(row[k].second);
      if (m.pattern) {
        if (row[k].first == Ordinal(r)) {
          diagonal_at = m.values.size() - 1;
        } else {
          m.values.back() = -(0.1 + 0.1 * hashed_unit(r, static_cast<std::uint64_t>(row[k].first)));
          off -= m.values.back();
        }
      }
    }
    if (m.pattern && diagonal_at != SIZE_MAX) m.values[diagonal_at] = 1.0 + off;
    m.row_map.push_back(m.entries.size());
    std::vector<std::pair<Ordinal, double>>().swap(row);
  }
  return m;
}

template <class T>
Kokkos::View<T*, Space::memory_space> to_device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*, Space::memory_space> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                                          v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                           v.data(), v.size()));
  return d;
}

std::vector<double> read_rhs(const std::string& spec, std::uint64_t rows) {
  std::vector<double> b(rows, 1.0);
  if (spec == "ones") return b;
  if (spec == "random") {
    for (std::uint64_t i = 0; i < rows; ++i) b[i] = 1.0 + hashed_unit(i, 0x5eedu);
    return b;
  }
  std::ifstream in(spec);
  if (!in) throw PlanError::io_error(spec, "cannot open the right-hand side for reading");
  std::uint64_t count = 0;
  std::string token;
  while (in >> token) {
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0' || !std::isfinite(v))
      throw PlanError::parse_error(spec, 0, "'" + token + "' is not a finite number",
                                   "give one number per matrix row, separated by white space");
    if (count < rows) b[count] = v;
    ++count;
  }
  if (count != rows)
    throw PlanError::parse_error(spec, 0,
                                 "the right-hand side has " + std::to_string(count) +
                                     " values for " + std::to_string(rows) + " rows",
                                 "give one number per matrix row");
  return b;
}

/// A matrix the solve refuses (not triangular as declared, a missing or zero
/// diagonal) is an invalid input, as a cycle is to `strata plan`: exit 3.
[[noreturn]] void rethrow_matrix_error(const PlanError& e) {
  if (e.kind() == ErrorKind::InvalidArgument) throw CliError{e.what(), exit_invalid_graph};
  throw e;
}

std::string schedule_text(const Solve& ts) {
  std::ostringstream s;
  const auto& sch = ts.schedule();
  for (std::size_t i = 0; i < sch.stretches.size(); ++i) {
    const auto& st = sch.stretches[i];
    s << (i ? ", " : "") << solve::solve_mode_name(st.mode) << " levels " << st.first_level << ".."
      << (st.end_level == 0 ? 0 : st.end_level - 1);
    if (st.workers != 0) s << " (" << st.workers << " worker" << (st.workers == 1 ? "" : "s") << ")";
    if (st.block_rows != 0) s << " (pipelined row order, blocks of " << st.block_rows << " rows)";
    else if (st.row_order) s << " (row order)";
  }
  return s.str();
}

}  // namespace

std::string solve_schedule_report(const std::string& path, bool upper,
                                  const MemoryBudget& budget) {
  const HostMatrix m = read_matrix(path, upper, budget);
  const auto row_map = to_device(m.row_map, "row_map");
  const auto entries = to_device(m.entries, "entries");
  Solve ts;
  try {
    ts.symbolic(Space(), row_map, entries, upper ? solve::Triangle::Upper : solve::Triangle::Lower,
                solve::Diagonal::Unit);
  } catch (const PlanError& e) {
    return std::string("solve: not solvable as ") + (upper ? "upper" : "lower") +
           " triangular: " + e.what() + "\n";
  }
  return "solve: " + std::to_string(ts.level_count()) + " levels; schedule " + schedule_text(ts) +
         "\nsolve reason: " + ts.schedule().reason + "\n";
}

int solve_command(const std::vector<std::string>& args) {
  std::string file, rhs = "ones", output = "residual";
  bool upper = false, unit = false, time = false;
  std::uint64_t max_memory = 0;  // --max-memory; 0: the physical memory
  solve::SolveMode mode = solve::SolveMode::Automatic;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&](const char* name) -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{std::string(name) + " needs a value"};
      return args[++i];
    };
    if (a == "--triangle") {
      const std::string& v = value("--triangle");
      if (v != "lower" && v != "upper")
        throw UsageError{"--triangle must be 'lower' or 'upper', not '" + v + "'"};
      upper = v == "upper";
    } else if (a == "--unit-diagonal") {
      unit = true;
    } else if (a == "--rhs") {
      rhs = value("--rhs");
    } else if (a == "--mode") {
      const std::string& v = value("--mode");
      if (v != "auto" && v != "layered" && v != "dataflow")
        throw UsageError{"--mode must be 'auto', 'layered' or 'dataflow' for 'solve', not '" + v +
                         "' (the solve has no persistent mode)"};
      mode = solve::parse_solve_mode(v);
    } else if (a == "--time") {
      time = true;
    } else if (a == "--max-memory") {
      max_memory = parse_byte_count(value("--max-memory"));
    } else if (a == "--output") {
      output = value("--output");
      if (output != "residual" && output != "x")
        throw UsageError{"--output must be 'residual' or 'x' for 'solve', not '" + output + "'"};
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "' for 'solve'"};
    } else if (file.empty()) {
      file = a;
    } else {
      throw UsageError{"'solve' takes one FILE, not also '" + a + "'"};
    }
  }
  if (file.empty()) throw UsageError{"'solve' needs a Matrix Market FILE"};

  const HostMatrix m = read_matrix(file, upper, memory_budget(max_memory));
  // Said after a successful solve only (diagnostics()), so that an error is
  // always the first line on stderr.
  if (m.supplied_diagonals != 0)
    diagnostics() << "strata solve: the pattern lacked " << m.supplied_diagonals
                  << " diagonal entries; supplied (values: a dominant diagonal)\n";
  const std::vector<double> b = read_rhs(rhs, m.rows);
  const Space space;
  const auto row_map = to_device(m.row_map, "row_map");
  const auto entries = to_device(m.entries, "entries");
  const auto values = to_device(m.values, "values");
  const auto b_device = to_device(b, "b");
  Kokkos::View<double*, Space::memory_space> x("x", m.rows);
  Solve ts(mode);
  using Clock = std::chrono::steady_clock;
  double symbolic_seconds = 0;
  std::vector<double> solve_seconds;
  try {
    const auto t0 = Clock::now();
    ts.symbolic(space, row_map, entries, upper ? solve::Triangle::Upper : solve::Triangle::Lower,
                unit ? solve::Diagonal::Unit : solve::Diagonal::NonUnit);
    space.fence();
    symbolic_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    for (int r = 0; r < (time ? 5 : 1); ++r) {
      const auto t1 = Clock::now();
      ts.solve(space, values, b_device, x);
      space.fence();
      solve_seconds.push_back(std::chrono::duration<double>(Clock::now() - t1).count());
    }
  } catch (const PlanError& e) {
    rethrow_matrix_error(e);
  }
  const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);

  // The residual on the host, the diagonal one where it is unit.
  double r_norm = 0, t_norm = 0, x_norm = 0, b_norm = 0;
  for (std::uint64_t i = 0; i < m.rows; ++i) {
    double r = b[i], row_sum = unit ? 1.0 : 0.0;
    if (unit) r -= hx(i);
    for (Offset p = m.row_map[i]; p < m.row_map[i + 1]; ++p) {
      const auto j = static_cast<std::uint64_t>(m.entries[p]);
      if (unit && j == i) continue;
      r -= m.values[p] * hx(j);
      row_sum += std::abs(m.values[p]);
    }
    r_norm = std::max(r_norm, std::abs(r));
    t_norm = std::max(t_norm, row_sum);
    x_norm = std::max(x_norm, std::abs(hx(i)));
    b_norm = std::max(b_norm, std::abs(b[i]));
  }
  const double denominator = t_norm * x_norm + b_norm;
  const double residual = denominator == 0 ? 0 : r_norm / denominator;

  std::ostringstream out;
  if (output == "x") {
    char buffer[32];
    for (std::uint64_t i = 0; i < m.rows; ++i) {
      std::snprintf(buffer, sizeof buffer, "%.17g\n", hx(i));
      out << buffer;
    }
  } else {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.3e", residual);
    out << "matrix: " << m.rows << " rows, " << m.entries.size() << " entries, "
        << (upper ? "upper" : "lower") << " triangle, " << (unit ? "unit" : "stored")
        << " diagonal\n"
        << "levels: " << ts.level_count() << "\n"
        << "schedule: " << schedule_text(ts) << "\n"
        << "reason: " << ts.schedule().reason << "\n"
        << "relative_residual: " << buffer << "\n";
  }
  if (time) {
    std::sort(solve_seconds.begin(), solve_seconds.end());
    const double median = solve_seconds[solve_seconds.size() / 2];
    std::fprintf(stderr,
                 "symbolic_seconds: %.6f\nsolve_seconds: %.6f (median of %zu)\n"
                 "us_per_level: %.3f\nbackend: %s\n",
                 symbolic_seconds, median, solve_seconds.size(),
                 ts.level_count() == 0 ? 0.0 : 1e6 * median / double(ts.level_count()),
                 Space::name());
  }
  std::cout << out.str() << std::flush;
  return exit_ok;
}

}  // namespace strata::tools
