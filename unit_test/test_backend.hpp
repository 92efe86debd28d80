#pragma once
// Each backend test executable is compiled with one STRATA_TEST_BACKEND_*
// definition (see unit_test/CMakeLists.txt); the tests are written against
// TEST_EXECSPACE, so the same test source runs once per Kokkos backend.
#include <Kokkos_Core.hpp>

#if defined(STRATA_TEST_BACKEND_SERIAL)
using TEST_EXECSPACE = Kokkos::Serial;
#elif defined(STRATA_TEST_BACKEND_OPENMP)
using TEST_EXECSPACE = Kokkos::OpenMP;
#elif defined(STRATA_TEST_BACKEND_THREADS)
using TEST_EXECSPACE = Kokkos::Threads;
#elif defined(STRATA_TEST_BACKEND_CUDA)
using TEST_EXECSPACE = Kokkos::Cuda;
#elif defined(STRATA_TEST_BACKEND_HIP)
using TEST_EXECSPACE = Kokkos::Experimental::HIP;
#else
#error "compile with one STRATA_TEST_BACKEND_<NAME> definition"
#endif
