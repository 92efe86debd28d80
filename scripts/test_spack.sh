#!/usr/bin/env bash
# Installs the CURRENT tree with Spack through spack/package.py, in a
# throwaway Spack configuration, and checks the install the way a user would:
#
#   scripts/test_spack.sh SPACK_ROOT [SPACK_PACKAGES] [--test-root] [--python]
#
# SPACK_ROOT      a Spack >= 1.0 checkout (bin/spack); also $STRATA_SPACK_ROOT
# SPACK_PACKAGES  a spack-packages checkout (repos/spack_repo/builtin), used as
#                 the builtin repository; also $STRATA_SPACK_PACKAGES. Default:
#                 SPACK_ROOT/../spack-packages when present, else the builtin
#                 repository Spack's own configuration names (which it clones).
# --mirror=DIR    a source mirror (Spack's layout: _source-cache/archive/XX/SHA256.tar.gz)
#                 for the sources Spack needs besides strata's when it cannot
#                 download them: compiler-wrapper (spack/README.md says how to
#                 make it offline); also $STRATA_SPACK_MIRROR.
# --test-root     also build the unit tests and run ctest during the install
#                 (`spack install --test=root`; the full unit suite: slow).
# --python        install strata+python (the Python module, with this
#                 machine's pybind11 and NumPy as externals), so that the
#                 recipe's test_python runs instead of being skipped.
#
# Environment: SPACK_PYTHON (the Python that runs Spack; python3 by default)
# must import `clingo` (spack/README.md says how to build it offline);
# STRATA_SPACK_KOKKOS, the prefix of an OpenMP+Serial Kokkos with Kokkos
# Kernels (default: the one scripts/bootstrap_deps.sh openmp builds);
# STRATA_SPACK_KEEP=1 keeps the temporary directory; STRATA_JOBS (2).
#
# Steps, each printed before it runs:
#  1. a throwaway configuration in a temporary directory: SPACK_DISABLE_LOCAL_CONFIG
#     (no user or system scope), SPACK_USER_CONFIG_PATH/SPACK_USER_CACHE_PATH
#     there, and a config scope (spack -C) with the install tree, stages,
#     caches, source-only file mirrors, the repositories (builtin + a copy of
#     spack/package.py), bootstrapping off, no upstreams, and packages.yaml:
#     spack/packages_yaml.sh's externals (gcc, cmake, gmake, python, Open MPI,
#     Kokkos, Kokkos Kernels, GoogleTest; with --python also pybind11 and
#     NumPy), `buildable: false` for every package except strata and Spack's
#     own compiler-wrapper and gcc-runtime, so that nothing else can be built.
#     Each section is written as `section::` over Spack's defaults, so that the
#     Spack instance's own scopes (its etc/spack and site scope) are not read;
#  2. scripts/make_release_tarball.sh of the current tree (HEAD plus the
#     uncommitted changes of tracked files) into the mirror (its sha256 path,
#     and strata/strata-VERSION.tar.gz); the recipe copy's version(VERSION)
#     takes its sha256 (the only change to the copy);
#  3. spack audit packages strata; spack spec strata@VERSION+openmp+mpi
#     (+python with --python);
#  4. spack install (fetching from the mirror, checksum verified);
#  5. spack test run strata (the recipe's test_* methods);
#  6. examples/quickstart built with cmake in the environment of
#     `spack load strata` and run.
# Result line: "spack: PASSED (...)", "spack: FAILED (step)" or, when Spack or
# clingo is absent (CI), "spack: SKIPPED (why)" with exit 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

test_root=no
with_python=no
extra_mirror=${STRATA_SPACK_MIRROR:-}
positional=()
for a in "$@"; do
  case "$a" in
    --test-root) test_root=yes ;;
    --python) with_python=yes ;;
    --mirror=*) extra_mirror=$(cd "${a#--mirror=}" && pwd) ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) positional+=("$a") ;;
  esac
