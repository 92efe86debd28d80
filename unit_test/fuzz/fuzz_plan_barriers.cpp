// libFuzzer harness: strata::plan_barriers on fuzzed dependency arrays
// (Serial backend, host arrays), against strata::reference_kahn.
//
// Input bytes (see decode()):
//   byte 0       flags: bits 0-1 ordinal/offset type (0, 3: 32-bit, 1: 64-bit,
//                2: 16-bit); bit 2 plan on the long-lived scratch (the reuse
//                path); bit 5 byte 2 raises the wave count (large graphs);
//                16-bit only: bit 3 add 65000 waves (crosses the type's limit),
//                bit 4 repeat the dependencies to exactly 65535 entries, or
//                65536 with bit 6 (duplicates change nothing; one past the
//                offset type is CountOverflow)
//   bytes 1-2    wave count: byte 1, plus (bit 5) byte 2 x 16, or x 256 when
//                bit 7 is set too and the type is 16-bit (so both sides of
//                65535 are reachable), plus 65000 (bit 3, 16-bit): large
//                graphs stay rare and exec/s high
//   then         dependencies, 4 bytes each: two 16-bit raw ids; a raw id
//                below 0xFFF0 names wave raw % V, 0xFFF0 + k names the invalid
//                id V + k (k = 15: 2^33 + V with 64-bit ordinals)
//
// Invariants, on every input:
//   * planner and reference agree: the same plan (offsets, waves, levels), or
//     the same PlanError (kind, fields and message); with a wave count the
//     ordinal cannot hold, CountOverflow{"wave count"} (the reference has no
//     type limits), a dependency count the offset cannot hold likewise;
//   * independently of the reference, a plan is a Kahn layering: groups are
//     non-empty, offsets run 0..V, the waves are a permutation, ascending in a
//     group, level(w) is w's group, and level(w) = 1 + max level of w's
//     predecessors (0 without any), so every dependency crosses groups forward;
//   * every error message starts with its kind and holds a "Fix:" hint;
//   * after an error the scratch still plans a small graph correctly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <strata/core/error.hpp>
#include <strata/plan/plan_barriers.hpp>
#include <strata/plan/reference_kahn.hpp>

#include "fuzz_check.hpp"

