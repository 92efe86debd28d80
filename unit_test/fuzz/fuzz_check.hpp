#pragma once
// Invariant checks for the fuzz harnesses: a violated invariant prints what
// was expected and aborts, which libFuzzer (and the replay driver under
// ctest) reports as a crash with the offending input saved.
#include <cstdio>
#include <cstdlib>

#define STRATA_FUZZ_CHECK(cond, ...)                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "strata fuzz invariant violated: %s (%s:%d)\n  ", #cond,  \
                   __FILE__, __LINE__);                                              \
      std::fprintf(stderr, __VA_ARGS__);                                             \
      std::fprintf(stderr, "\n");                                                    \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)
