#!/usr/bin/env python3
"""`mpiexec -n N strata run FILE --distributed` against `strata run FILE`.

Usage: test_distributed_run_cli.py STRATA MPIEXEC NUMPROC_FLAG [MPIEXEC_FLAGS...]

On 2 and 4 ranks: the generated graphs run and verify ('verified W waves, L
layers' as `strata run` prints it, exit 0), one of them in every mode; --max-wall-time
drains and the runs resume to completion; --time adds the time and the
messages; a bad graph answers exactly as `strata plan FILE --distributed`
(exit code and error line); --demo and standard input are usage errors; a rank
that dies mid-run leaves the survivor to the MPI watchdog (RankTimeout, exit 3).
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
    for line in text.splitlines():
        if line.startswith("strata:"):
            return line
    return ""


def line_with(text, prefix):
    return next((line for line in text.splitlines() if line.startswith(prefix)), None)


with tempfile.TemporaryDirectory() as tmp:
    graphs = {}
    for name, gen in [("sweep2d", ["sweep2d", "24", "17"]), ("chain", ["chain", "300"]),
                      ("layered", ["layered", "40", "12", "3"]), ("random", ["random", "400", "1500"]),
                      ("fanin", ["fanin", "64"])]:
        path = os.path.join(tmp, name + ".edges")
        code, out, err = run(["gen"] + gen)
        if code != 0:
            failures.append(f"gen {gen}: exit {code}: {first_line(err)}")
            continue
        with open(path, "w") as f:
            f.write(out)
        graphs[name] = path
    for name, path in graphs.items():
        code, want, _ = run(["run", path])
        verified = line_with(want, "verified")
        for ranks in (2, 4):
            modes = ("auto", "layered", "persistent", "dataflow") if name == "sweep2d" else ("auto",)
            for mode in modes:
                code, out, err = run(["run", path, "--distributed", "--mode", mode], ranks)
                if code != 0 or line_with(out, "verified") != verified or not out.startswith("mode: " + mode):
                    failures.append(f"{name} on {ranks} ranks, mode {mode}: exit {code}, "
                                    f"'{line_with(out, 'verified')}' vs '{verified}': {first_line(err)}")
    # The wall-time budget drains every rank; the runs resume until complete.
    if "sweep2d" in graphs:
        for ranks in (2, 4):
            code, out, err = run(["run", graphs["sweep2d"], "--distributed", "--max-wall-time", "1e-9",
                                  "--wave-work", "100"], ranks)
            runs = line_with(out, "runs:")
            if code != 0 or runs is None or runs.startswith("runs: 1 "):
                failures.append(f"drain on {ranks} ranks: exit {code}, '{runs}': {first_line(err)}")
            code, out, err = run(["run", graphs["sweep2d"], "--distributed", "--time"], ranks)
            shares = line_with(out, "ranks:")
            if code != 0 or line_with(out, "time:") is None or line_with(out, "messages:") is None \
                    or shares is None or "% running waves" not in shares or "% waiting" not in shares:
                failures.append(f"--time on {ranks} ranks: exit {code}: {out!r}")
    # A bad graph answers as `strata plan FILE --distributed` does.
    bad = {"cycle": "3 3\n0 1\n1 2\n2 0\n", "self": "2 1\n1 1\n", "range": "4 2\n0 1\n1 9\n",
           "parse": "3 2\n0 1\nx y\n"}
    for index, (name, text) in enumerate(bad.items()):
        path = os.path.join(tmp, name + ".edges")
        with open(path, "w") as f:
            f.write(text)
        for ranks in ((2, 4)[index % 2],):  # each rank count sees two of the kinds
            want = run(["plan", path, "--distributed"], ranks)
            got = run(["run", path, "--distributed"], ranks)
            if got[0] != want[0] or got[1] != "" or first_line(got[2]) != first_line(want[2]):
                failures.append(f"{name} on {ranks} ranks: exit {got[0]} vs {want[0]}, "
                                f"'{first_line(got[2])}' vs '{first_line(want[2])}'")
    # A rank that dies mid-run while the launcher keeps the others alive (Open MPI's
    # --enable-recovery): the survivor, waiting for its messages, is ended by the MPI
    # watchdog (RankTimeout, exit 3) about STRATA_MPI_TIMEOUT seconds later. Rank 0 dies
    # of its CPU-time limit (SIGXCPU after 1 s of CPU, in the middle of its waves: the
    # largest --wave-work, so that no compiler's code for the spin finishes them); rank 1
    # reports its own exit code through the shell.
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        big = os.path.join(tmp, "sweep2d_200.edges")
        with open(big, "w") as f:
            f.write(run(["gen", "sweep2d", "200"])[1])
        args = f"run {big} --distributed --wave-work 100000000"
        cmd = [mpiexec, "--enable-recovery"] + mpi_flags + [
            numproc_flag, "1", "sh", "-c", f"ulimit -t 1; exec '{strata}' {args}", ":",
            numproc_flag, "1", "sh", "-c", f"'{strata}' {args}; echo strata-exit=$? >&2"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, STRATA_MPI_TIMEOUT="2"))
        lines = [line for line in p.stderr.splitlines() if line.startswith("strata:")]
        if p.stdout or "strata-exit=3" not in p.stderr or len(lines) != 1 or not lines[0].startswith(
                "strata: RankTimeout: rank 1 waited 2 s in MPI_"):
            failures.append(f"dead rank during a run: stdout {len(p.stdout)} bytes, {lines}, "
                            f"{p.stderr[-300:]!r}")
    for args in (["run", "--demo", "--distributed"], ["run", "-", "--distributed"]):
        code, out, err = run(args, 2)
        if code != 2 or out != "":
            failures.append(f"{args}: exit {code}, expected 2 (usage)")

for f in failures:
    print("FAIL:", f)
print(f"distributed run CLI: {len(failures)} failures")
sys.exit(1 if failures else 0)
