# Spack recipe for Strata.
#
# Written for Spack >= 1.0 (package API v2: the build-system base classes come
# from the builtin repository, spack_repo.builtin.build_systems), after the
# builtin arborx, cabana and kokkos-kernels recipes. See spack/README.md for
# how to use it as a local repository and how a release tarball is made.
#
# Strata has no backend switches of its own: it builds for the backends of the
# Kokkos it finds, so the backend variants below steer which Kokkos the
# concretizer picks (as arborx and cabana do).

import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage
from spack_repo.builtin.build_systems.rocm import ROCmPackage

from spack.package import *


class Strata(CMakePackage, CudaPackage, ROCmPackage):
    """Strata: a Kokkos-based planner that turns a wave dependency DAG into the
    fewest global synchronisation layers (Kahn layers), with an executor, a
    command-line tool and C, Fortran and Python interfaces."""

    # The project's intended location (not published yet). Until it is, the
    # release tarballs come from scripts/make_release_tarball.sh through a
    # file mirror, and `main` from a local checkout (spack/README.md).
    homepage = "https://github.com/strata-hpc/strata"
    url = "https://github.com/strata-hpc/strata/releases/download/v0.3.0/strata-0.3.0.tar.gz"
    git = "https://github.com/strata-hpc/strata.git"

    maintainers("strata-hpc")

    license("BSD-3-Clause")  # LICENSE

    test_requires_compiler = True

    version("main", branch="main")
    # A release adds its line here, with the sha256 that
    # `scripts/make_release_tarball.sh VERSION <release tag> | tail -1` prints.
    version("0.3.0", sha256="ba26a3d44bd636be7ba22ab761d9676c6478e9a47cccc1d8bb8c5074acc679c9")
    version("0.2.0", sha256="3f0c732b8bbf59b95dc18ad9cd9772c2f4bb04e3a6a4e8237fb2118cea02bc68")

    # Host backends, forwarded to Kokkos (cuda / cuda_arch and rocm /
    # amdgpu_target come from CudaPackage / ROCmPackage).
    variant("serial", default=True, description="Use a Kokkos with the Serial backend")
    variant("openmp", default=False, description="Use a Kokkos with the OpenMP backend")
    variant("mpi", default=True, description="Distributed planning over MPI (STRATA_ENABLE_MPI)")
    variant("shared", default=True, description="Build libstrata as a shared library")
    variant("tests", default=False, description="Build the unit and CLI tests (GoogleTest, Python)")
    variant("python", default=False, description="Build the Python module strata (pybind11, NumPy)")
    # Off by default: only the header-only interop and its tests use it.
    variant(
        "kokkos-kernels",
        default=False,
        description="The Kokkos Kernels interop (strata::kokkos_kernels::sptrsv_symbolic, "
        "STRATA_ENABLE_KOKKOS_KERNELS)",
    )

    depends_on("cxx", type="build")
    depends_on("cmake@3.16:", type="build")

    # What CI (Kokkos 3.4.01, Debian 12) and the GPU runs (Kokkos 4.6.01, CUDA,
    # H200) build against. Kokkos 5 requires C++20; Strata is C++17 and has
    # never been built against it.
    depends_on("kokkos@3.4:4.6")
    conflicts("^kokkos@5:", msg="Strata is built and tested against Kokkos 3.4 to 4.6 (C++17)")
    for _cxxstd in ("20", "23"):
        conflicts(
            f"^kokkos cxxstd={_cxxstd}",
            msg="Strata is C++17: use a Kokkos built with cxxstd=17 (a Kokkos built for a "
            "newer standard requires its consumers to compile with it)",
        )
    # Kokkos Kernels: only the header-only interop <strata/kokkos_kernels/...>
    # (and its test, example and the benchmarks against it) uses it; libstrata
    # does not link it, consumers of Strata::strata get it. A Kokkos Kernels
    # is built against the Kokkos of its own major.minor version. Spack's
    # kokkos-kernels recipe pins that, but an external Kokkos Kernels has no
    # dependencies, so the pairing is stated here (Strata's CMake refuses a
    # mismatch too).
    # (Written as conflicts, as Kokkos Kernels 3.4 to 3.6 exist only as
    # externals: Spack's kokkos-kernels recipe starts at 3.7.02.)
    depends_on("kokkos-kernels@:4.6", when="+kokkos-kernels")
    _minors = ("3.4", "3.5", "3.6", "3.7", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "4.6")
    for _i, _kk in enumerate(_minors):
        _below = _minors[_i - 1] if _i > 0 else "3.3"
        _above = _minors[_i + 1] if _i + 1 < len(_minors) else "4.7"
        for _other in (f"@:{_below}", f"@{_above}:"):
            conflicts(
                f"^kokkos{_other}",
                when=f"+kokkos-kernels ^kokkos-kernels@{_kk}",
                msg=f"Kokkos Kernels {_kk} is built against Kokkos {_kk}: use a kokkos@{_kk}",
            )

    depends_on("kokkos+serial", when="+serial")
    depends_on("kokkos+openmp", when="+openmp")
    # A shared libstrata over a static Kokkos would hold a copy of Kokkos' state.
    depends_on("kokkos+shared", when="+shared")

    # CUDA: the architecture goes to Kokkos (arborx, cabana do the same);
    # KOKKOS_LAMBDA in device code needs Kokkos' lambda support (a variant up
    # to Kokkos 4), and Spack's Kokkos builds CUDA with gcc only through
    # nvcc_wrapper (+wrapper), which Strata then compiles with too.
    for _arch in CudaPackage.cuda_arch_values:
        _cuda_dep = f"+cuda cuda_arch={_arch}"
        depends_on(f"kokkos {_cuda_dep}", when=_cuda_dep)
    depends_on("kokkos+cuda_lambda+wrapper", when="+cuda")

    for _target in ROCmPackage.amdgpu_targets:
        _rocm_dep = f"+rocm amdgpu_target={_target}"
        depends_on(f"kokkos {_rocm_dep}", when=_rocm_dep)

    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a cuda_arch=<arch>")
    conflicts("+rocm", when="amdgpu_target=none", msg="+rocm needs an amdgpu_target=<target>")
    conflicts("+cuda", when="+rocm", msg="Kokkos cannot enable CUDA and HIP together")
    conflicts("~serial~openmp", msg="Kokkos needs a host backend: +serial or +openmp")

    depends_on("mpi", when="+mpi")

    # The Python module: an extension of the spec's Python, over a shared libstrata.
    with when("+python"):
        extends("python")
        depends_on("python@3.8:", type=("build", "link", "run"))
        depends_on("py-pybind11@2.6:", type="build")
        depends_on("py-numpy", type=("build", "run"))
    conflicts("+python", when="~shared", msg="the Python module links a shared libstrata")

    # The tests: GoogleTest (test executables only, not installed) and
    # Python 3 (the CLI test drivers); as test dependencies too, for
    # `spack install --test=root` without +tests.
    with when("+tests"):
        depends_on("googletest", type="build")
        depends_on("python@3:", type="build")
    depends_on("googletest", type="test")
    depends_on("python@3:", type="test")

    sanity_check_is_file = [
        join_path("include", "strata", "strata.hpp"),
        join_path("include", "strata", "c", "strata_c.h"),
        join_path("bin", "strata"),
    ]
    sanity_check_is_dir = [join_path("lib", "cmake", "Strata")]

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define_from_variant("STRATA_ENABLE_KOKKOS_KERNELS", "kokkos-kernels"),
            self.define_from_variant("STRATA_ENABLE_MPI", "mpi"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            # `spack install --test=root` needs the tests even without +tests.
            self.define("STRATA_ENABLE_TESTS", spec.satisfies("+tests") or self.run_tests),
            self.define("STRATA_ENABLE_TOOLS", True),
            self.define_from_variant("STRATA_ENABLE_PYTHON", "python"),
        ]
        if spec.satisfies("+kokkos-kernels"):
            args.append(self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix))
        if spec.satisfies("+python"):
            # Where Spack's Python extensions live (python_platlib of the spec).
            args.append(self.define("STRATA_PYTHON_INSTALL_DIR", python_platlib))
        if "python" in spec:
            # The Python of the spec, not whichever one CMake finds first.
            args.append(self.define("Python3_EXECUTABLE", spec["python"].command.path))
        if spec.satisfies("+mpi"):
            args.append(self.define("MPI_HOME", spec["mpi"].prefix))
        # As arborx and kokkos-kernels do: the compiler Kokkos was built with
        # (nvcc_wrapper for +cuda), hipcc for ROCm.
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
        if spec.satisfies("+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["hip"].hipcc))
        return args

    # Build-time tests (`spack install --test=root`): ctest with the output of
    # failing tests (same idiom as the builtin draco recipe).
    def check(self):
        with working_dir(self.build_directory):
            ctest("--output-on-failure")

    # ---- stand-alone tests (`spack test run strata`) ------------------------
    # The downstream projects scripts/test_install.sh builds, cached with the
    # install and built against the installed prefix (as arborx does with its
    # examples).
    test_src_dirs = ["examples", join_path("unit_test", "c"), join_path("unit_test", "consumers")]

    @run_after("install")
    def setup_build_tests(self):
        """Cache the example and consumer sources for `spack test run`."""
        cache_extra_test_sources(self, self.test_src_dirs)

    def _compiler(self, lang):
        """The compiler for `lang` ("cxx", "cc" or "fortran") in a stand-alone
        test: Kokkos' for C++ with +cuda (nvcc_wrapper) or +rocm (hipcc), else
        the one of the spec's C++ compiler package (Spack >= 1.0: gcc gives all
        three), else CXX / CC / FC of the test environment. Spack 1.x does not
        set CXX in a stand-alone test's environment."""
        if lang == "cxx" and self.spec.satisfies("+cuda"):
            return self["kokkos"].kokkos_cxx
        if lang == "cxx" and self.spec.satisfies("+rocm"):
            return self.spec["hip"].hipcc
        path = None
        if "cxx" in self.spec:
            path = getattr(self.spec["cxx"].package, lang, None)
        return path or os.environ.get({"cc": "CC", "cxx": "CXX", "fortran": "FC"}[lang])

    def _build_and_ctest(self, subdir, compilers):
        """Configure cached project `subdir` against the installed prefix,
        build it and run its ctest."""
        src = join_path(self.test_suite.current_test_cache_dir, subdir)
        build = join_path(src, "spack-test-build")
        cmake_args = [
            "-S",
            src,
            "-B",
            build,
            self.define("CMAKE_BUILD_TYPE", "Release"),
            self.define("CMAKE_PREFIX_PATH", get_cmake_prefix_path(self)),
            self.define("Strata_ROOT", self.prefix),
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
        ]
        if self.spec.satisfies("+kokkos-kernels"):
            cmake_args.append(self.define("KokkosKernels_ROOT", self.spec["kokkos-kernels"].prefix))
        for lang, compiler in compilers.items():
            cmake_args.append(self.define(f"CMAKE_{lang}_COMPILER", compiler))
        if self.spec.satisfies("+mpi"):
            cmake_args.append(self.define("MPI_HOME", self.spec["mpi"].prefix))
        cmake = which(self.spec["cmake"].prefix.bin.cmake)
        ctest_exe = which(self.spec["cmake"].prefix.bin.ctest)
        cmake(*cmake_args)
        cmake("--build", build)
        with working_dir(build):
            ctest_exe("--output-on-failure")

    def test_cli(self):
        """run the installed strata tool on its demo graph"""
        strata = which(self.prefix.bin.strata)
        out = strata("--version", output=str, error=str)
        assert f"strata {self.spec.version}" in out or self.spec.satisfies("@main"), out
        out = strata("plan", "--demo", output=str, error=str)
        assert out.startswith("groups 22 barriers 21"), out[:200]

    def test_python(self):
        """import the installed Python module and plan a diamond"""
        if not self.spec.satisfies("+python"):
            raise SkipTest("built without +python")
        python = which(self.spec["python"].command.path)
        out = python(
            "-c",
            "import strata; p = strata.plan(4, [[0, 1], [0, 2], [1, 3], [2, 3]]); "
            "print(p.level.tolist())",
            output=str,
            error=str,
        )
        assert "[0, 1, 1, 2]" in out, out

    def test_examples(self):
        """build examples/ against the installed prefix and run them"""
        self._build_and_ctest("examples", {"CXX": self._compiler("cxx")})

    def test_c_interface(self):
        """build the C11 and Fortran tests of the C interface and run them"""
        compilers = {"CXX": self._compiler("cxx"), "C": self._compiler("cc") or "cc"}
        if self._compiler("fortran"):
            compilers["Fortran"] = self._compiler("fortran")
        self._build_and_ctest(join_path("unit_test", "c"), compilers)

    def test_c_only_consumer(self):
        """build a C-only project (no C++ compiler) against the shared libstrata"""
        if not self.spec.satisfies("+shared"):
            raise SkipTest("a static libstrata needs the C++ linker in every consumer")
        self._build_and_ctest(
            join_path("unit_test", "consumers", "c_only"), {"C": self._compiler("cc") or "cc"}
        )

    def test_fortran_only_consumer(self):
        """build a Fortran-only project that says `use strata` alone"""
        if not self.spec.satisfies("+shared"):
            raise SkipTest("a static libstrata needs the C++ linker in every consumer")
        fortran = self._compiler("fortran")
        if not fortran:
            raise SkipTest("no Fortran compiler in the spec's compiler or the test environment")
        self._build_and_ctest(
            join_path("unit_test", "consumers", "fortran_only"), {"Fortran": fortran}
        )
