/* C11 test of Strata's C interface (<strata/c/strata_c.h>), built against an
 * installed Strata. Every check prints what failed; the exit status is the
 * number of failures (capped at 1). */
#include <strata/c/strata_c.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)
#define CHECK_STATUS(call, expected)                                               \
  do {                                                                             \
    strata_status s_ = (call);                                                     \
    if (s_ != (expected)) {                                                        \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d; last error: %s\n", \
              __FILE__, __LINE__, #call, s_, strata_status_name(s_), (expected),   \
              strata_last_error_message());                                        \
      ++failures;                                                                  \
    }                                                                              \
  } while (0)

static int starts_with(const char* text, const char* prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The diamond 0 -> {1, 2} -> 3: groups {0} {1 2} {3}. */
static const uint32_t diamond32[] = {0, 1, 0, 2, 1, 3, 2, 3};
static const uint64_t diamond64[] = {0, 1, 0, 2, 1, 3, 2, 3};

static void test_not_initialized(void) {
  strata_plan_t* plan = (strata_plan_t*)1;
  CHECK(strata_is_initialized() == 0);
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, &plan), STRATA_ERROR_NOT_INITIALIZED);
  CHECK(plan == NULL);
  CHECK(strata_last_error_kind() == STRATA_ERROR_NOT_INITIALIZED);
  CHECK(strstr(strata_last_error_message(), "Fix: call strata_initialize()") != NULL);
}

static void test_handle_u32(void) {
  strata_plan_t* plan = NULL;
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, &plan), STRATA_OK);
  CHECK(plan != NULL);
  CHECK(strata_last_error_kind() == STRATA_OK);
  CHECK(strcmp(strata_last_error_message(), "") == 0);
  CHECK(strata_plan_ordinal_bits(plan) == 32);
  CHECK(strata_plan_wave_count(plan) == 4);
  CHECK(strata_plan_group_count(plan) == 3);
  CHECK(strata_plan_global_barriers(plan) == 2);
  const uint32_t* offsets = strata_plan_group_offsets_u32(plan);
  const uint32_t* waves = strata_plan_waves_u32(plan);
  const uint32_t* levels = strata_plan_levels_u32(plan);
  CHECK(offsets && waves && levels);
  if (offsets && waves && levels) {
    const uint32_t want_offsets[] = {0, 1, 3, 4}, want_waves[] = {0, 1, 2, 3},
                   want_levels[] = {0, 1, 1, 2};
    CHECK(memcmp(offsets, want_offsets, sizeof want_offsets) == 0);
    CHECK(memcmp(waves, want_waves, sizeof want_waves) == 0);
    CHECK(memcmp(levels, want_levels, sizeof want_levels) == 0);
  }
  /* Wrong width: NULL and InvalidArgument naming the right accessor. */
  CHECK(strata_plan_waves_u64(plan) == NULL);
  CHECK(strata_last_error_kind() == STRATA_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(strata_last_error_message(), "Fix: use the _u32 accessor") != NULL);
  strata_plan_destroy(plan);
  strata_plan_destroy(NULL);
  CHECK(strata_plan_group_count(NULL) == 0);
}

static void test_handle_u64(void) {
  strata_plan_t* plan = NULL;
  /* Wave ids beyond 32 bits: 2^33 waves would be too big to plan, so the
   * 64-bit path is checked on the diamond plus a duplicate edge. */
  const uint64_t pairs[] = {0, 1, 0, 2, 1, 3, 2, 3, 2, 3};
  CHECK_STATUS(strata_plan_u64(4, pairs, 5, &plan), STRATA_OK);
  CHECK(strata_plan_ordinal_bits(plan) == 64);
  CHECK(strata_plan_group_count(plan) == 3);
  const uint64_t* offsets = strata_plan_group_offsets_u64(plan);
  const uint64_t* waves = strata_plan_waves_u64(plan);
  CHECK(offsets && waves);
  if (offsets && waves) {
    CHECK(offsets[0] == 0 && offsets[1] == 1 && offsets[2] == 3 && offsets[3] == 4);
    CHECK(waves[0] == 0 && waves[1] == 1 && waves[2] == 2 && waves[3] == 3);
  }
  CHECK(strata_plan_levels_u32(plan) == NULL);
  strata_plan_destroy(plan);
  (void)diamond64;
}

