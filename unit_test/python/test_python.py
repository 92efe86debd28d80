#!/usr/bin/env python3
"""Tests of the Python module `strata` (no pytest needed): NumPy arrays in
and out, every dtype the module accepts, typed errors with their kind and
fields, and the same plan as the `strata` tool on generated graphs.

  test_python.py [PATH_TO_STRATA]     (PYTHONPATH must reach the strata package)"""

import subprocess
import sys
import tempfile

import numpy as np

import strata

failures = []


def check(name, condition, detail=""):
    if not condition:
        failures.append(name)
        print("FAIL", name, detail)


def expect_error(name, cls, call, **fields):
    try:
        call()
    except cls as e:
        check(name + ": kind", e.kind == cls.kind and str(e).startswith(cls.kind + ": "), str(e))
        check(name + ": Fix", "Fix: " in e.message, e.message)
        for key, value in fields.items():
            check(name + ": field " + key, e.fields.get(key) == value and getattr(e, key) == value,
                  repr(e.fields))
        return e
    except Exception as e:  # noqa: BLE001 - any other exception is the failure
        check(name, False, "raised %s: %s" % (type(e).__name__, e))
        return None
    check(name, False, "no exception")
    return None


# --- the diamond: arrays in and out -------------------------------------------
diamond = np.array([[0, 1], [0, 2], [1, 3], [2, 3]])
p = strata.plan(4, diamond)
check("diamond offsets", p.group_offsets.tolist() == [0, 1, 3, 4], p.group_offsets)
check("diamond waves", p.waves.tolist() == [0, 1, 2, 3], p.waves)
check("diamond level", p.level.tolist() == [0, 1, 1, 2], p.level)
check("diamond counts", (p.wave_count, p.group_count, p.global_barriers) == (4, 3, 2), repr(p))
check("int64 arrays", all(a.dtype == np.int64 for a in (p.group_offsets, p.waves, p.level)))
check("read-only arrays", not p.waves.flags.writeable)
check("groups", [g.tolist() for g in p.groups()] == [[0], [1, 2], [3]])
for dtype in (np.int32, np.uint32, np.int64, np.uint64, np.int16):
    q = strata.plan(np.int64(4), diamond.astype(dtype))
    check("dtype " + np.dtype(dtype).name, q.waves.tolist() == [0, 1, 2, 3])
check("list input", strata.plan(4, [[0, 1], [0, 2], [1, 3], [2, 3]]).level.tolist() == [0, 1, 1, 2])
check("Fortran-ordered input",
      strata.plan(4, np.asfortranarray(diamond)).group_offsets.tolist() == [0, 1, 3, 4])
check("empty graph", strata.plan(0, []).group_offsets.tolist() == [0])
e = strata.plan(3, np.zeros((0, 2), dtype=np.int64))
check("no dependencies", e.group_count == 1 and e.waves.tolist() == [0, 1, 2], repr(e))
check("execution space", strata.execution_space() in ("Serial", "OpenMP", "Cuda", "HIP", "Threads"),
      strata.execution_space())
check("version", strata.__version__.count(".") == 2, strata.__version__)

# --- typed errors ---------------------------------------------------------------
expect_error("cycle", strata.CycleError, lambda: strata.plan(3, [[0, 1], [1, 2], [2, 1]]),
             unscheduled_waves=2)
expect_error("invalid wave", strata.InvalidWaveError, lambda: strata.plan(3, [[0, 1], [1, 3]]),
             wave_count=3, before=1, after=3)
expect_error("self dependency", strata.SelfDependencyError, lambda: strata.plan(3, [[0, 1], [2, 2]]),
             wave=2)
