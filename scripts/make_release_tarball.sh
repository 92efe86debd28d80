#!/usr/bin/env bash
# Writes the source tarball of a commit, reproducibly: the same commit gives
# the same bytes (and sha256) on any machine and with any git version.
#
#   scripts/make_release_tarball.sh VERSION [COMMIT] [OUTDIR]
#
# OUTDIR/strata-VERSION.tar.gz (OUTDIR: the current directory; COMMIT: HEAD)
# holds the files of COMMIT (`git archive`: tracked files only, .gitattributes'
# export-ignore honoured) under strata-VERSION/, re-packed by Python's tarfile
# with a fixed order (sorted paths), owner 0/0 without names, modes 0755/0644
# (whatever git's tar.umask), every mtime set
# to the commit's time, no pax header naming the commit, and gzip without a
# name or timestamp (level 9). Prints the path and its sha256, the value
# spack/package.py's version() takes.
set -euo pipefail
version=${1:?usage: make_release_tarball.sh VERSION [COMMIT] [OUTDIR]}
commit=${2:-HEAD}
outdir=${3:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$root" rev-parse --verify "$commit^{commit}")
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
