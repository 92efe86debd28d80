#!/usr/bin/env python3
"""Tests of the `strata` command-line tool: output formats, exit codes, error
messages, and a differential check of `strata plan` against an independent
Kahn written here in Python, on graphs generated here (never seen by the C++
tests). Usage: test_cli.py PATH_TO_STRATA"""

import json
import os
import random
import re
import resource
import subprocess
import sys
import time

import address_space
from cli_support import Session, edge_list, kahn_groups

SESSION = Session("strata_cli_")
STRATA, TMP, failures = SESSION.strata, SESSION.tmp, SESSION.failures
run, write, check = SESSION.run, SESSION.write, SESSION.check


def kahn_text(waves, deps):
    """The plan text of the independent Kahn (None for a cycle)."""
    groups = kahn_groups(waves, deps)
    if groups is None:
        return None
    return "groups %d barriers %d\n" % (len(groups), max(len(groups) - 1, 0)) + "".join(
        " ".join(map(str, g)) + "\n" for g in groups)


def expect_error(name, args, code, prefix):
    rc, out, err = run(*args)
    check(name + " exit code", rc == code, "got %d, stderr %r" % (rc, err))
    check(name + " empty stdout", out == "", repr(out[:200]))
    check(name + " message", prefix in err, repr(err))
    return err


# --- formats ------------------------------------------------------------------
diamond = write("diamond.txt", "# diamond plus an isolated wave\n5 4\n0 1\n0 2\n1 3\n2 3\n")
rc, out, err = run("plan", diamond)
check("text output", rc == 0 and out == "groups 3 barriers 2\n0 4\n1 2\n3\n", repr(out))
rc, out, err = run("plan", diamond, "--output", "json")
check("json output", rc == 0 and json.loads(out) == {
    "wave_count": 5, "group_count": 3, "global_barriers": 2, "groups": [[0, 4], [1, 2], [3]],
    "levels": [0, 1, 1, 2, 0]}, out)
rc, out, err = run("plan", diamond, "--time", "--repeats", "3")
check("--time keeps stdout the plan", rc == 0 and out.startswith("groups 3 barriers 2\n"), out)
check("--time reports plan_seconds", "plan_seconds " in err and "reference_seconds " in err, err)
# Issue 43 item 6 (spin-waiting under load): on a host backend of several
# threads the narrow layers of a chain run on one thread (planner rule P7),
# so a loaded machine does not wait for a descheduled thread per layer.
narrow = write("chain200.txt", edge_list(200, [(w, w + 1) for w in range(199)]))
rc, out, err = run("plan", narrow, "--mode", "sparse", "--time", "--repeats", "1")
counters = dict(re.findall(r"(\w+) (\d+)", err))
pool = re.search(r"backend (\w+) concurrency (\d+)", err)
host_pool = pool is not None and pool.group(1) in ("OpenMP", "Threads") and int(pool.group(2)) > 1
check("--time counts the layers run on one thread",
      rc == 0 and counters.get("one_thread_steps") ==
      (counters.get("sparse_layers") if host_pool else "0"), err)
# The other half of item 6: with GNU OpenMP the tool bounds an idle thread's
# spin (GOMP_SPINCOUNT=10000, set before libgomp starts), unless the user set
# a wait policy. OMP_DISPLAY_ENV=verbose makes libgomp print what it runs with.
def libgomp_spincount(extra):
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(OMP_DISPLAY_ENV="verbose", **extra)
    rc, out, err = run("gen", "chain", "3", env=env)
    return rc, re.findall(r"GOMP_SPINCOUNT = '(\d+)'", err)
rc, shown = libgomp_spincount({})
if shown:  # a GNU OpenMP build (libgomp prints once per start: the last is the one that ran)
    check("the tool bounds libgomp's spin", rc == 0 and shown[-1] == "10000", shown)
    rc, shown = libgomp_spincount({"GOMP_SPINCOUNT": "5"})
    check("a user's GOMP_SPINCOUNT stands", rc == 0 and shown == ["5"], shown)
    rc, shown = libgomp_spincount({"OMP_WAIT_POLICY": "active"})
    check("a user's OMP_WAIT_POLICY stands", rc == 0 and len(shown) == 1 and shown[0] != "10000",
          shown)