done
spack_root=${positional[0]:-${STRATA_SPACK_ROOT:-}}
packages=${positional[1]:-${STRATA_SPACK_PACKAGES:-}}

skip() { echo "spack: SKIPPED ($1)"; exit 0; }
[ -n "$spack_root" ] || skip "no Spack checkout given: scripts/test_spack.sh SPACK_ROOT, or STRATA_SPACK_ROOT; spack/README.md says how to get Spack and clingo"
[ -x "$spack_root/bin/spack" ] || skip "$spack_root/bin/spack is not there"
py=${SPACK_PYTHON:-$(command -v python3 || true)}
[ -n "$py" ] || skip "no python3 to run Spack"
"$py" -c "import clingo" 2>/dev/null \
  || skip "the Python that runs Spack ($py) cannot import clingo; set SPACK_PYTHON or PYTHONPATH (spack/README.md)"

fail() { echo "spack: FAILED ($1)"; echo "(logs and the Spack state are kept in $work)"; keep=1; exit 1; }
step() { echo; echo "=== spack: $*"; }
jobs=${STRATA_JOBS:-2}
if [ -z "$packages" ] && [ -d "$spack_root/../spack-packages/repos/spack_repo/builtin" ]; then
  packages=$(cd "$spack_root/../spack-packages" && pwd)
fi
if [ -n "$packages" ] && [ ! -f "$packages/repos/spack_repo/builtin/repo.yaml" ]; then
  echo "test_spack.sh: $packages is not a spack-packages checkout (no repos/spack_repo/builtin/repo.yaml)" >&2
  exit 2
fi
kokkos=${STRATA_SPACK_KOKKOS:-${STRATA_DEPS_DIR:-/var/cache/strata-deps}/kokkos-3.4.01-openmp-release}
if [ ! -f "$kokkos/lib/cmake/Kokkos/KokkosConfigVersion.cmake" ] \
   || [ ! -f "$kokkos/lib/cmake/KokkosKernels/KokkosKernelsConfigVersion.cmake" ]; then
  echo "test_spack.sh: no Kokkos with Kokkos Kernels at $kokkos (Fix: scripts/bootstrap_deps.sh openmp, or set STRATA_SPACK_KOKKOS)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-spack.XXXXXX")
keep=${STRATA_SPACK_KEEP:-0}
cleanup() { if [ "$keep" = 1 ]; then echo "(kept $work)"; else rm -rf "$work"; fi; }
trap cleanup EXIT
unset SPACK_ENV SPACK_ROOT
export SPACK_DISABLE_LOCAL_CONFIG=1 SPACK_USER_CONFIG_PATH="$work/user" \
       SPACK_USER_CACHE_PATH="$work/cache" SPACK_PYTHON="$py"
# Every Spack call: echoed, in the throwaway scope, its output kept in a log too.
spack() { echo "+ spack $*" >&2; "$spack_root/bin/spack" -C "$work/config" "$@"; }

version_of() {  # a CMake package config's version file
  sed -n 's/^set(PACKAGE_VERSION "\([^"]*\)")$/\1/p' "$1" | head -1
}
first_line() { "$@" 2>/dev/null | head -1 || true; }

step "1/6 throwaway configuration in $work"
echo "Spack $("$spack_root/bin/spack" --version 2>/dev/null) at $spack_root (python: $py, clingo $("$py" -c 'import clingo; print(clingo.__version__)'))"
echo "builtin repository: ${packages:-the one Spack is configured with}"
mkdir -p "$work/config" "$work/mirror/strata" "$work/repo/spack_repo/strata/packages/strata"
cat >"$work/config/config.yaml" <<EOF
config:
  install_tree:
    root: $work/install
  build_stage: [$work/stage]
  test_stage: $work/test-stage
  source_cache: $work/source-cache
  misc_cache: $work/cache/misc
  build_jobs: $jobs
  checksum: true
