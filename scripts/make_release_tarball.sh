#!/usr/bin/env bash
# Writes the source tarball of a commit, reproducibly: the same commit gives
# the same bytes (and sha256) on any machine and with any git version.
#
#   scripts/make_release_tarball.sh VERSION [COMMIT] [OUTDIR]
#
# COMMIT: a commit hash, a tag or a branch (HEAD when left out); no tag is
# needed. VERSION must be the version of COMMIT's own CMakeLists.txt
# (project(Strata VERSION ...), the one place the version is written): the
# tarball's name and its build then say the same version. OUTDIR: the current
# directory when left out.
#
# OUTDIR/strata-VERSION.tar.gz holds the files of COMMIT (`git archive`:
# tracked files only, .gitattributes' export-ignore honoured: no CI files, no
# benchmark JSON) under strata-VERSION/, re-packed by Python's tarfile with a
# fixed order (sorted paths), owner 0/0 without names, modes 0755/0644
# (whatever git's tar.umask), every mtime set to the commit's time, no pax
# header naming the commit, and gzip without a name or timestamp (level 9).
# A build from the tarball has no .git: `strata --version` says "release".
#
# Prints the path with the commit, then the sha256 alone on the last line: the
# value spack/package.py's version() takes, e.g.
#   scripts/make_release_tarball.sh 0.3.0 v0.3.0 /tmp | tail -1
set -euo pipefail
usage="usage: make_release_tarball.sh VERSION [COMMIT] [OUTDIR]"
version=${1:?$usage}
commit=${2:-HEAD}
outdir=${3:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
if ! sha=$(git -C "$root" rev-parse --verify --quiet "$commit^{commit}"); then
  tags=$(git -C "$root" tag --list | tr '\n' ' ')
  echo "make_release_tarball.sh: no commit, tag or branch named '$commit' in $root (tags: ${tags:-none})." >&2
  echo "Fix: give a commit hash (git log --oneline) or an existing tag." >&2
  exit 2
fi
cmake_version=$(git -C "$root" show "$sha:CMakeLists.txt" |
  sed -n 's/^project(Strata VERSION \([0-9][0-9.]*\).*/\1/p' | head -1)
if [ -z "$cmake_version" ]; then
  echo "make_release_tarball.sh: no project(Strata VERSION ...) in CMakeLists.txt of $commit ($sha)." >&2
  exit 2
fi
if [ "$version" != "$cmake_version" ]; then
  echo "make_release_tarball.sh: version $version asked, but CMakeLists.txt of $commit ($sha) says $cmake_version." >&2
  echo "Fix: scripts/make_release_tarball.sh $cmake_version $commit, or bump project(Strata VERSION) and commit first." >&2
  exit 2
fi
epoch=$(git -C "$root" show -s --format=%ct "$sha")
mkdir -p "$outdir"
out="$(cd "$outdir" && pwd)/strata-$version.tar.gz"
repack=$(cat <<'PY'
import gzip, io, sys, tarfile
out, epoch = sys.argv[1], int(sys.argv[2])
members = []
with tarfile.open(fileobj=io.BytesIO(sys.stdin.buffer.read()), mode="r:") as src:
    for m in src.getmembers():
        data = src.extractfile(m).read() if m.isfile() else None
        members.append((m, data))
members.sort(key=lambda md: md[0].name)
raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w:", format=tarfile.GNU_FORMAT) as dst:
    for m, data in members:
        m.mtime, m.uid, m.gid, m.uname, m.gname = epoch, 0, 0, "", ""
        m.mode = 0o755 if m.isdir() or m.mode & 0o111 else 0o644  # not git's tar.umask
        m.pax_headers = {}
        dst.addfile(m, io.BytesIO(data) if data is not None else None)
with open(out, "wb") as f:
    with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as z:
        z.write(raw.getvalue())
PY
)
git -C "$root" archive --format=tar --prefix="strata-$version/" "$sha" |
  python3 -c "$repack" "$out" "$epoch"
echo "$out (commit $sha)"
sha256sum "$out" | cut -d' ' -f1
