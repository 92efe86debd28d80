# Sanitizer and fuzzing builds (both OFF by default).
#
#   STRATA_SANITIZE=ON        every Strata target (library, tool, tests) is built
#                             with AddressSanitizer + UndefinedBehaviorSanitizer;
#                             UB is fatal (-fno-sanitize-recover). The Kokkos
#                             libraries linked in are not instrumented.
#   STRATA_ENABLE_FUZZERS=ON  the libFuzzer harnesses in unit_test/fuzz/ (clang
#                             only); implies the sanitizers, and adds coverage
#                             instrumentation (-fsanitize=fuzzer-no-link) to the
#                             library so the fuzzer sees inside the reader and
#                             the planner.
#
# STRATA_SANITIZER_TEST_ENV is the environment every ctest test gets in such a
# build: allocator_may_return_null=1 makes a huge allocation (a test asks for
# 2^40 waves on purpose) return null, so Kokkos reports it and Strata turns it
# into StorageReserveFailed, instead of ASan aborting the process.

option(STRATA_SANITIZE "Build with -fsanitize=address,undefined" OFF)
option(STRATA_ENABLE_FUZZERS "Build the libFuzzer harnesses (clang; implies STRATA_SANITIZE)" OFF)

set(STRATA_SANITIZER_TEST_ENV)
if(STRATA_SANITIZE OR STRATA_ENABLE_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "STRATA_SANITIZE / STRATA_ENABLE_FUZZERS need GCC or Clang")
  endif()
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  set(STRATA_SANITIZER_TEST_ENV
      "ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=0"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  message(STATUS "Strata: AddressSanitizer + UndefinedBehaviorSanitizer on")
endif()
if(STRATA_ENABLE_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "STRATA_ENABLE_FUZZERS needs clang++ (libFuzzer): "
                        "configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "Strata: libFuzzer harnesses on")
endif()