namespace {

using Space = Kokkos::Serial;

struct Decoded {
  unsigned type = 0;
  bool reuse = false;
  std::uint64_t waves = 0;
  std::vector<std::uint64_t> before, after;  // 64-bit; narrowed per type
};

Decoded decode(const std::uint8_t* data, std::size_t size) {
  Decoded d;
  if (size < 3) return d;
  const unsigned flags = data[0];
  d.type = flags & 3u;
  d.reuse = (flags & 4u) != 0;
  const bool narrow = d.type == 2;
  d.waves = std::uint64_t(data[1]);
  if (flags & 32u) d.waves += std::uint64_t(data[2]) << ((narrow && (flags & 128u)) ? 8 : 4);
  if ((flags & 8u) && narrow) d.waves += 65000;
  const bool wide = d.type == 1;
  auto id = [&](std::size_t at) -> std::uint64_t {
    const unsigned raw = unsigned(data[at]) | (unsigned(data[at + 1]) << 8);
    if (raw >= 0xFFF0u) {
      const std::uint64_t k = raw - 0xFFF0u;
      return (wide && k == 15) ? (std::uint64_t(1) << 33) + d.waves : d.waves + k;
    }
    return d.waves == 0 ? raw : raw % d.waves;
  };
  for (std::size_t at = 3; at + 4 <= size; at += 4) {
    d.before.push_back(id(at));
    d.after.push_back(id(at + 2));
  }
  if ((flags & 16u) && d.type == 2 && !d.before.empty()) {
    const std::size_t target = (flags & 64u) ? 65536 : 65535;
    for (std::size_t i = 0; d.before.size() < target; ++i) {
      d.before.push_back(d.before[i]);
      d.after.push_back(d.after[i]);
    }
    d.before.resize(target);
    d.after.resize(target);
  }
  return d;
}

/// What happened: a plan (as host vectors) or an error.
struct Outcome {
  bool ok = false;
  std::vector<std::uint64_t> offsets, waves, level;
  strata::ErrorKind kind{};
  std::uint64_t wave_count = 0, before = 0, after = 0, wave = 0, unscheduled = 0;
  std::string field, what;
};

Outcome error_outcome(const strata::PlanError& e) {
  Outcome o;
  o.kind = e.kind();
  o.wave_count = e.wave_count();
  o.before = e.before();
  o.after = e.after();
  o.wave = e.wave();
  o.unscheduled = e.unscheduled_waves();
  o.field = e.field();
  o.what = e.what();
  const std::string prefix = std::string(strata::error_kind_name(e.kind())) + ": ";
  STRATA_FUZZ_CHECK(o.what.compare(0, prefix.size(), prefix) == 0, "message without kind: %s",
                    o.what.c_str());
  STRATA_FUZZ_CHECK(o.what.find("Fix:") != std::string::npos, "message without Fix: %s",
                    o.what.c_str());
  return o;
}

/// Kahn layering, checked from its definition (not from the reference).
void check_layering(const Outcome& o, std::uint64_t waves, const std::vector<std::uint64_t>& before,
                    const std::vector<std::uint64_t>& after) {
  STRATA_FUZZ_CHECK(o.waves.size() == waves && o.level.size() == waves, "plan sizes");
  STRATA_FUZZ_CHECK(!o.offsets.empty() && o.offsets.front() == 0 && o.offsets.back() == waves,
                    "group offsets must run 0..V");
  STRATA_FUZZ_CHECK((waves == 0) == (o.offsets.size() == 1), "an empty plan has no groups");
  std::vector<char> seen(waves, 0);
  for (std::size_t g = 0; g + 1 < o.offsets.size(); ++g) {
    STRATA_FUZZ_CHECK(o.offsets[g] < o.offsets[g + 1], "group %zu is empty", g);
    for (std::uint64_t i = o.offsets[g]; i < o.offsets[g + 1]; ++i) {
      const std::uint64_t w = o.waves[i];
      STRATA_FUZZ_CHECK(w < waves && !seen[w], "waves are not a permutation (wave %llu)",
                        (unsigned long long)w);
      seen[w] = 1;
      STRATA_FUZZ_CHECK(o.level[w] == g, "level(%llu) = %llu, but it is in group %zu",
                        (unsigned long long)w, (unsigned long long)o.level[w], g);
      STRATA_FUZZ_CHECK(i == o.offsets[g] || o.waves[i - 1] < w, "group %zu not ascending", g);
    }
  }
  std::vector<std::uint64_t> expect(waves, 0);
  for (std::size_t i = 0; i < before.size(); ++i) {
    STRATA_FUZZ_CHECK(o.level[before[i]] < o.level[after[i]], "dependency %zu goes backwards", i);
    const std::uint64_t l = o.level[before[i]] + 1;
    if (l > expect[after[i]]) expect[after[i]] = l;
  }
  for (std::uint64_t w = 0; w < waves; ++w)
    STRATA_FUZZ_CHECK(o.level[w] == expect[w], "level(%llu) = %llu, predecessors say %llu",
                      (unsigned long long)w, (unsigned long long)o.level[w],
                      (unsigned long long)expect[w]);
}

/// The scratch that lives across inputs (created in LLVMFuzzerInitialize).
template <class Ordinal>
strata::PlannerScratch<Space, Ordinal, Ordinal>*& long_lived_scratch() {
  static strata::PlannerScratch<Space, Ordinal, Ordinal>* scratch = nullptr;
  return scratch;
}

template <class Ordinal>
void run(const Decoded& d) {
  using Dep = strata::WaveDependency<Ordinal>;
  using Scratch = strata::PlannerScratch<Space, Ordinal, Ordinal>;
  std::vector<Dep> deps(d.before.size());
  std::vector<std::uint64_t> before(deps.size()), after(deps.size());
  for (std::size_t i = 0; i < deps.size(); ++i) {
    deps[i] = {static_cast<Ordinal>(d.before[i]), static_cast<Ordinal>(d.after[i])};
    before[i] = deps[i].before;
    after[i] = deps[i].after;
  }
  constexpr std::uint64_t max = std::numeric_limits<Ordinal>::max();

  // The expectation: the type limits first (the reference has none), then
  // the reference.
  Outcome expected;
  if (d.waves > max) {
    expected = error_outcome(strata::PlanError::count_overflow("wave count"));
  } else if (deps.size() > max) {
    expected = error_outcome(strata::PlanError::count_overflow("dependency count"));
  } else {
    try {
      const auto ref = strata::reference_kahn(d.waves, deps.data(), deps.size());
      expected.ok = true;
      expected.offsets = ref.group_offsets;
      expected.waves = ref.waves;
      expected.level.assign(d.waves, 0);
      for (std::size_t g = 0; g < ref.group_count(); ++g)
        for (std::uint64_t i = ref.group_offsets[g]; i < ref.group_offsets[g + 1]; ++i)
          expected.level[ref.waves[i]] = g;
    } catch (const strata::PlanError& e) {
      expected = error_outcome(e);
    }
  }

  Scratch fresh;
  Scratch& scratch = d.reuse ? *long_lived_scratch<Ordinal>() : fresh;
  Outcome got;
  try {
    const auto plan = strata::plan_barriers(Space(), d.waves, deps.data(), deps.size(), scratch);
    const auto host = plan.host_mirror();
    got.ok = true;
    got.offsets.assign(host.group_offsets.data(), host.group_offsets.data() + host.group_offsets.extent(0));
    got.waves.assign(host.waves.data(), host.waves.data() + host.waves.extent(0));
    got.level.assign(host.level.data(), host.level.data() + host.level.extent(0));
    if (got.offsets.empty()) got.offsets.push_back(0);  // no groups: offsets {0}
    STRATA_FUZZ_CHECK(plan.global_barriers() == (plan.group_count() == 0 ? 0 : plan.group_count() - 1),
                      "global_barriers");
    check_layering(got, d.waves, before, after);
  } catch (const strata::PlanError& e) {
    got = error_outcome(e);
  } catch (const std::exception& e) {
    STRATA_FUZZ_CHECK(false, "unexpected exception: %s", e.what());
  }

  if (expected.ok && expected.offsets.empty()) expected.offsets.push_back(0);
  STRATA_FUZZ_CHECK(got.ok == expected.ok, "planner %s, reference %s", got.ok ? "planned" : got.what.c_str(),
                    expected.ok ? "planned" : expected.what.c_str());
  if (got.ok) {
    STRATA_FUZZ_CHECK(got.offsets == expected.offsets, "group offsets differ (%zu vs %zu groups)",
                      got.offsets.size() - 1, expected.offsets.size() - 1);
    STRATA_FUZZ_CHECK(got.waves == expected.waves, "waves differ");
    STRATA_FUZZ_CHECK(got.level == expected.level, "levels differ");
  } else {
    STRATA_FUZZ_CHECK(got.kind == expected.kind && got.wave_count == expected.wave_count &&
                          got.before == expected.before && got.after == expected.after &&
                          got.wave == expected.wave && got.unscheduled == expected.unscheduled &&
                          got.field == expected.field && got.what == expected.what,
                      "errors differ:\n  planner:   %s\n  reference: %s", got.what.c_str(),
                      expected.what.c_str());
    // The scratch stays usable after an error.
    const std::vector<Dep> small{{0, 1}, {0, 2}, {1, 2}};
    const auto plan = strata::plan_barriers(Space(), 3, small.data(), small.size(), scratch);
    STRATA_FUZZ_CHECK(plan.group_count() == 3, "scratch unusable after an error");
  }
}

void shutdown() {
  delete long_lived_scratch<std::uint16_t>();
  delete long_lived_scratch<std::uint32_t>();
  delete long_lived_scratch<std::uint64_t>();
  Kokkos::finalize();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  int argc = 1;
  char name[] = "fuzz_plan_barriers";
  char* argv[] = {name, nullptr};
  Kokkos::initialize(argc, argv);
  long_lived_scratch<std::uint16_t>() = new strata::PlannerScratch<Space, std::uint16_t, std::uint16_t>();
  long_lived_scratch<std::uint32_t>() = new strata::PlannerScratch<Space, std::uint32_t, std::uint32_t>();
  long_lived_scratch<std::uint64_t>() = new strata::PlannerScratch<Space, std::uint64_t, std::uint64_t>();
  std::atexit(shutdown);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Decoded d = decode(data, size);
  switch (d.type) {
    case 1: run<std::uint64_t>(d); break;
    case 2: run<std::uint16_t>(d); break;
    default: run<std::uint32_t>(d); break;
  }
  return 0;
}