static void test_into(void) {
  uint32_t offsets[5], waves[4], levels[4];
  uint64_t groups = 99;
  memset(offsets, 0xff, sizeof offsets);
  CHECK_STATUS(strata_plan_into_u32(4, diamond32, 4, offsets, 5, waves, 4, levels, 4, &groups),
               STRATA_OK);
  CHECK(groups == 3);
  CHECK(offsets[0] == 0 && offsets[1] == 1 && offsets[2] == 3 && offsets[3] == 4);
  CHECK(offsets[4] == 0xffffffffu); /* only group_count + 1 entries are written */
  CHECK(waves[0] == 0 && waves[1] == 1 && waves[2] == 2 && waves[3] == 3);
  CHECK(levels[0] == 0 && levels[1] == 1 && levels[2] == 1 && levels[3] == 2);

  /* levels not wanted */
  CHECK_STATUS(strata_plan_into_u32(4, diamond32, 4, offsets, 4, waves, 4, NULL, 0, &groups),
               STRATA_OK);
  CHECK(groups == 3);

  /* group_offsets too short: BufferTooSmall, the group count to retry with, nothing written */
  uint32_t short_offsets[3] = {7, 7, 7};
  memset(waves, 0xab, sizeof waves);
  CHECK_STATUS(
      strata_plan_into_u32(4, diamond32, 4, short_offsets, 3, waves, 4, NULL, 0, &groups),
      STRATA_ERROR_BUFFER_TOO_SMALL);
  CHECK(groups == 3);
  CHECK(short_offsets[0] == 7 && short_offsets[2] == 7);
  CHECK(waves[0] == 0xababababu);
  strata_error_info info;
  strata_last_error_info(&info);
  CHECK(info.kind == STRATA_ERROR_BUFFER_TOO_SMALL);
  CHECK(info.requested == 4);
  CHECK(strcmp(info.field, "group_offsets") == 0);
  CHECK(starts_with(strata_last_error_message(), "BufferTooSmall: "));
  CHECK(strstr(strata_last_error_message(), "Fix: pass an array of at least 4 elements") != NULL);

  /* waves too short: checked before planning */
  CHECK_STATUS(strata_plan_into_u32(4, diamond32, 4, offsets, 5, waves, 3, NULL, 0, &groups),
               STRATA_ERROR_BUFFER_TOO_SMALL);
  CHECK(groups == 0);
  strata_last_error_info(&info);
  CHECK(info.requested == 4 && strcmp(info.field, "waves") == 0);
  /* levels too short */
  CHECK_STATUS(strata_plan_into_u32(4, diamond32, 4, offsets, 5, waves, 4, levels, 2, &groups),
               STRATA_ERROR_BUFFER_TOO_SMALL);

  /* 64-bit into */
  uint64_t offsets64[5], waves64[4];
  CHECK_STATUS(
      strata_plan_into_u64(4, diamond64, 4, offsets64, 5, waves64, 4, NULL, 0, &groups),
      STRATA_OK);
  CHECK(groups == 3 && offsets64[3] == 4 && waves64[3] == 3);
}