rc, out, err = run("plan", "--demo")
check("demo", rc == 0 and out.startswith("groups 22 barriers 21\n0\n1 8 64\n"), out[:80])
check("demo has every wave", sorted(int(w) for line in out.splitlines()[1:] for w in line.split())
      == list(range(512)))
# Kokkos prints start-up warnings (e.g. OMP_PROC_BIND unset) with printf: they
# must land on stderr, never in the plan or the generated graph.
noisy = {k: v for k, v in os.environ.items() if k not in ("KOKKOS_DISABLE_WARNINGS", "OMP_PROC_BIND")}
rc, out, err = run("plan", "--demo", env=noisy)
check("kokkos warnings stay off stdout", rc == 0 and out.startswith("groups 22 barriers 21\n"), out[:120])
rc, out, err = run("gen", "chain", "3", env=noisy)
check("gen stdout is only the graph", out == "# chain 3\n3 2\n0 1\n1 2\n", repr(out[:120]))
rc, out, err = run("plan", write("empty.txt", "0 0\n"))
check("empty graph", rc == 0 and out == "groups 0 barriers 0\n", repr(out))

# --- errors: usage and malformed input exit 2, invalid graphs exit 3 -----------
expect_error("no args", [], 2, "usage:")
expect_error("unknown command", ["frobnicate"], 2, "unknown command")
expect_error("plan without file", ["plan"], 2, "exactly one of FILE or --demo")
expect_error("bad output", ["plan", diamond, "--output", "xml"], 2, "--output must be")
expect_error("missing file", ["plan", os.path.join(TMP, "missing.txt")], 2, "missing.txt")
bad = write("bad.txt", "3 2\n0 1\n1 x\n")
expect_error("malformed names file and line", ["plan", bad], 2, bad + ":3:")
expect_error("too few lines", ["plan", write("short.txt", "3 2\n0 1\n")], 2, "ParseError")
for name, text, kind in [
        ("invalid wave", "3 2\n0 1\n1 3\n", "InvalidWave:"),
        ("self dependency", "3 2\n0 1\n2 2\n", "SelfDependency:"),
        ("cycle", "3 3\n0 1\n1 2\n2 1\n", "Cycle:"),
        ("zero waves with deps", "0 1\n0 1\n", "InvalidWave:"),
        ("id beyond 32 bits", "3 1\n0 8589934592\n", "InvalidWave:")]:
    err = expect_error(name, ["plan", write(name.replace(" ", "_") + ".txt", text)], 3, kind)
    check(name + " starts with kind", err.startswith("strata: " + kind), err)
    check(name + " ends with Fix", "Fix:" in err.strip().splitlines()[-1], err)
err = expect_error("cycle count", ["plan", write("c2.txt", "4 3\n0 1\n1 2\n2 1\n")], 3, "Cycle:")
check("cycle reports unscheduled waves", "with 2 unscheduled waves" in err, err)

