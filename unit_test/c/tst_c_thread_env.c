/* strata_initialize() under a thread count Kokkos cannot start with
 * (OMP_NUM_THREADS=600 crashed inside Kokkos' OpenMP start-up; a malformed
 * KOKKOS_NUM_THREADS was an "unexpected exception"): it must answer
 * STRATA_ERROR_INVALID_ARGUMENT with a Fix: hint, and leave Kokkos stopped.
 * Run by ctest with such a variable set (see CMakeLists.txt). */
#include <stdio.h>
#include <string.h>

#include <strata/c/strata_c.h>

int main(void) {
  const strata_status status = strata_initialize();
  const char* message = strata_last_error_message();
  printf("%s: %s\n", strata_status_name(status), message ? message : "(none)");
  if (status != STRATA_ERROR_INVALID_ARGUMENT) return 1;
  if (message == NULL || strstr(message, "Fix:") == NULL) return 1;
  if (strata_is_initialized() != 0) return 1;
  return 0;
}
