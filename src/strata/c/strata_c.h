/*
 * strata_c.h: the C interface of Strata, for codes in C and, through
 * iso_c_binding, Fortran (see strata_c.f90 next to this header).
 *
 *   #include <strata/c/strata_c.h>      (installed as <prefix>/include/strata/c/strata_c.h)
 *
 * Every function returns a status (STRATA_OK == 0) or a plain value and never
 * lets a C++ exception cross into the caller. When a function fails, the error
 * kind and a message that ends with a "Fix:" hint stay retrievable on the
 * calling thread (strata_last_error_*) until the next failing call on that
 * thread or a successful initialize / finalize / plan call, which clears them
 * (queries such as accessors leave them alone). On failure no output is
 * written.
 *
 * Planning runs on Kokkos::DefaultExecutionSpace (OpenMP, CUDA, ... whatever
 * the installed Strata was built with). Call strata_initialize() first: it
 * initialises Kokkos unless the program already did. Planning works from any
 * thread: calls are serialised by a process-wide lock (Kokkos does not promise
 * concurrent dispatch on one execution space), and a thread that Kokkos'
 * OpenMP backend cannot run from (not the thread that initialised Kokkos 3.x,
 * or one inside an OpenMP parallel region) plans on Kokkos::Serial; the plan
 * is the same. The last-error state is per thread.
 *
 * Dependencies are a host array of 2 * dependency_count integers:
 * pairs[2*i] = before, pairs[2*i+1] = after ("after waits for before"),
 * or a CSR (row_map / entries, strata_plan_csr_u32/_u64 below).
 * The result is the Kahn layering: group g holds the waves
 * waves[group_offsets[g]] .. waves[group_offsets[g+1] - 1], ascending, groups
 * in layer order; levels[w] is the group of wave w; global barriers =
 * groups - 1 (0 when there are no waves).
 */
#ifndef STRATA_C_H
#define STRATA_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. 1..8 are the kinds of strata::PlanError (strata::ErrorKind),
 * with the same numbers. An int, so Fortran reads it as integer(c_int). */
typedef int strata_status;
enum {
  STRATA_OK = 0,
  STRATA_ERROR_INVALID_WAVE = 1,            /* a dependency names a wave >= wave_count */
  STRATA_ERROR_SELF_DEPENDENCY = 2,         /* a wave depends on itself */
  STRATA_ERROR_CYCLE = 3,                   /* the graph is not a DAG */
  STRATA_ERROR_COUNT_OVERFLOW = 4,          /* a count does not fit the ordinal type */
  STRATA_ERROR_STORAGE_RESERVE_FAILED = 5,  /* an allocation failed */
  STRATA_ERROR_INVALID_ARGUMENT = 6,        /* NULL pointer, wrong width, bad call order */
  STRATA_ERROR_PARSE_ERROR = 7,
  STRATA_ERROR_IO_ERROR = 8,
  STRATA_ERROR_BUFFER_TOO_SMALL = 100,      /* a caller-provided array is too short */
  STRATA_ERROR_NOT_INITIALIZED = 101,       /* strata_initialize() was not called */
  STRATA_ERROR_INVALID_CSR = 102,           /* row_map / entries do not form a CSR */
  STRATA_ERROR_INTERNAL = 255               /* an unexpected exception (a bug: report it) */
};

/* Name of a status ("Cycle", "BufferTooSmall", ...); never NULL. */
const char* strata_status_name(strata_status status);

/* ---- Start and stop -------------------------------------------------- */

/* Initialises Kokkos (with its defaults and environment, e.g.
 * OMP_NUM_THREADS) unless it is already initialised. Calling it again is fine.
 * Kokkos cannot be initialised again after it was finalised. It applies the
 * strata tool's rules first: STRATA_ERROR_INVALID_ARGUMENT for a malformed
 * KOKKOS_NUM_THREADS or a thread count beyond what Kokkos can start
 * (OMP_NUM_THREADS=600), OMP_PROC_BIND=false when no thread binding is set
 * (no Kokkos warning), and, when MPI is initialised first and several ranks
 * share the node, cores / ranks on the node threads per rank unless
 * OMP_NUM_THREADS or KOKKOS_NUM_THREADS is set. */
