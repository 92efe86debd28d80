// GoogleTest main shared by every unit test executable: Kokkos is initialised
// once around the whole run (thread counts come from the environment, e.g.
// OMP_NUM_THREADS, or from --kokkos-threads=N).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
