#!/usr/bin/env python3
"""`mpiexec -n N strata plan FILE --distributed` against `strata plan FILE`.

Usage: test_distributed_cli.py STRATA MPIEXEC NUMPROC_FLAG [MPIEXEC_FLAGS...]

For generated graphs and bad inputs, on 1, 2 and 4 ranks: stdout and the exit
code are identical, and the error line (stderr's first line) is identical.
Also: a per-rank budget too small for the rank count is InsufficientRanks
(exit 3) and one that forces sharding still gives the single-process plan.
"""
import os
import subprocess
import sys
import tempfile

strata, mpiexec, numproc_flag = sys.argv[1:4]
mpi_flags = sys.argv[4:]
failures = []


def run(args, ranks=None):
    cmd = [strata] + args
    if ranks is not None:
        cmd = [mpiexec, numproc_flag, str(ranks)] + mpi_flags + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def first_line(text):
    """The error line: stderr's first line from strata (mpiexec adds its own)."""
    for line in text.splitlines():
        if line.startswith("strata:"):
            return line
    return ""


def check(name, path, extra=(), ranks_list=(2, 4)):
    want = run(["plan", path] + list(extra))
    for ranks in ranks_list:
        got = run(["plan", path, "--distributed"] + list(extra), ranks)
        if got[0] != want[0] or got[1] != want[1] or first_line(got[2]) != first_line(want[2]):
            failures.append(f"{name} on {ranks} ranks: exit {got[0]} vs {want[0]}; "
                            f"stderr '{first_line(got[2])}' vs '{first_line(want[2])}'; "
                            f"stdout equal: {got[1] == want[1]}")
    return want


with tempfile.TemporaryDirectory() as tmp:
    def write(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w", newline="") as f:
            f.write(text)
        return path

    def gen(name, args):
        rc, out, err = run(["gen"] + args)
        assert rc == 0, err
        return write(name, out)

    graphs = [("sweep3d", ["sweep3d", "7"]), ("sweep2d", ["sweep2d", "13", "5"]),
              ("chain", ["chain", "40"]), ("fanout", ["fanout", "33"]),
              ("layered", ["layered", "9", "7", "3", "20", "--seed", "5"]),
              ("random1", ["random", "300", "900", "--seed", "1"]),
              ("random2", ["random", "57", "100", "--seed", "2"])]
    for name, args in graphs:
        path = gen(name + ".txt", args)
        want = check(name, path, ranks_list=(1, 2, 4))
        assert want[0] == 0, want[2]
    for name in ("sweep3d", "random2"):
        check(name + " json", os.path.join(tmp, name + ".txt"), ["--output", "json"])

    bad = {
        "cycle": "3 3\n0 1\n1 2\n2 0\n",
        "self_last": "# self edge in the last line\n6 5\n0 1\n1 2\n2 3\n3 4\n5 5\n",
        "invalid_last": "6 5\n0 1\n1 2\n2 3\n3 4\n4 6\n",
        "invalid_then_self": "6 3\n0 9\n1 1\n2 3\n",
        "malformed_last": "5 4\n0 1\n1 2\n2 3\n3 x4\n",
        "trailing_text": "5 2\n0 1\n1 2 3\n",
        "too_many_lines": "4 1\n0 1\n1 2\n",
        "too_few_lines": "4 3\n0 1\n1 2\n",
        "no_header": "# only comments\n\n# here\n",
        "empty_file": "",
        "negative": "4 1\n-1 2\n",
        "huge_header": "3 1000000\n0 1\n",
        "crlf_comments": "# c\r\n\r\n5 3\r\n0 1\r\n# mid\r\n1\t2\r\n3 4",
        "empty_graph": "0 0\n",
        "waves_no_deps": "7 0\n",
    }
    for name, text in bad.items():
        check(name, write(name + ".txt", text))
    check("missing file", os.path.join(tmp, "missing.txt"))
    check("directory", tmp)

    # Budgets: too small for one rank, forcing sharding over 4 ranks.
    path = gen("budget.txt", ["sweep3d", "10"])  # about 71 KB of planner storage
    rc, out, err = run(["plan", path, "--distributed", "--rank-budget", "30K"], 1)
    if rc != 3 or not first_line(err).startswith("strata: InsufficientRanks: ") or "Fix:" not in err:
        failures.append(f"small budget on 1 rank: exit {rc}, '{first_line(err)}'")
    want = run(["plan", path])
    got = run(["plan", path, "--distributed", "--rank-budget", "30K"], 4)
    if got[0] != 0 or got[1] != want[1]:
        failures.append(f"budget forcing 4 ranks: exit {got[0]} {first_line(got[2])}")
    # Usage errors are collective too: exit 2 everywhere, the message once.
    rc, out, err = run(["plan", path, "--distributed", "--max-memory", "1G"], 2)
    if rc != 2 or err.count("strata: InvalidArgument") != 1:
        failures.append(f"--max-memory with --distributed: exit {rc}, stderr {err!r}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("distributed CLI: all cases agree")