EOF
cat >"$work/config/bootstrap.yaml" <<EOF
bootstrap:
  enable: false
EOF
# Source mirrors only (no binary cache): the current tree, and the sources
# of what Spack builds besides strata when it cannot download them
# (--mirror / STRATA_SPACK_MIRROR, spack/README.md).
{
  echo "mirrors::"
  echo "  strata-tree: {url: file://$work/mirror, source: true, binary: false}"
  [ -z "$extra_mirror" ] || echo "  strata-extra: {url: file://$extra_mirror, source: true, binary: false}"
} >"$work/config/mirrors.yaml"
cat >"$work/repo/spack_repo/strata/repo.yaml" <<EOF
repo:
  namespace: strata
  api: v2.0
EOF
{
  echo "repos::"
  echo "  strata: $work/repo/spack_repo/strata"
  if [ -n "$packages" ]; then
    echo "  builtin: $packages/repos/spack_repo/builtin"
  else
    sed -n '/^repos:/,$p' "$spack_root/etc/spack/defaults/repos.yaml" | sed '1d'
  fi
} >"$work/config/repos.yaml"

# This machine's packages as externals: spack/packages_yaml.sh (the one
# spack/README.md shows), plus, with --python, pybind11 and NumPy.
kokkos_v=$(version_of "$kokkos/lib/cmake/Kokkos/KokkosConfigVersion.cmake")
"$root/spack/packages_yaml.sh" "$kokkos" >"$work/externals.yaml" || fail "spack/packages_yaml.sh $kokkos"
python_externals=""
if [ $with_python = yes ]; then
  # Debian's pybind11-dev (CMake config under /usr) and python3-numpy
  pybind11_v=$(dpkg-query -W -f='${Version}' pybind11-dev 2>/dev/null | sed 's/-.*//')
  numpy_v=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)
  [ -n "$pybind11_v" ] && [ -n "$numpy_v" ] || {
    echo "test_spack.sh: --python needs pybind11-dev and python3-numpy (Fix: apt-get install pybind11-dev python3-numpy)" >&2
    exit 2
  }
  # Spack builds Python extensions in a venv over the external python and
  # puts each external extension's platlib on PYTHONPATH, computed from its
  # prefix (Debian's scheme: PREFIX/local/lib/python3.X/dist-packages); but
  # Debian installs NumPy in /usr/lib/python3/dist-packages, which that path
  # misses. So NumPy's external prefix is a directory in the throwaway
  # configuration whose platlib links to Debian's numpy package.
  numpy_dir=$(/usr/bin/python3 -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
  platlib=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("platlib", vars={"base": "/@", "platbase": "/@"}))')
  mkdir -p "$work/py-numpy${platlib#/@}"
  ln -s "$numpy_dir" "$work/py-numpy${platlib#/@}/numpy"
  python_externals="  py-pybind11:
    externals:
    - spec: py-pybind11@$pybind11_v
      prefix: /usr
  py-numpy:
    externals:
    - spec: py-numpy@$numpy_v
      prefix: $work/py-numpy"
fi
{
  cat "$work/externals.yaml"
  # Nothing but strata and Spack's own two packages may be built.
  printf '  all:\n    buildable: false\n'
  for p in strata compiler-wrapper gcc-runtime; do printf '  %s:\n    buildable: true\n' "$p"; done
  [ -z "$python_externals" ] || echo "$python_externals"
} >"$work/config/packages.yaml"
echo "upstreams: {}" >"$work/config/upstreams.yaml"
# Isolation: SPACK_DISABLE_LOCAL_CONFIG drops the user and system scopes, but
# Spack still reads its own instance's scopes ($spack/etc/spack and its site
# scope, $spack/etc/spack/site). Every section this run depends on is
# therefore written with `section::`, which replaces what any lower scope
# says; the section's defaults ($spack/etc/spack/defaults/base and the
# platform's) are merged in first, so nothing but the defaults and this
# configuration is read.
"$py" - "$spack_root/etc/spack/defaults" "$work/config" <<'PY' || fail "writing the isolated configuration"
import os, sys, yaml
defaults, config = sys.argv[1:]

