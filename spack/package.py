# Spack recipe for Strata.
#
# Written for Spack >= 1.0 (package API v2: the build-system base classes come
# from the builtin repository, spack_repo.builtin.build_systems). Checked with
# `spack info` and `spack audit packages` against Spack 1.2.0.dev0 and the
# spack-packages builtin repository (not concretized: that needs clingo, which
# could not be bootstrapped offline). See spack/README.md for how to use it as
# a local repository.
#
# Backend forwarding follows Spack's own Kokkos-based recipes (arborx, cabana,
# ddc, kokkos-kernels): Strata has no backend switches of its own, it builds
# for whatever the Kokkos it finds provides, so the variants below only steer
# which Kokkos / Kokkos Kernels the concretizer picks.

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage
from spack_repo.builtin.build_systems.rocm import ROCmPackage

from spack.package import *


class Strata(CMakePackage, CudaPackage, ROCmPackage):
    """Strata: a Kokkos-based planner that turns a wave dependency DAG into the
    fewest global synchronisation layers."""

    # NOTE: not a published location yet. This is the project's *intended*
    # repository; until it exists, install from a local checkout with
    # `spack dev-build` / `spack develop` (see spack/README.md) or point `git`
    # at a clone you can reach.
    homepage = "https://github.com/strata-hpc/strata"
    git = "https://github.com/strata-hpc/strata.git"

    # Keep in sync with the LICENSE file of the project.
    license("BSD-3-Clause")

    version("main", branch="main")

    variant("mpi", default=True, description="Build with MPI support (STRATA_ENABLE_MPI)")
    variant("openmp", default=False, description="Use a Kokkos with the OpenMP backend")
    variant("tests", default=False, description="Build the GoogleTest unit tests")
    # cuda / cuda_arch and rocm / amdgpu_target come from CudaPackage / ROCmPackage.

    depends_on("cxx", type="build")
    depends_on("cmake@3.16:", type="build")

    depends_on("kokkos@3.4:")
    depends_on("kokkos-kernels@3.4:")
    depends_on("mpi", when="+mpi")

    # Unit tests (GoogleTest, linked only into the test executables, which are
    # not installed) and the CLI test driver (a Python 3 script, found with
    # find_package(Python3) at configure time). Needed at build time with
    # +tests (as cabana does for +testing), and as test dependencies when
    # `spack install --test=root` turns the tests on without +tests.
    with when("+tests"):
        depends_on("googletest", type="build")
        depends_on("python@3:", type="build")
    depends_on("googletest", type="test")
    depends_on("python@3:", type="test")

    # Host backend.
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos-kernels+openmp", when="+openmp")

    # CUDA: forward the architecture to Kokkos and Kokkos Kernels (arborx,
    # cabana, ddc do the same).
    for _arch in CudaPackage.cuda_arch_values:
        _cuda_dep = f"+cuda cuda_arch={_arch}"
        depends_on(f"kokkos {_cuda_dep}", when=_cuda_dep)
        depends_on(f"kokkos-kernels {_cuda_dep}", when=_cuda_dep)
    # KOKKOS_LAMBDA in device code needs Kokkos' lambda support on CUDA; the
    # variant only exists up to Kokkos 4 (always on from Kokkos 5).
    requires("^kokkos+cuda_lambda", when="+cuda ^kokkos@:4")

    # ROCm: Kokkos Kernels has no rocm variant, it follows its Kokkos.
    for _target in ROCmPackage.amdgpu_targets:
        _rocm_dep = f"+rocm amdgpu_target={_target}"
        depends_on(f"kokkos {_rocm_dep}", when=_rocm_dep)

    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a cuda_arch=<arch>")
    conflicts("+rocm", when="amdgpu_target=none", msg="+rocm needs an amdgpu_target=<target>")
    conflicts("+cuda", when="+rocm", msg="Kokkos cannot enable CUDA and HIP together")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix),
            # Not an option of the CMake project yet: until it is, CMake only
            # warns that the variable is unused.
            self.define_from_variant("STRATA_ENABLE_MPI", "mpi"),
            # `spack install --test=root` needs the tests even without +tests.
            self.define("STRATA_ENABLE_TESTS", spec.satisfies("+tests") or self.run_tests),
            self.define("STRATA_ENABLE_TOOLS", True),
        ]
        # As arborx does: compile with the compiler Kokkos was built with
        # (nvcc_wrapper for ^kokkos+wrapper) on CUDA, and with hipcc on ROCm.
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
        if spec.satisfies("+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["hip"].hipcc))
        return args

    # Build-time tests. The CMakeBuilder already runs `make test` after the
    # build phase when tests are requested (`spack install --test=root`);
    # overriding check() keeps that trigger but calls ctest directly so that
    # failing tests show their output (same idiom as the builtin draco recipe).
    def check(self):
        with working_dir(self.build_directory):
            ctest("--output-on-failure")