static void test_errors(void) {
  strata_plan_t* plan = (strata_plan_t*)1;
  strata_error_info info;

  const uint32_t cycle[] = {0, 1, 1, 2, 2, 0, 3, 0};
  CHECK_STATUS(strata_plan_u32(4, cycle, 4, &plan), STRATA_ERROR_CYCLE);
  CHECK(plan == NULL);
  CHECK(starts_with(strata_last_error_message(), "Cycle: "));
  CHECK(strstr(strata_last_error_message(), "Fix:") != NULL);
  strata_last_error_info(&info);
  CHECK(info.kind == STRATA_ERROR_CYCLE && info.unscheduled_waves == 3);

  /* InvalidWave: the first offender in input order */
  const uint32_t invalid[] = {0, 1, 1, 9, 7, 2};
  CHECK_STATUS(strata_plan_u32(4, invalid, 3, &plan), STRATA_ERROR_INVALID_WAVE);
  strata_last_error_info(&info);
  CHECK(info.wave_count == 4 && info.before == 1 && info.after == 9);
  CHECK(starts_with(strata_last_error_message(), "InvalidWave: "));

  const uint64_t self[] = {0, 1, 2, 2};
  CHECK_STATUS(strata_plan_u64(3, self, 2, &plan), STRATA_ERROR_SELF_DEPENDENCY);
  strata_last_error_info(&info);
  CHECK(info.wave == 2);

  /* wave_count == 0: empty plan; any dependency then is InvalidWave */
  CHECK_STATUS(strata_plan_u32(0, NULL, 0, &plan), STRATA_OK);
  CHECK(strata_plan_group_count(plan) == 0 && strata_plan_global_barriers(plan) == 0);
  CHECK(strata_plan_group_offsets_u32(plan) != NULL && strata_plan_group_offsets_u32(plan)[0] == 0);
  strata_plan_destroy(plan);
  CHECK_STATUS(strata_plan_u32(0, diamond32, 1, &plan), STRATA_ERROR_INVALID_WAVE);

  /* a wave count that does not fit 32 bits */
  CHECK_STATUS(strata_plan_u32((uint64_t)1 << 33, NULL, 0, &plan), STRATA_ERROR_COUNT_OVERFLOW);
  strata_last_error_info(&info);
  CHECK(strlen(info.field) > 0);

  /* NULL arguments */
  CHECK_STATUS(strata_plan_u32(4, NULL, 4, &plan), STRATA_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(strata_last_error_message(), "pairs is NULL") != NULL);
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, NULL), STRATA_ERROR_INVALID_ARGUMENT);
  uint32_t offsets[5], waves[4];
  CHECK_STATUS(strata_plan_into_u32(4, diamond32, 4, offsets, 5, waves, 4, NULL, 0, NULL),
               STRATA_ERROR_INVALID_ARGUMENT);

  /* a successful call clears the last error */
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, &plan), STRATA_OK);
  CHECK(strata_last_error_kind() == STRATA_OK && strata_last_error_message()[0] == '\0');
  strata_plan_destroy(plan);

  CHECK(strcmp(strata_status_name(STRATA_ERROR_CYCLE), "Cycle") == 0);
  CHECK(strcmp(strata_status_name(STRATA_ERROR_BUFFER_TOO_SMALL), "BufferTooSmall") == 0);
  CHECK(strcmp(strata_status_name(12345), "Unknown") == 0);
}

/* A sweep over an NX x NY grid of waves, ids in a scrambled order: the level
 * of (i, j) is i + j. */
