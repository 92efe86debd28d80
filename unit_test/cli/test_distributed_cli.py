#!/usr/bin/env python3
"""`mpiexec -n N strata plan FILE --distributed` against `strata plan FILE`.

Usage: test_distributed_cli.py STRATA MPIEXEC NUMPROC_FLAG [MPIEXEC_FLAGS...]

For generated graphs and bad inputs, on 1, 2 and 4 ranks: stdout and the exit
code are identical, and the error line (stderr's first line) is identical.
Also: a per-rank budget too small for the rank count is InsufficientRanks
(exit 3) and one that forces sharding still gives the single-process plan.

Reliability (issue 12): a header claiming half a billion waves is answered
from its counts under a 600 MB address-space limit per rank (the budget is
checked before any per-wave array); 2^63 waves is the single-process kind; a
rank out of memory names the real count; ranks started with other arguments
(an MPMD launch) all stop with InvalidArgument instead of waiting; a rank
that dies while the launcher keeps the others alive (Open MPI's
--enable-recovery) leaves them to the watchdog (RankTimeout, exit 3).

Issue 43 / 42: NUL bytes and a malformed Matrix Market banner answer as
single-process; a FIFO is refused before any rank opens it; a rank started
with another command (run, explain, gen) beside `plan --distributed` refuses
at once instead of leaving the others in MPI start-up; ranks sharing the node
with no thread count set split its cores (a chain of 1000 over 2 and 4 ranks,
`--time` saying so).
"""
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import address_space

strata, mpiexec, numproc_flag = sys.argv[1:4]
mpi_flags = sys.argv[4:]
failures = []


def run(args, ranks=None, env=None, address_space=None):
    cmd = [strata] + args
    if ranks is not None:
        cmd = [mpiexec, numproc_flag, str(ranks)] + mpi_flags + cmd
    limit = None
    if address_space is not None:
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=None if env is None else dict(os.environ, **env), preexec_fn=limit)
    return p.returncode, p.stdout, p.stderr


def run_mpmd(parts, env=None, timeout=60):
    """mpiexec FLAGS -n 1 PART0 : -n 1 PART1 ... (each part an argv list)."""
    cmd = [mpiexec] + mpi_flags
    for i, part in enumerate(parts):
        cmd += ([":"] if i else []) + [numproc_flag, "1"] + part
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def strata_lines(text):
    return [line for line in text.splitlines() if line.startswith("strata:")]