strata_status strata_initialize(void);
/* Finalises Kokkos if, and only if, strata_initialize() initialised it.
 * Plans (strata_plan_t) hold plain host memory and stay valid afterwards. */
strata_status strata_finalize(void);
/* 1 when Kokkos is initialised (by Strata or by the program), else 0. */
int strata_is_initialized(void);
/* The Kokkos execution space plans run on ("OpenMP", "Serial", ...). */
const char* strata_execution_space_name(void);
/* The library version, "MAJOR.MINOR.PATCH". */
const char* strata_version(void);

/* ---- Planning into a library-owned result ---------------------------- */

typedef struct strata_plan strata_plan_t;

/* Plans wave_count waves and dependency_count (before, after) pairs. On
 * STRATA_OK, *out is a plan that strata_plan_destroy() frees; on error *out is
 * set to NULL. pairs may be NULL when dependency_count is 0. */
strata_status strata_plan_u32(uint64_t wave_count, const uint32_t* pairs,
                              size_t dependency_count, strata_plan_t** out);
strata_status strata_plan_u64(uint64_t wave_count, const uint64_t* pairs,
                              size_t dependency_count, strata_plan_t** out);
/* Frees a plan; NULL is ignored. */
void strata_plan_destroy(strata_plan_t* plan);

/* Shape of a plan (0 for a NULL plan). */
uint64_t strata_plan_wave_count(const strata_plan_t* plan);
uint64_t strata_plan_group_count(const strata_plan_t* plan);
uint64_t strata_plan_global_barriers(const strata_plan_t* plan);
/* 32 for a plan from strata_plan_u32, 64 for one from strata_plan_u64. */
int strata_plan_ordinal_bits(const strata_plan_t* plan);

/* The plan's arrays, owned by the plan and valid until strata_plan_destroy():
 * group_offsets has group_count + 1 entries, waves and levels wave_count each.
 * The _u32 accessors are for plans from strata_plan_u32, the _u64 ones for
 * plans from strata_plan_u64; the wrong width (or a NULL plan) returns NULL
 * and sets the last error to STRATA_ERROR_INVALID_ARGUMENT. A plan without
 * waves has a group_offsets of one element (0); its waves and levels may be
 * NULL. */
const uint32_t* strata_plan_group_offsets_u32(const strata_plan_t* plan);
const uint32_t* strata_plan_waves_u32(const strata_plan_t* plan);
const uint32_t* strata_plan_levels_u32(const strata_plan_t* plan);
const uint64_t* strata_plan_group_offsets_u64(const strata_plan_t* plan);
const uint64_t* strata_plan_waves_u64(const strata_plan_t* plan);
const uint64_t* strata_plan_levels_u64(const strata_plan_t* plan);

/* ---- Planning from a CSR (a sparse matrix's row_map / entries) -------- */

/* What row w of a CSR lists. An int, so Fortran passes it as integer(c_int). */
typedef int strata_csr_kind;
enum {
  STRATA_CSR_OUT_EDGES = 0,       /* the waves that wait for w (w -> entries[k]) */
  STRATA_CSR_IN_EDGES = 1,        /* the waves w waits for (entries[k] -> w) */
  STRATA_CSR_LOWER_TRIANGLE = 2,  /* the columns of row w of a matrix: w waits for
                                     every column j < w; j == w and j > w are ignored
                                     (a factor L, diagonal included, as it is stored) */
  STRATA_CSR_UPPER_TRIANGLE = 3   /* the same with j > w (a factor U) */
};