static void test_sweep_grid(void) {
  enum { NX = 40, NY = 25, V = NX * NY };
  static uint32_t id[V], pairs[2 * 2 * V];
  for (uint32_t k = 0; k < V; ++k) id[k] = (k * 7919u) % V; /* 7919 is prime, coprime to V */
  size_t e = 0;
  for (uint32_t j = 0; j < NY; ++j)
    for (uint32_t i = 0; i < NX; ++i) {
      if (i > 0) { pairs[2 * e] = id[j * NX + i - 1]; pairs[2 * e + 1] = id[j * NX + i]; ++e; }
      if (j > 0) { pairs[2 * e] = id[(j - 1) * NX + i]; pairs[2 * e + 1] = id[j * NX + i]; ++e; }
    }
  strata_plan_t* plan = NULL;
  CHECK_STATUS(strata_plan_u32(V, pairs, e, &plan), STRATA_OK);
  CHECK(strata_plan_group_count(plan) == NX + NY - 1);
  const uint32_t* levels = strata_plan_levels_u32(plan);
  const uint32_t* offsets = strata_plan_group_offsets_u32(plan);
  const uint32_t* waves = strata_plan_waves_u32(plan);
  int bad = 0;
  for (uint32_t j = 0; j < NY && levels; ++j)
    for (uint32_t i = 0; i < NX; ++i)
      if (levels[id[j * NX + i]] != i + j) ++bad;
  CHECK(bad == 0);
  for (uint64_t g = 0; g < strata_plan_group_count(plan) && offsets; ++g)
    for (uint32_t k = offsets[g]; k < offsets[g + 1]; ++k) {
      if (levels[waves[k]] != g) ++bad;
      if (k > offsets[g] && waves[k - 1] >= waves[k]) ++bad; /* ascending inside a group */
    }
  CHECK(bad == 0);
  strata_plan_destroy(plan);
}

/* The last error is per thread: a failure on another thread is not seen here.
 * (The failure is an argument check, so no Kokkos kernel runs off the thread
 * that initialised Kokkos.) */
static void* fail_in_thread(void* arg) {
  strata_plan_t* plan = NULL;
  *(strata_status*)arg = strata_plan_u32(2, NULL, 1, &plan);
  return NULL;
}

static void test_thread_local_error(void) {
  strata_plan_t* plan = NULL;
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, &plan), STRATA_OK);
  strata_plan_destroy(plan);
  strata_status other = STRATA_OK;
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, fail_in_thread, &other) == 0);
  pthread_join(thread, NULL);
  CHECK(other == STRATA_ERROR_INVALID_ARGUMENT);
  CHECK(strata_last_error_kind() == STRATA_OK);
}

/* Planning works from any thread, also several at once (serialised inside),
 * and gives the plan the initialising thread gets. */
static void* plan_in_thread(void* arg) {
  uint32_t offsets[5], waves[4], levels[4];
  uint64_t groups = 0;
  strata_status status = STRATA_OK;
  int round;
  for (round = 0; round < 20 && status == STRATA_OK; ++round) {
    status = strata_plan_into_u32(4, diamond32, 4, offsets, 5, waves, 4, levels, 4, &groups);
    if (status == STRATA_OK && (groups != 3 || waves[3] != 3 || levels[3] != 2))
      status = STRATA_ERROR_INTERNAL;
  }
  *(strata_status*)arg = status;
  return NULL;
}

static void test_plan_from_other_threads(void) {
  enum { threads = 3 };
  pthread_t thread[threads];
  strata_status status[threads];
  int i;
  for (i = 0; i < threads; ++i) {
    status[i] = STRATA_ERROR_INTERNAL;
    CHECK(pthread_create(&thread[i], NULL, plan_in_thread, &status[i]) == 0);
  }
  for (i = 0; i < threads; ++i) {
    pthread_join(thread[i], NULL);
    CHECK(status[i] == STRATA_OK);
  }
}

/* A count beyond the ordinal type is CountOverflow before anything is sized
 * from it (2^60 pairs were an internal "vector max_size" error). */
static void test_count_beyond_types(void) {
  strata_plan_t* plan = NULL;
  CHECK_STATUS(strata_plan_u32(4, diamond32, (size_t)1 << 40, &plan), STRATA_ERROR_COUNT_OVERFLOW);
  CHECK(plan == NULL);
  CHECK_STATUS(strata_plan_u64(4, diamond64, (size_t)1 << 60, &plan), STRATA_ERROR_COUNT_OVERFLOW);
  CHECK(plan == NULL);
  CHECK(strstr(strata_last_error_message(), "Fix:") != NULL);
}

/* The diamond as a CSR, each way: out-edges, in-edges, and the lower and
 * upper triangles of a matrix holding its diagonal; all four give the
 * diamond's plan. */