def merge(low, high):
    if isinstance(low, dict) and isinstance(high, dict):
        out = dict(low)
        for k, v in high.items():
            out[k] = merge(low[k], v) if k in low else v
        return out
    return high

for section in ("config", "packages", "concretizer", "modules", "mirrors", "repos",
                "bootstrap", "upstreams"):
    value = {}
    if section not in ("mirrors", "repos"):  # only this run's mirrors and repositories
        for layer in ("base", "linux"):
            path = os.path.join(defaults, layer, section + ".yaml")
            if os.path.isfile(path):
                value = merge(value, (yaml.safe_load(open(path)) or {}).get(section) or {})
    ours = os.path.join(config, section + ".yaml")
    if os.path.isfile(ours):
        doc = yaml.safe_load(open(ours)) or {}
        value = merge(value, doc.get(section, doc.get(section + ":")) or {})
    with open(ours, "w") as f:
        if not value:
            f.write(section + ":: {}\n")
        else:
            body = yaml.safe_dump(value, default_flow_style=False, sort_keys=False)
            f.write(section + "::\n" + "".join("  " + l + "\n" for l in body.splitlines()))
PY
echo "externals (packages.yaml from spack/packages_yaml.sh $kokkos):"
sed -n 's/^ *- spec: /  /p' "$work/config/packages.yaml"
echo "  every other package: buildable: false (only strata, compiler-wrapper and gcc-runtime are built)"
echo "config, packages, concretizer, modules, mirrors, repos, bootstrap and upstreams are written"
echo "with '::' over Spack's defaults: no other scope (site, instance) is read"
spack repo list || fail "spack repo list"
spack compiler list || fail "spack compiler list"