expect_error("negative id", strata.InvalidArgumentError, lambda: strata.plan(3, [[0, 1], [-1, 2]]))
expect_error("wrong shape", strata.InvalidArgumentError, lambda: strata.plan(3, [0, 1, 2]))
expect_error("float ids", strata.InvalidArgumentError, lambda: strata.plan(3, [[0.0, 1.5]]))
expect_error("wave_count not an integer", strata.InvalidArgumentError, lambda: strata.plan(2.5, []))
expect_error("negative wave_count", strata.InvalidArgumentError, lambda: strata.plan(-1, []))
check("errors are PlanErrors", issubclass(strata.CycleError, strata.PlanError)
      and issubclass(strata.InvalidArgumentError, ValueError))

# --- a first plan prints nothing (no Kokkos warning: the module sets
# OMP_PROC_BIND=false when no binding is set, as the tool does) ------------------
import os  # noqa: E402
plain = {k: v for k, v in os.environ.items()
         if k not in ("OMP_PROC_BIND", "OMP_PLACES", "KOKKOS_DISABLE_WARNINGS")}
quiet = subprocess.run([sys.executable, "-c", "import strata; print(strata.plan(2, [[0, 1]]).level)"],
                       capture_output=True, text=True, env=plain, timeout=120)
check("first plan: no Kokkos warning", quiet.returncode == 0 and quiet.stdout == "[0 1]\n"
      and quiet.stderr == "", repr((quiet.returncode, quiet.stdout, quiet.stderr[:300])))

# --- thread counts Kokkos cannot start with: a typed InvalidArgumentError
# (OMP_NUM_THREADS=600 killed the interpreter inside Kokkos' start-up) ---------
probe = ("import strata\n"
         "try:\n"
         "    strata.plan(2, [[0, 1]])\n"
         "except strata.InvalidArgumentError as e:\n"
         "    print('InvalidArgumentError', e.message)\n")
for name, value in (("OMP_NUM_THREADS", "600"), ("OMP_NUM_THREADS", "600,2"),
                    ("KOKKOS_NUM_THREADS", "abc")):
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=dict(plain, **{name: value}), timeout=120)
    check("%s=%s: InvalidArgumentError" % (name, value),
          got.returncode == 0 and got.stdout.startswith("InvalidArgumentError InvalidArgument: ")
          and ("%s='%s'" % (name, value)) in got.stdout and "Fix:" in got.stdout
          and got.stdout.count("\n") == 1,
          repr((got.returncode, got.stdout, got.stderr[-300:])))

# --- the module's namespace holds its API, not its imports ------------------
for leaked in ("np", "operator", "atexit"):
    check("no strata.%s" % leaked, not hasattr(strata, leaked))

# --- the same plan as the strata tool ---------------------------------------
if len(sys.argv) > 1:
    tool = sys.argv[1]

    def tool_run(*args):
        return subprocess.run([tool, *args], capture_output=True, text=True, check=True,
                              timeout=300).stdout

    compared = 0
    for gen in (["sweep3d", "8"], ["random", "300", "1200", "--seed", "7"],
                ["layered", "40", "12", "3"], ["ilu2d", "20"], ["powerlaw", "500"]):
        text = tool_run("gen", *gen)
        rows = [l.split() for l in text.splitlines() if l and not l.startswith("#")]
        waves = int(rows[0][0])
        deps = np.array([[int(a), int(b)] for a, b in rows[1:]], dtype=np.int64).reshape(-1, 2)
        q = strata.plan(waves, deps)
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(text)
            f.flush()
            cli = tool_run("plan", f.name).splitlines()
        mine = ["groups %d barriers %d" % (q.group_count, q.global_barriers)] + [
            " ".join(map(str, g.tolist())) for g in q.groups()]
        check("same plan as the tool: gen " + " ".join(gen), cli == mine,
              "%s vs %s" % (cli[:3], mine[:3]))
        levels_ok = all(q.level[w] == g for g in range(q.group_count) for w in q.group(g))
        check("level is each wave's group: gen " + " ".join(gen), levels_ok)
        compared += 1
    print("compared %d graphs with the strata tool" % compared)

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