static void check_diamond(strata_plan_t* plan) {
  CHECK(plan != NULL && strata_plan_group_count(plan) == 3);
  if (plan == NULL) return;
  if (strata_plan_ordinal_bits(plan) == 32) {
    const uint32_t* levels = strata_plan_levels_u32(plan);
    CHECK(levels && levels[0] == 0 && levels[1] == 1 && levels[2] == 1 && levels[3] == 2);
  } else {
    const uint64_t* levels = strata_plan_levels_u64(plan);
    CHECK(levels && levels[0] == 0 && levels[1] == 1 && levels[2] == 1 && levels[3] == 2);
  }
  strata_plan_destroy(plan);
}

static void test_csr(void) {
  strata_plan_t* plan = NULL;
  strata_error_info info;
  const uint32_t out_map[] = {0, 2, 3, 4, 4}, out_entries[] = {1, 2, 3, 3};
  const uint32_t in_map[] = {0, 0, 1, 2, 4}, in_entries[] = {0, 0, 1, 2};
  /* L with its diagonal (rows 0..3), and U = L transposed with the diamond reversed */
  const uint32_t lower_map[] = {0, 1, 3, 5, 8}, lower_entries[] = {0, 0, 1, 0, 2, 1, 2, 3};
  const uint64_t upper_map[] = {0, 3, 5, 7, 8}, upper_entries[] = {0, 1, 2, 1, 3, 2, 3, 3};
  const uint64_t out_map64[] = {0, 2, 3, 4, 4}, out_entries64[] = {1, 2, 3, 3};
  CHECK_STATUS(strata_plan_csr_u32(4, out_map, out_entries, 4, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_OK);
  check_diamond(plan);
  CHECK_STATUS(strata_plan_csr_u32(4, in_map, in_entries, 4, STRATA_CSR_IN_EDGES, &plan),
               STRATA_OK);
  check_diamond(plan);
  CHECK_STATUS(
      strata_plan_csr_u32(4, lower_map, lower_entries, 8, STRATA_CSR_LOWER_TRIANGLE, &plan),
      STRATA_OK);
  check_diamond(plan);
  CHECK_STATUS(strata_plan_csr_u64(4, out_map64, out_entries64, 4, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_OK);
  check_diamond(plan);
  /* upper: row i waits for its columns j > i: 3 first, 0 last */
  CHECK_STATUS(
      strata_plan_csr_u64(4, upper_map, upper_entries, 8, STRATA_CSR_UPPER_TRIANGLE, &plan),
      STRATA_OK);
  {
    const uint64_t* levels = plan ? strata_plan_levels_u64(plan) : NULL;
    CHECK(levels && levels[3] == 0 && levels[1] == 1 && levels[2] == 1 && levels[0] == 2);
    strata_plan_destroy(plan);
  }
  /* an empty CSR */
  const uint32_t empty_map[] = {0};
  CHECK_STATUS(strata_plan_csr_u32(0, empty_map, NULL, 0, STRATA_CSR_OUT_EDGES, &plan), STRATA_OK);
  CHECK(strata_plan_group_count(plan) == 0);
  strata_plan_destroy(plan);

  /* bad CSRs: typed status, the row and index in the info, a Fix: hint */
  const uint32_t bad_start[] = {1, 2, 3, 4, 4};
  CHECK_STATUS(strata_plan_csr_u32(4, bad_start, out_entries, 4, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_ERROR_INVALID_CSR);
  CHECK(plan == NULL);
  CHECK(starts_with(strata_last_error_message(),
                    "InvalidCsr: strata_plan_csr_u32: row_map[0] is 1"));
  CHECK(strstr(strata_last_error_message(), "Fix:") != NULL);
  const uint32_t decreasing[] = {0, 2, 1, 4, 4};
  CHECK_STATUS(strata_plan_csr_u32(4, decreasing, out_entries, 4, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_ERROR_INVALID_CSR);
  strata_last_error_info(&info);
  CHECK(info.kind == STRATA_ERROR_INVALID_CSR && info.wave == 1 && info.requested == 2);
  CHECK(strcmp(info.field, "row_map") == 0);
  CHECK(strstr(strata_last_error_message(), "row_map decreases at row 1") != NULL);
  CHECK_STATUS(strata_plan_csr_u32(4, out_map, out_entries, 3, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_ERROR_INVALID_CSR);
  CHECK(strstr(strata_last_error_message(), "but entry_count is 3") != NULL);
  const uint32_t out_of_range[] = {1, 2, 9, 3};
  CHECK_STATUS(strata_plan_csr_u32(4, out_map, out_of_range, 4, STRATA_CSR_IN_EDGES, &plan),
               STRATA_ERROR_INVALID_CSR);
  strata_last_error_info(&info);
  CHECK(info.wave == 1 && info.requested == 2 && strcmp(info.field, "entries") == 0);
  CHECK(strstr(strata_last_error_message(), "entries[2] = 9 (row 1)") != NULL);
  CHECK_STATUS(strata_plan_csr_u32(4, NULL, out_entries, 4, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_ERROR_INVALID_CSR);
  CHECK_STATUS(strata_plan_csr_u32(4, out_map, NULL, 4, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_ERROR_INVALID_CSR);
  CHECK_STATUS(strata_plan_csr_u32(4, out_map, out_entries, 4, 7, &plan),
               STRATA_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(strata_plan_csr_u32(4, out_map, out_entries, 4, STRATA_CSR_OUT_EDGES, NULL),
               STRATA_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(strata_status_name(STRATA_ERROR_INVALID_CSR), "InvalidCsr") == 0);
  /* a diagonal entry of an edge CSR is a self dependency; a cycle is a cycle */
  CHECK_STATUS(strata_plan_csr_u32(4, lower_map, lower_entries, 8, STRATA_CSR_IN_EDGES, &plan),
               STRATA_ERROR_SELF_DEPENDENCY);
  const uint32_t cycle_map[] = {0, 1, 2}, cycle_entries[] = {1, 0};
  CHECK_STATUS(strata_plan_csr_u32(2, cycle_map, cycle_entries, 2, STRATA_CSR_OUT_EDGES, &plan),
               STRATA_ERROR_CYCLE);
}

int main(void) {
  test_not_initialized();
  CHECK_STATUS(strata_initialize(), STRATA_OK);
  CHECK_STATUS(strata_initialize(), STRATA_OK); /* idempotent */
  CHECK(strata_is_initialized() == 1);
  printf("strata %s on %s\n", strata_version(), strata_execution_space_name());

  test_handle_u32();
  test_handle_u64();
  test_into();
  test_errors();
  test_sweep_grid();
  test_thread_local_error();
  test_plan_from_other_threads();
  test_count_beyond_types();
  test_csr();

  /* A plan outlives finalize; planning afterwards is NotInitialized, and
   * Kokkos cannot restart. */
  strata_plan_t* plan = NULL;
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, &plan), STRATA_OK);
  CHECK_STATUS(strata_finalize(), STRATA_OK);
  CHECK(strata_is_initialized() == 0);
  CHECK(strata_plan_group_count(plan) == 3 && strata_plan_waves_u32(plan)[3] == 3);
  strata_plan_destroy(plan);
  CHECK_STATUS(strata_plan_u32(4, diamond32, 4, &plan), STRATA_ERROR_NOT_INITIALIZED);
  CHECK(strstr(strata_last_error_message(), "cannot restart") != NULL);
  CHECK_STATUS(strata_initialize(), STRATA_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(strata_finalize(), STRATA_OK); /* nothing left to finalise */

  if (failures) {
    fprintf(stderr, "tst_c_api: %d check(s) failed\n", failures);
    return 1;
  }
  printf("tst_c_api: all checks passed\n");
  return 0;
}