step "2/6 the current tree into the file mirror"
version=$(sed -n 's/^project(Strata VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || fail "no project(Strata VERSION ...) in CMakeLists.txt"
# HEAD plus the uncommitted changes of tracked files (git stash create makes
# that commit without touching the work tree or the stash); untracked files
# are not in it.
commit=$(git -C "$root" stash create 2>/dev/null || true)
[ -n "$commit" ] || commit=$(git -C "$root" rev-parse HEAD)
untracked=$(git -C "$root" ls-files --others --exclude-standard | head -5)
[ -z "$untracked" ] || echo "note: untracked files are not in the tarball: $(echo $untracked)"
"$here/make_release_tarball.sh" "$version" "$commit" "$work/mirror/strata" >"$work/tarball.txt" \
  || fail "make_release_tarball.sh"
cat "$work/tarball.txt"
sha=$(tail -1 "$work/tarball.txt")
# Spack fetches a checksummed version from a mirror's content-addressed path
# (_source-cache/archive/<first 2 hex>/<sha256>.tar.gz); the name
# strata/strata-VERSION.tar.gz is a link to it, as `spack mirror create` makes.
mkdir -p "$work/mirror/_source-cache/archive/${sha:0:2}"
mv "$work/mirror/strata/strata-$version.tar.gz" "$work/mirror/_source-cache/archive/${sha:0:2}/$sha.tar.gz"
ln -s "../_source-cache/archive/${sha:0:2}/$sha.tar.gz" "$work/mirror/strata/strata-$version.tar.gz"
echo "mirror: $work/mirror/_source-cache/archive/${sha:0:2}/$sha.tar.gz (and strata/strata-$version.tar.gz)"
python3 - "$root/spack/package.py" "$work/repo/spack_repo/strata/packages/strata/package.py" "$version" "$sha" <<'PY' \
  || fail "the recipe has no version(\"$version\", sha256=...)"
import re, sys
src, dst, version, sha = sys.argv[1:]
text = open(src).read()
new, n = re.subn(r'version\("%s", sha256="[0-9a-f]{64}"\)' % re.escape(version),
                 'version("%s", sha256="%s")' % (version, sha), text)
if n == 0:
    # A version not released yet (no checksum in the recipe): the tarball
    # made above is that version here.
    new, n = re.subn(r'(\n    version\("main", branch="main"\)\n)',
                     r'\1    version("%s", sha256="%s")\n' % (version, sha), text)
if n != 1:
    sys.exit("spack/package.py: expected one version(%r, sha256=...) line, found %d" % (version, n))
open(dst, "w").write(new)
PY
echo "recipe: spack/package.py with version(\"$version\") taking sha256 $sha"

spec="strata@$version+openmp+mpi"
[ $with_python = no ] || spec+="+python"
step "3/6 audit and concretize $spec"
spack audit packages strata || fail "spack audit packages strata"
start=$(date +%s)
# Concretized once (spack spec --json); the install takes that file.
spack spec --json "$spec" >"$work/spec.json" 2>"$work/spec.err" || { cat "$work/spec.err"; fail "spack spec $spec"; }
concretize_s=$(( $(date +%s) - start ))
spack spec -l -I --namespaces "$work/spec.json" 2>&1 | tee "$work/spec.txt"
test "${PIPESTATUS[0]}" = 0 || fail "spack spec $work/spec.json"
# What would be built ([-]: to install; [e]: external): strata and Spack's
# compiler-wrapper / gcc-runtime only.
built=$(sed -n 's/^ - *[a-z0-9]\{7\} *^\{0,1\}[a-z0-9_]*\.\([a-z0-9_-]*\)@.*/\1/p' "$work/spec.txt" | sort -u | tr '\n' ' ')
echo "concretized in ${concretize_s} s; to build: ${built:-?}"
grep -q "strata\.strata@$version" "$work/spec.txt" || fail "the spec does not name strata.strata@$version"
grep -Eq "kokkos@$kokkos_v.*\+openmp" "$work/spec.txt" || fail "Kokkos is not the external kokkos@$kokkos_v+openmp"

# The recipe ties Kokkos Kernels to Kokkos' version: with a kokkos-kernels
# external of another version than the Kokkos external, +kokkos-kernels must
# not concretize (an external has no dependencies of its own to say so).
mkdir -p "$work/tie"
cp "$work/config/"*.yaml "$work/tie/"
sed -i "s/- spec: kokkos-kernels@[^ ]*/- spec: kokkos-kernels@4.6.02/" "$work/tie/packages.yaml"
if [ "${kokkos_v%.*}" != 4.6 ]; then
  if "$spack_root/bin/spack" -C "$work/tie" spec "strata@$version+openmp+kokkos-kernels" >"$work/tie.log" 2>&1; then
    cat "$work/tie.log"; fail "strata+kokkos-kernels concretized with kokkos@$kokkos_v and kokkos-kernels@4.6.02"
  fi
  grep -m1 "Kokkos Kernels 4.6 is built against Kokkos 4.6" "$work/tie.log" \
    || { cat "$work/tie.log"; fail "the Kokkos Kernels tie: no conflict message"; }
fi

step "4/6 spack install${test_root:+ }$( [ $test_root = yes ] && echo '--test=root') $spec (from the mirror)"
install_args=(install --verbose --fail-fast -j "$jobs")
[ $test_root = yes ] && install_args+=(--test=root)
start=$(date +%s)
spack "${install_args[@]}" "$work/spec.json" >"$work/install.log" 2>&1 \
  || { tail -60 "$work/install.log"; fail "spack install $spec"; }
install_s=$(( $(date +%s) - start ))
grep -E "^\[\+\]|Fetch|fetch|Successfully installed|Total:|mirror|sha256|ctest|tests passed|tests failed" "$work/install.log" | grep -v "^-- " | head -40 || true
grep -q "strata-tree\|$work/mirror" "$work/install.log" \
  || echo "note: the install log does not name the mirror (see $work/install.log)"
ctest_line=$(grep -E "tests passed|tests failed" "$work/install.log" | tail -1 || true)
prefix=$(spack location -i strata) || fail "spack location -i"
echo "installed in ${install_s} s at $prefix${ctest_line:+ (build-time ctest: $ctest_line)}"
spack find -lv --show-full-compiler strata 2>/dev/null || spack find -lv strata

step "5/6 spack test run strata"
start=$(date +%s)
spack test run --alias strata-check strata >"$work/test-run.log" 2>&1 || true
test_s=$(( $(date +%s) - start ))
cat "$work/test-run.log"
spack test results -l strata-check >"$work/test-results.log" 2>&1 || true
# The full log (every cmake/ctest of each test_* method) stays in the file;
# printed: each method's ctest counts and Spack's summary.
grep -E "^==> .*test: test_|^[0-9]+% tests passed|^(PASSED|FAILED|SKIPPED): |SUMMARY|^[A-Za-z]+::test_| parts =|Error" \
  "$work/test-results.log" | sed 's/^==> \[[^]]*\] /==> /' || true
echo "(full log: $work/test-results.log; kept on failure or with STRATA_SPACK_KEEP=1)"
python3 - "$work/test-results.log" "$work/test-run.log" >"$work/test-counts.txt" <<'PY' || true
import re, sys
text = open(sys.argv[1]).read() + open(sys.argv[2]).read()
res = {}
for name, status in re.findall(r"\b(test_[a-z_]+)[^\n]*?\b(PASSED|FAILED|SKIPPED|NO_TESTS|ERRORED)\b", text):
    res[name] = status
counts = {s: sum(1 for v in res.values() if v == s) for s in ("PASSED", "FAILED", "SKIPPED")}
print("%d passed, %d failed, %d skipped" % (counts["PASSED"], counts["FAILED"], counts["SKIPPED"]))
for n in sorted(res):
    print("  %s %s" % (n, res[n]))
PY
cat "$work/test-counts.txt"
test_counts=$(head -1 "$work/test-counts.txt")
grep -Eq "FAILED|ERRORED" "$work/test-results.log" "$work/test-run.log" && fail "spack test run strata: $test_counts"
grep -Eq "^[1-9][0-9]* passed, 0 failed" "$work/test-counts.txt" || fail "spack test run strata: no passed test ($test_counts)"
[ $with_python = no ] || grep -q "test_python PASSED" "$work/test-counts.txt" \
  || fail "spack test run strata: test_python did not pass with +python"
echo "spack test run: $test_counts in ${test_s} s"

step "6/6 examples/quickstart against \`spack load strata\`"
(
  eval "$(spack load --sh strata)" || exit 1
  echo "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
  command -v strata
  cmake -S "$root/examples/quickstart" -B "$work/quickstart" -DCMAKE_BUILD_TYPE=Release >"$work/quickstart.log" 2>&1 \
    || { cat "$work/quickstart.log"; exit 1; }
  grep -E "Strata|Kokkos" "$work/quickstart.log" | head -5 || true
  cmake --build "$work/quickstart" -j "$jobs" >>"$work/quickstart.log" 2>&1 || { cat "$work/quickstart.log"; exit 1; }
  OMP_PROC_BIND=false "$work/quickstart/quickstart" 2>&1 | tee "$work/quickstart.out"
  grep -q "global barriers: 2" "$work/quickstart.out"
) || fail "examples/quickstart against spack load strata"
ldd "$work/quickstart/quickstart" | grep -E "strata|kokkos" || true

echo
echo "spack: PASSED ($spec from the mirror: concretize ${concretize_s} s, install ${install_s} s${ctest_line:+, ctest $ctest_line}; spack test run: $test_counts; examples/quickstart built and ran against spack load strata)"