# --- differential: strata plan == Python Kahn on unseen graphs ----------------
rng = random.Random(20261202)
compared = 0
for index in range(60):
    n = rng.randint(1, 300)
    kind = index % 4
    deps = []
    if kind == 0:  # random DAG, shuffled ids, multi-edges
        perm = list(range(n)); rng.shuffle(perm)
        for _ in range(rng.randint(0, 4 * n)):
            a = rng.randrange(n); b = rng.randrange(n)
            if a != b:
                deps.append((perm[min(a, b)], perm[max(a, b)]))
    elif kind == 1:  # layered with skips
        width = rng.randint(1, 20); depth = max(1, n // width); n = width * depth
        for layer in range(1, depth):
            for s in range(width):
                deps.append(((layer - 1) * width + rng.randrange(width), layer * width + s))
                if rng.random() < 0.3:
                    deps.append((rng.randrange(layer * width), layer * width + s))
    elif kind == 2:  # deep: chain with shortcuts, reversed ids
        deps = [(n - w, n - w - 1) for w in range(1, n)]
        deps += [(n - 1 - a, n - 1 - rng.randint(a + 1, n - 1)) for a in
                 (rng.randrange(max(n - 1, 1)) for _ in range(n // 5)) if a + 1 <= n - 1]
    else:  # possibly cyclic
        for _ in range(rng.randint(1, 2 * n)):
            a = rng.randrange(n); b = rng.randrange(n)
            if a != b:
                deps.append((a, b))
    rng.shuffle(deps)
    path = write("diff%d.txt" % index, edge_list(n, deps))
    rc, out, err = run("plan", path)
    expected = kahn_text(n, deps)
    if expected is None:
        check("diff %d cyclic" % index, rc == 3 and err.startswith("strata: Cycle:"), err)
    else:
        check("diff %d" % index, rc == 0 and out == expected, "rc %d err %s" % (rc, err[:200]))
    compared += 1

# strata gen output plans like the Python reference too
for args in (["sweep3d", "7", "5", "3"], ["layered", "30", "12", "3", "25"], ["random", "400", "1600"],
             ["chain", "50"], ["fanout", "40"], ["sweep2d", "9"], ["fanin", "30"],
             ["tree", "40", "in"], ["tree", "41"], ["ilu2d", "9", "7"], ["ilu3d", "5", "4", "3"],
             ["powerlaw", "300", "3"]):
    rc, text, err = run("gen", *args, "--seed", "5")
    check("gen " + " ".join(args), rc == 0, err)
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    n, e = map(int, lines[0].split())
    deps = [tuple(map(int, l.split())) for l in lines[1:]]
    check("gen count " + args[0], len(deps) == e)
    rc, out, err = run("plan", write("gen_%s.txt" % "_".join(args), text))
    check("gen plan " + args[0], rc == 0 and out == kahn_text(n, deps), err)
    compared += 1
expect_error("gen unknown kind", ["gen", "mobius"], 2, "unknown graph kind")
expect_error("gen tree bad direction", ["gen", "tree", "7", "up"], 2, "tree direction")

# strata explain: the policy's decision and what the planner did, for the same plan
rc, out, err = run("explain", "--demo")
rc_plan, plan_out, _ = run("plan", "--demo")
check("explain --demo exit code", rc == 0 and rc_plan == 0, err)
lines = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)
for key in ("graph", "device", "recommendation", "reason", "planned"):
    check("explain prints " + key, key in lines, out)
check("explain reports the plan's groups",
      lines.get("planned", "").startswith(plan_out.split()[1] + " groups"), out + plan_out)
check("explain names the planner's counters",
      "device-paced batches" in lines.get("planned", "") and "chained waves" in lines.get("planned", ""), out)
expect_error("explain needs a file", ["explain"], 2, "'explain' needs exactly one of FILE or --demo")

# --- issue 12: memory limits, output errors, Kokkos messages --------------------
ASAN = "ASAN_OPTIONS" in os.environ  # ASan cannot run in a small address space

# Under any address-space limit the tool either writes the whole output
# (exit 0) or nothing, with one typed error line (exit 3): never half a plan
# (a writer used to flush 491,518 bytes before its bad_alloc), never
# "internal error", never a signal. The limits climb until two in a row succeed.
device_build = address_space.is_device_build(STRATA)
if not ASAN:
    chain = write("chain200k.txt", edge_list(200000, [(w, w + 1) for w in range(199999)]))
    for args in (["plan", chain, "--output", "json"], ["gen", "sweep3d", "40"]):
        full = subprocess.run([STRATA, *args], capture_output=True, timeout=300).stdout
        name = "ulimit -v " + " ".join(a if a != chain else "FILE" for a in args)
        successes = errors = 0
        # a device build climbs on to 1 TiB: its runtime reserves address space for the GPU
        climb = list(range(8, 64, 4)) + list(range(64, 2048, 32))
        for mib in climb + ([2048 << k for k in range(10)] if device_build else []):
            limit = mib << 20
            p = subprocess.run([STRATA, *args], capture_output=True, timeout=300,
                               preexec_fn=lambda l=limit: resource.setrlimit(resource.RLIMIT_AS, (l, l)))
            err = p.stderr.decode("utf-8", "backslashreplace")
            if address_space.loader_failed(p.returncode, err):
                continue  # the loader, before strata runs
            if address_space.killed_by_exec(p.returncode, limit, STRATA):
                continue  # the kernel could not map the executable: exec's SIGSEGV
            if address_space.openmp_runtime_out_of_memory(p.returncode, err):
                print("note: %s %dM: the OpenMP runtime ran out of memory (libgomp exits 1 "
                      "itself); limit skipped" % (name, mib))
                continue
            if p.returncode == 0:
                check(name + " %dM: whole output" % mib, p.stdout == full, "%d of %d bytes" % (len(p.stdout), len(full)))
                successes += 1
                if successes == 2:
                    break
                continue
            errors += 1
            check(name + " %dM: nothing on stdout" % mib, p.stdout == b"", "%d bytes" % len(p.stdout))
            check(name + " %dM: exit 3, typed" % mib, p.returncode == 3 and err.startswith("strata: ") and
                  "Fix:" in err.splitlines()[0] and "internal error" not in err, "rc %d %r" % (p.returncode, err[:300]))
        if device_build and successes == 0:
            print("note: %s: no limit up to 1 TiB lets the device runtime start; every one "
                  "failed typed" % name)
        else:
            check(name + ": reached success", successes == 2, "")
        check(name + ": some limit failed", errors > 0, "")

# --max-memory bounds the reader: 1.5 GB of NUL bytes (a sparse file) over a
# 100M budget is refused from its size, at once and in little memory (it used
# to reach 1.5 GB RSS before its ParseError).
nul = os.path.join(TMP, "nul.bin")
with open(nul, "wb") as f:
    f.truncate(1500 << 20)
with open(os.path.join(TMP, "nul.out"), "wb") as out_f, open(os.path.join(TMP, "nul.err"), "wb") as err_f:
    start = time.monotonic()
    child = subprocess.Popen([STRATA, "plan", nul, "--max-memory", "100M"], stdout=out_f, stderr=err_f)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
with open(os.path.join(TMP, "nul.err")) as f:
    err = f.read()
check("1.5 GB NUL file over 100M: MemoryConstrained", os.waitstatus_to_exitcode(status) == 3 and
      err.startswith("strata: MemoryConstrained: reading ") and "--max-memory" in err, err)
check("1.5 GB NUL file over 100M: nothing on stdout", os.path.getsize(os.path.join(TMP, "nul.out")) == 0)
# what the tool needs to start at all (a GPU runtime maps ~100 MB of its own)
start = subprocess.Popen([STRATA, "plan", write("one_wave.txt", "1 0\n")], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
_, _, start_usage = os.wait4(start.pid, 0)
check("1.5 GB NUL file over 100M: small RSS", ASAN or usage.ru_maxrss < start_usage.ru_maxrss + 64 * 1024,
      "%d KiB (%d KiB to plan one wave)" % (usage.ru_maxrss, start_usage.ru_maxrss))
check("1.5 GB NUL file over 100M: fast", seconds < 10, "%.1f s" % seconds)
# Within the budget the reader holds the text and the list; a budget between
# the file's size and that is refused before the list is reserved.
big = write("budget_reader.txt", edge_list(50000, [(w, w + 1) for w in range(49999)]))
size = os.path.getsize(big)
rc, out, err = run("plan", big, "--max-memory", str(size + 16 * 49999 - 1))
check("reader budget: list beyond it", rc == 3 and out == "" and "MemoryConstrained: reading" in err, err)
rc, out, err = run("plan", big, "--max-memory", "1G")
check("reader budget: within it", rc == 0 and out.startswith("groups 50000 barriers 49999\n"), err)

# Kokkos' start-up warnings (oversubscription, OMP_PROC_BIND) come after the
# strata: error line, never before it.
rc, out, err = run("--kokkos-threads=64", "plan", os.path.join(TMP, "missing.txt"), env=noisy)
check("kokkos warnings after the error line", rc == 2 and out == "" and
      err.startswith("strata: IoError: "), err[:300])
rc, out, err = run("--kokkos-threads=3", "plan", diamond, env=noisy)
check("kokkos options still work", rc == 0 and out == "groups 3 barriers 2\n0 4\n1 2\n3\n", err)

# A GPU build: a device id beyond the visible GPUs is a typed error before
# Kokkos starts (Kokkos 4 aborts in initialize: SIGABRT, exit 134).
if device_build:
    tiny = write("tiny.txt", "2 1\n0 1\n")
    err = expect_error("--kokkos-device-id beyond the GPUs", ["plan", tiny, "--kokkos-device-id=999"], 2,
                       "strata: InvalidArgument: --kokkos-device-id asks for GPU 999, but ")
    check("--kokkos-device-id beyond the GPUs: Fix", "Fix: name a device id below" in err, err)
    rc, out, err = run("plan", tiny, env=dict(os.environ, KOKKOS_DEVICE_ID="999"))
    check("KOKKOS_DEVICE_ID beyond the GPUs", rc == 2 and out == "" and err.startswith(
        "strata: InvalidArgument: KOKKOS_DEVICE_ID asks for GPU 999"), "rc %d %r" % (rc, err[:300]))

# --- first run: no noise, Strata's own help, the version (issue 15) -------------
# A user who sets nothing: strata sets OMP_PROC_BIND=false itself (the OpenMP
# runtime's default), so Kokkos (3.4 and 4.x warn whenever it is unset) prints
# nothing. ASan builds print their own notes on stderr: checked without them.
# A first run sets nothing: no thread count either (ctest's OMP_NUM_THREADS=4
# on a 2-core machine makes Kokkos 3.4 warn, rightly, of oversubscription).
plain = {k: v for k, v in os.environ.items()
         if k not in ("KOKKOS_DISABLE_WARNINGS", "OMP_PROC_BIND", "OMP_PLACES",
                      "GOMP_CPU_AFFINITY", "KMP_AFFINITY", "OMP_NUM_THREADS")}
rc, out, err = run("plan", "--demo", env=plain)
check("first run: plan --demo", rc == 0 and out.startswith("groups 22 barriers 21\n"), out[:80])
check("first run: no Kokkos warning on stderr", "WARNING" not in err and "OMP_PROC_BIND" not in err
      and (ASAN or err == ""), repr(err[:400]))
for command in (["explain", "--demo"], ["run", "--demo"], ["gen", "chain", "3"]):
    rc, out, err = run(*command, env=plain)
    check("first run: %s prints nothing on stderr" % command[0],
          rc == 0 and "WARNING" not in err and (ASAN or err == ""), repr(err[:400]))
version = run("--version")[1]
if ", OpenMP)" in version:
    # A binding the user chose (OMP_PLACES without OMP_PROC_BIND) is left alone:
    # Kokkos then warns as it always did.
    rc, out, err = run("plan", "--demo", env=dict(plain, OMP_PLACES="threads"))
    check("a user's OMP_PLACES is left alone", rc == 0 and "OMP_PROC_BIND" in err, repr(err[:300]))

rc, out, err = run("--help", env=plain)
check("--help: exit 0, nothing on stderr", rc == 0 and (ASAN or err == ""), "rc %d %r" % (rc, err[:300]))
check("--help: Strata's usage", out.startswith("strata ") and "usage: strata plan FILE|-|--demo" in out
      and "strata COMMAND --help" in out, out[:300])
check("--help: no Kokkos option block", "Kokkos command line arguments" not in out + err, out[-300:])
# The demo the help describes is the demo that runs.
demo = re.search(r"(\d+) waves, (\d+) dependencies\. Its plan has (\d+)\s+groups and (\d+) barriers", out)
check("--help describes the demo", demo is not None, out)
if demo:
    header = run("gen", "sweep3d", "8")[1].splitlines()[1]
    check("--help: the demo's counts", header == "%s %s" % demo.group(1, 2), header)
    check("--help: the demo's plan", run("plan", "--demo")[1].startswith(
        "groups %s barriers %s\n" % demo.group(3, 4)), demo.group(0))
for command, needle in (("plan", "--max-memory BYTES"), ("explain", "usage: strata explain"),
                        ("run", "--max-wall-time SECONDS"), ("gen", "powerlaw N")):
    rc, out, err = run(command, "--help", env=plain)
    check(command + " --help", rc == 0 and out.startswith("usage: strata " + command) and needle in out
          and (ASAN or err == ""), "rc %d %r %r" % (rc, out[:200], err[:200]))
    check("help " + command + " is " + command + " --help", run("help", command)[1] == out)
    check(command + " -h is " + command + " --help", run(command, "-h")[1] == out)
rc, out, err = run("plan", "--demo", "--help")
check("plan --demo --help is the help", rc == 0 and out.startswith("usage: strata plan"), out[:100])
# Help and version never start Kokkos: they answer where it could not start.
rc, out, err = run("--help", env=dict(plain, KOKKOS_NUM_THREADS="abc"))
check("--help without starting Kokkos", rc == 0 and out.startswith("strata "), "rc %d %r" % (rc, err[:200]))
rc, out, err = run("--version", env=plain)
check("--version", rc == 0 and re.fullmatch(
    r"strata \d+\.\d+\.\d+ \((commit [0-9a-f]+(-dirty)?|release); Kokkos \d+\.\d+\.\d+, \w+\)\n", out)
      is not None and (ASAN or err == ""), "%r %r" % (out, err[:200]))
rc, out, err = run("--kokkos-help", env=plain)
# (Kokkos 3.4 lists --kokkos-threads, Kokkos 4 --kokkos-num-threads.)
check("--kokkos-help: Kokkos' options on stdout", rc == 0
      and ("--kokkos-threads" in out or "--kokkos-num-threads" in out)
      and "--kokkos-help" in out, "rc %d %r %r" % (rc, out[:200], err[:200]))
rc, out, err = run("plan", "--frobnicate")
check("a usage error shows the command's usage", rc == 2 and "\nusage: strata plan FILE|-|--demo" in err
      and err.rstrip().endswith("Details: strata plan --help"), err)

# --- progress on stderr for a read longer than 2 s: on a terminal only --------
# (issue 40 item 8) The input comes through a FIFO whose writer waits 3 s.
import pty  # noqa: E402
import threading  # noqa: E402


def slow_read(stderr_is_terminal):
    fifo = os.path.join(TMP, "slow_%d.fifo" % stderr_is_terminal)
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as f:
            f.write("3 2\n0 1\n")
            f.flush()
            time.sleep(3)
            f.write("1 2\n")
    feeder = threading.Thread(target=writer)
    feeder.start()
    if stderr_is_terminal:
        leader, follower = pty.openpty()
        p = subprocess.Popen([STRATA, "plan", fifo], stdout=subprocess.PIPE, stderr=follower)
        os.close(follower)
        out = p.stdout.read().decode()
        p.wait(timeout=60)
        err = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
        os.close(leader)
        err = err.decode()
    else:
        p = subprocess.run([STRATA, "plan", fifo], capture_output=True, text=True, timeout=60)
        out, err = p.stdout, p.stderr
    feeder.join()
    return p.returncode, out, err


rc, out, err = slow_read(True)
check("progress on a terminal", rc == 0 and out == "groups 3 barriers 2\n0\n1\n2\n"
      and "strata: ... reading " in err and "done in" in err, "rc %d %r %r" % (rc, out, err[:300]))
rc, out, err = slow_read(False)
check("no progress when stderr is not a terminal", rc == 0 and "reading" not in err,
      "rc %d %r" % (rc, err[:300]))

# --- issue 43: standard input open for writing only is IoError ----------------
wo = os.path.join(TMP, "write_only.txt")
with open(wo, "w") as f:
    p = subprocess.run([STRATA, "plan", "-"], stdin=f, capture_output=True, text=True, timeout=60)
check("stdin open for writing only: IoError", p.returncode == 2 and p.stdout == ""
      and p.stderr.startswith("strata: IoError: <stdin>: is open for writing only."), p.stderr[:300])
# A sysfs file reports a page and holds a short text: read as the short text.
sysfs = "/sys/devices/system/cpu/online"
if os.path.exists(sysfs):
    rc, out, err = run("plan", sysfs)
    check("sysfs file read as its text", rc == 2 and "read failed" not in err
          and err.startswith("strata: ParseError: "), err[:300])

print("compared %d graphs against the Python Kahn; %d failures" % (compared, len(failures)))
sys.exit(1 if failures else 0)