/* Plans a CSR of wave_count rows: row_map has wave_count + 1 offsets,
 * row w's entries are entries[row_map[w]] .. entries[row_map[w+1] - 1], and
 * entry_count is the length of entries. A malformed CSR is
 * STRATA_ERROR_INVALID_CSR, checked before anything is planned, in this order:
 * row_map NULL; row_map[0] != 0; row_map[w+1] < row_map[w] (info.wave = w,
 * info.requested = w + 1); row_map[wave_count] != entry_count; entries NULL
 * with entries to read; entries[k] >= wave_count (info.wave = its row,
 * info.requested = k). info.field names the array ("row_map", "entries").
 * Then it plans like strata_plan_u32/_u64 (a self entry in an IN/OUT_EDGES
 * CSR is STRATA_ERROR_SELF_DEPENDENCY, a cycle STRATA_ERROR_CYCLE, ...). */
strata_status strata_plan_csr_u32(uint64_t wave_count, const uint32_t* row_map,
                                  const uint32_t* entries, size_t entry_count,
                                  strata_csr_kind kind, strata_plan_t** out);
strata_status strata_plan_csr_u64(uint64_t wave_count, const uint64_t* row_map,
                                  const uint64_t* entries, size_t entry_count,
                                  strata_csr_kind kind, strata_plan_t** out);

/* ---- Planning into caller-provided arrays ---------------------------- */

/* Plans like strata_plan_u32/_u64 and writes the result into the caller's
 * arrays, whose capacities (in elements) are checked:
 *   waves            >= wave_count                 (checked before planning)
 *   levels           >= wave_count, or levels NULL (not wanted)
 *   group_offsets    >= group_count + 1; wave_count + 1 is always enough
 * If group_offsets is too short, STRATA_ERROR_BUFFER_TOO_SMALL is returned,
 * *group_count is set to the plan's group count (so the caller can retry with
 * group_count + 1) and no array is written. On STRATA_OK *group_count is the
 * number of groups. On any other error *group_count is 0. */
strata_status strata_plan_into_u32(uint64_t wave_count, const uint32_t* pairs,
                                   size_t dependency_count, uint32_t* group_offsets,
                                   size_t group_offsets_capacity, uint32_t* waves,
                                   size_t waves_capacity, uint32_t* levels,
                                   size_t levels_capacity, uint64_t* group_count);
strata_status strata_plan_into_u64(uint64_t wave_count, const uint64_t* pairs,
                                   size_t dependency_count, uint64_t* group_offsets,
                                   size_t group_offsets_capacity, uint64_t* waves,
                                   size_t waves_capacity, uint64_t* levels,
                                   size_t levels_capacity, uint64_t* group_count);

/* ---- Errors (per thread) ---------------------------------------------- */

/* The status of the last failed call, STRATA_OK after a successful one. */
strata_status strata_last_error_kind(void);
/* Its message, e.g. "Cycle: wave dependency graph contains a cycle with 3
 * unscheduled waves. Fix: ..."; "" after a successful call. Never NULL; valid
 * until the last error of this thread changes. */
const char* strata_last_error_message(void);

/* The fields of the last error (those that do not belong to its kind are 0
 * or ""), mirroring strata::PlanError. */
typedef struct strata_error_info {
  strata_status kind;
  uint64_t wave_count;        /* InvalidWave */
  uint64_t before;            /* InvalidWave */
  uint64_t after;             /* InvalidWave */
  uint64_t wave;              /* SelfDependency; InvalidCsr: the row */
  uint64_t unscheduled_waves; /* Cycle */
  uint64_t requested;         /* StorageReserveFailed; BufferTooSmall: elements needed;
                                 InvalidCsr: the index into row_map / entries */
  uint64_t line;              /* ParseError */
  const char* field;          /* CountOverflow, StorageReserveFailed, BufferTooSmall,
                                 InvalidCsr: which array */
} strata_error_info;
/* Copies the last error's fields into *info (info must not be NULL).
 * info->field stays valid until the last error of this thread changes. */
void strata_last_error_info(strata_error_info* info);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRATA_C_H */
