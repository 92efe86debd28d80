// strata_read_bench: how fast the graph readers parse (docs/visualising_plans.md,
// "Reader speed"). For each FILE: the text is read once (read_text), then
// parsed REPEATS times by parse_graph (the format from the banner, as
// `strata plan FILE` reads it); prints one JSON record per file with the
// median and the fastest parse time, and the median's throughput in MB/s
// (10^6 bytes of text per second).
//
//   strata_read_bench FILE... [--repeats N] [--triangle lower|upper]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <strata/io/read_graph.hpp>
#include <strata/io/read_text.hpp>

int main(int argc, char** argv) {
  std::vector<std::string> files;
  int repeats = 3;
  strata::io::GraphReadOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--triangle" && i + 1 < argc) {
      options.triangle = strata::io::parse_triangle(argv[++i]);
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr,
                 "usage: strata_read_bench FILE... [--repeats N] [--triangle lower|upper]\n");
    return 2;
  }
  std::printf("[\n");
  for (std::size_t f = 0; f < files.size(); ++f) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string text = strata::io::read_text(files[f]);
    const double read_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<double> times;
    strata::io::GraphInput input;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      input = strata::io::parse_graph(text, files[f], options, files[f]);
      times.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    const double parse_s = times[times.size() / 2];
    std::printf("  {\"file\": \"%s\", \"format\": \"%s\", \"bytes\": %zu, \"waves\": %llu, "
                "\"dependencies\": %zu, \"read_seconds\": %.4f, \"parse_seconds\": %.4f, "
                "\"parse_seconds_min\": %.4f, \"parse_MB_per_s\": %.1f, \"repeats\": %d}%s\n",
                files[f].c_str(), strata::io::graph_format_name(input.format), text.size(),
                static_cast<unsigned long long>(input.list.wave_count),
                input.list.dependencies.size(), read_s, parse_s, times.front(),
                text.size() / parse_s / 1e6,
                repeats, f + 1 < files.size() ? "," : "");
  }
  std::printf("]\n");
  return 0;
}