version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
open_mpi = "Open MPI" in version or "OpenRTE" in version
sanitized = "ASAN_OPTIONS" in os.environ  # an address-space limit breaks ASan's shadow memory


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
        # issue 43 item 5: the first NUL byte of the file, as single-process
        "nul_in_line": "3 2\n0\x001\n1 2\n",
        "nul_file": "\x00" * 100,
        "nul_after_last_line": "3 2\n0 1\n1 2\n\x00\x00\x00",
        "nul_late": "9 8\n0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 8\x00\n",
        # a malformed Matrix Market banner answers as the reader does
        "mm_leading_blank_line": "\n%%MatrixMarket matrix coordinate pattern general\n3 3 2\n2 1\n3 2\n",
    }
    # Bad input on 3 ranks: the file splits unevenly, so an error may lie in any
    # rank's part (the well-formed graphs above run on 1, 2 and 4).
    for name, text in bad.items():
        check(name, write(name + ".txt", text), ranks_list=(3,))
    check("missing file", os.path.join(tmp, "missing.txt"), ranks_list=(3,))
    check("directory", tmp, ranks_list=(3,))

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

    # --- Memory is checked from the counts before it is spent (issue 12, item 5).
    half_billion = write("half_billion.txt", "500000000 0")  # 12 bytes; 14 GB of planner storage
    # A GPU build cannot start its device runtime under a 600 MB address-space
    # limit (unit_test/cli/address_space.py): these checks are the host builds'.
    if not sanitized and not address_space.is_device_build(strata):
        # The per-wave arrays of 250 million waves per rank would be 2 GB each.
        rc, out, err = run(["plan", half_billion, "--distributed", "--rank-budget", "1G"], 2,
                           address_space=600 << 20)
        if rc != 3 or out or not first_line(err).startswith(
                "strata: InsufficientRanks: distributed planning needs at least 14 ranks"):
            failures.append(f"500000000 waves under 600 MB per rank: exit {rc}, '{first_line(err)}'")
        # A rank out of memory names what and how many (not "0 entries") and the per-rank budget.
        rc, out, err = run(["plan", write("two_hundred_million.txt", "200000000 0"),
                            "--distributed", "--rank-budget", "100G"], address_space=600 << 20)
        if rc != 3 or out or "could not reserve 200000000 distributed out-degrees entries" not in err \
                or "Fix: lower --rank-budget" not in err:
            failures.append(f"rank out of memory: exit {rc}, '{first_line(err)}'")
    # 2^63 waves: the single-process kind (MemoryConstrained: no rank count holds it).
    huge = write("two_to_63.txt", "9223372036854775808 0")
    want = run(["plan", huge])
    got = run(["plan", huge, "--distributed", "--rank-budget", "1G"], 2)
    if not (want[0] == got[0] == 3) or not first_line(want[2]).startswith(
            "strata: MemoryConstrained:") or not first_line(got[2]).startswith(
            "strata: MemoryConstrained:") or "--rank-budget" not in first_line(got[2]):
        failures.append(f"2^63 waves: single '{first_line(want[2])}', distributed '{first_line(got[2])}'")

    # --- MPI misuse never hangs (issue 12, item 9).
    small = os.path.join(tmp, "sweep2d.txt")
    # --time on one rank only: every rank stops before any collective work.
    rc, out, err = run_mpmd([[strata, "plan", small, "--distributed"],
                             [strata, "plan", small, "--distributed", "--time"]])
    lines = strata_lines(err)
    if rc != 2 or out or len(lines) != 1 or not lines[0].startswith(
            "strata: InvalidArgument: MPI rank 1 was started with other arguments than rank 0 "
            "('--time given' where rank 0 has '--time not given')"):
        failures.append(f"--time on one rank: exit {rc}, stdout {len(out)} bytes, {lines}")
    # A rank without --distributed refuses to plan alone under mpiexec (exit 2), so the
    # launcher ends the job; needs the launcher check wired into plan_command (mpi_session.hpp).
    probe = run(["plan", small], env={"OMPI_COMM_WORLD_SIZE": "2", "PMI_SIZE": "2"})
    if probe[0] == 2 and "without --distributed" in first_line(probe[2]):
        rc, out, err = run_mpmd([[strata, "plan", small, "--distributed"], [strata, "plan", small]],
                                env={"STRATA_MPI_TIMEOUT": "20"})
        if rc == 0 or out or not any("without --distributed" in l for l in strata_lines(err)):
            failures.append(f"rank without --distributed: exit {rc}, {strata_lines(err)}")
    else:
        print("skipped: a rank without --distributed (plan_command does not check for a launcher)")
    # A rank that dies while the launcher keeps the others alive: the survivor's watchdog
    # ends it (RankTimeout, exit 3) about STRATA_MPI_TIMEOUT seconds later. Rank 1 dies of
    # its CPU-time limit (SIGXCPU after 1 s of CPU: well past MPI_Init, long before the
    # 1000 repeats end); rank 0 reports its own exit code through the shell.
    if open_mpi:
        big = gen("sweep3d_40.txt", ["sweep3d", "40"])
        args = f"plan {big} --distributed --time --repeats 1000"
        start = time.monotonic()
        cmd = [mpiexec, "--enable-recovery"] + mpi_flags + [
            numproc_flag, "1", "sh", "-c", f"'{strata}' {args}; echo strata-exit=$? >&2", ":",
            numproc_flag, "1", "sh", "-c", f"ulimit -t 1; exec '{strata}' {args}"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=90,
                           env=dict(os.environ, STRATA_MPI_TIMEOUT="2"))
        lines = strata_lines(p.stderr)
        if p.stdout or "strata-exit=3" not in p.stderr or len(lines) != 1 or not lines[0].startswith(
                "strata: RankTimeout: rank 0 waited 2 s in MPI_"):
            failures.append(f"dead rank, launcher keeps the survivor: stdout {len(p.stdout)} "
                            f"bytes, {lines}, {p.stderr[-300:]!r}")
        print(f"watchdog: the survivor ended {time.monotonic() - start:.1f} s after the launch")
    else:
        print("skipped: the watchdog test needs Open MPI's --enable-recovery")
    # --- issue 43 item 3: no hang on a FIFO or on mismatched commands ----------
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    for ranks in (2, 4):
        start = time.monotonic()
        rc, out, err = run(["plan", fifo, "--distributed"], ranks)
        if rc != 2 or out or not first_line(err).startswith(f"strata: IoError: {fifo}: is not a "
                                                           "regular file"):
            failures.append(f"FIFO on {ranks} ranks: exit {rc}, '{first_line(err)}'")
        print(f"FIFO on {ranks} ranks: refused in {time.monotonic() - start:.1f} s")
    # A rank started with another command beside `plan --distributed` refuses at
    # once (exit 2), so the launcher ends the job: no wait for STRATA_MPI_TIMEOUT.
    for other in (["run", small], ["explain", small], ["gen", "chain", "5"]):
        start = time.monotonic()
        rc, out, err = run_mpmd([[strata, "plan", small, "--distributed"], [strata] + other],
                                env={"STRATA_MPI_TIMEOUT": "600"}, timeout=100)
        took = time.monotonic() - start
        if rc == 0 or out or took > 60 or not any("without --distributed" in l
                                                  for l in strata_lines(err)):
            failures.append(f"'{other[0]}' beside plan --distributed: exit {rc}, {took:.1f} s, "
                            f"{strata_lines(err)}")
    # --- issue 42: ranks sharing a node split its cores (no thread count set) --
    # A deep graph (1000 layers) over 4 ranks on this node: with every rank on
    # every core it took minutes on 2 cores; cores / ranks each, it takes seconds.
    chain = gen("chain_1000.txt", ["chain", "1000"])
    want = run(["plan", chain])
    own = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "KOKKOS_NUM_THREADS")}
    for ranks in (2, 4):
        start = time.monotonic()
        p = subprocess.run([mpiexec, numproc_flag, str(ranks)] + mpi_flags +
                           [strata, "plan", chain, "--distributed", "--time", "--repeats", "1"],
                           capture_output=True, text=True, timeout=300, env=own)
        took = time.monotonic() - start
        said = re.search(r"threads_per_rank \d+ \(\d+ cores / %d ranks on the node\)" % ranks,
                         p.stderr)
        if p.returncode != 0 or p.stdout != want[1] or not said or took > 120:
            failures.append(f"chain 1000 on {ranks} ranks, default threads: exit {p.returncode}, "
                            f"{took:.1f} s, same plan {p.stdout == want[1]}, --time says "
                            f"threads: {bool(said)}; {p.stderr[-300:]!r}")
        print(f"chain 1000 on {ranks} ranks, threads per rank chosen by strata: {took:.1f} s")
    # A malformed timeout is a usage error on every rank.
    rc, out, err = run(["plan", small, "--distributed"], 2, env={"STRATA_MPI_TIMEOUT": "soon"})
    if rc != 2 or out or not first_line(err).startswith(
            "strata: InvalidArgument: STRATA_MPI_TIMEOUT must be a number of seconds"):
        failures.append(f"STRATA_MPI_TIMEOUT=soon: exit {rc}, '{first_line(err)}'")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("distributed CLI: all cases agree")
