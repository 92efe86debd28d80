#!/usr/bin/env python3
"""Tests of `strata` input and plan views (issue 14): Matrix Market input
(every field and symmetry, both triangles, detection by banner), standard
input (`-`), `--output dot`, the per-wave levels in the JSON plan, and
`strata explain`'s layer-width profile (text and --output json). Matrix
Market plans are checked against an independent Python Kahn over the
dependencies computed here from the matrix entries, and against the same
graph given as an edge list. Usage: test_plan_io_cli.py PATH_TO_STRATA"""

import json
import os
import random
import shutil
import subprocess
import sys

from cli_support import Session, edge_list, kahn_groups

SESSION = Session("strata_plan_io_")
STRATA, TMP, failures = SESSION.strata, SESSION.tmp, SESSION.failures
run, write, check = SESSION.run, SESSION.write, SESSION.check


def plan_text(groups):
    return "groups %d barriers %d\n" % (len(groups), max(len(groups) - 1, 0)) + "".join(
        " ".join(map(str, g)) + "\n" for g in groups)


def expect_error(name, args, code, prefix, stdin=None, env=None):
    rc, out, err = run(*args, stdin=stdin, env=env)
    check(name + " exit code", rc == code, "got %d, stderr %r" % (rc, err[:300]))
    check(name + " empty stdout", out == "", repr(out[:200]))
    check(name + " message", err.startswith("strata: ") and prefix in err.split("\n")[0] and
          "Fix: " in err.split("\n")[0], repr(err[:400]))
    return err


# --- Matrix Market: every field and symmetry, both triangles -------------------
VALUES = {"real": lambda r: ["%.6g" % r.uniform(-9, 9)],
          "integer": lambda r: [str(r.randint(-99, 99))],
          "complex": lambda r: ["%.3e" % r.uniform(-1, 1), "%.3e" % r.uniform(-1, 1)],
          "pattern": lambda r: []}
rng = random.Random(1402)
compared = 0
for index in range(12):  # every field with every symmetry; both triangles for each symmetry
    field = list(VALUES)[index % 4]
    symmetry = ["general", "symmetric", "skew-symmetric"][index % 3]
    triangle = ["lower", "upper"][index // 4 % 2]
    n = rng.randint(1, 60)
    entries = []
    for _ in range(rng.randint(0, 4 * n)):
        i, j = rng.randint(1, n), rng.randint(1, n)
        if symmetry != "general" and i < j and rng.random() < 0.8:
            i, j = j, i  # mostly the stored (lower) triangle, sometimes the other
        entries.append((i, j))
    entries += entries[:3]  # duplicates
    lines = ["%%%%MatrixMarket matrix coordinate %s %s" % (field, symmetry), "% generated", ""]
    lines.append("%d %d %d" % (n, n, len(entries)))
    lines += [" ".join([str(i), str(j)] + VALUES[field](rng)) for i, j in entries]
    path = write("m%d.txt" % index, "\n".join(lines) + "\n")  # no .mtx: the banner decides
    deps = []
    for i, j in entries:
        pairs = [(i, j), (j, i)] if symmetry != "general" else [(i, j)]
        for r, c in pairs:
            if (c < r if triangle == "lower" else c > r):
                deps.append((c - 1, r - 1))
                break
    rc, out, err = run("plan", path, "--triangle", triangle)
    name = "mtx %d (%s %s %s)" % (index, field, symmetry, triangle)
    check(name, rc == 0 and out == plan_text(kahn_groups(n, deps)), "rc %d %s" % (rc, err[:300]))
    # the same graph as an edge list plans the same
    rc2, out2, err2 = run("plan", write("m%d.edges" % index, edge_list(n, deps)))
    check(name + " = edge list", rc2 == 0 and out2 == out, err2[:300])
    compared += 1

# strata gen --output mtx: an ILU factor's pattern (diagonal included) plans as its edge list
for args in (["ilu2d", "13", "9"], ["ilu3d", "6", "5", "4"], ["sweep3d", "5"]):
    rc, mtx_text, err = run("gen", *args, "--output", "mtx", "--seed", "3")
    check("gen %s --output mtx" % " ".join(args), rc == 0 and
          mtx_text.startswith("%%MatrixMarket matrix coordinate pattern general\n"), err)
    rc, edges_text, err = run("gen", *args, "--seed", "3")
    rc1, plan_mtx, err1 = run("plan", write("gen_%s.mtx" % args[0], mtx_text))
    rc2, plan_edges, err2 = run("plan", write("gen_%s.txt" % args[0], edges_text))
    check("gen %s: mtx plans as edges" % args[0], rc1 == 0 and rc2 == 0 and plan_mtx == plan_edges,
          err1 + err2)
    lines = [l for l in edges_text.splitlines() if l and not l.startswith("#")]
    n = int(lines[0].split()[0])
    deps = [tuple(map(int, l.split())) for l in lines[1:]]
    check("gen %s: mtx plan = Python Kahn" % args[0], plan_mtx == plan_text(kahn_groups(n, deps)))
    compared += 1
expect_error("gen --output mtx of a shuffled graph", ["gen", "layered", "20", "8", "3", "25", "--output", "mtx"], 2,
             "InvalidArgument: 'gen layered' numbers its waves out of topological order")
expect_error("gen --output xml", ["gen", "chain", "3", "--output", "xml"], 2, "--output must be 'edges' or 'mtx'")

# --- errors: malformed Matrix Market names file and line; options ---------------
banner = "%%MatrixMarket matrix coordinate real general\n"
bad = write("bad.mtx", banner + "3 3 1\n2 4 1.0\n")
expect_error("index out of range", ["plan", bad], 2, "ParseError: %s:3: column index 4 outside 1..3" % bad)
expect_error(".mtx without banner", ["plan", write("nobanner.mtx", "3 3 0\n")], 2,
             "ParseError: %s:1: malformed banner '3'" % os.path.join(TMP, "nobanner.mtx"))
expect_error("array format", ["plan", write("dense.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n")],
             2, "the array (dense) format is not supported")
diamond = write("diamond.txt", "4 4\n0 1\n0 2\n1 3\n2 3\n")
expect_error("--triangle with an edge list", ["plan", diamond, "--triangle", "upper"], 2,
             "--triangle applies to Matrix Market input")
expect_error("--triangle value", ["plan", bad, "--triangle", "left"], 2, "--triangle must be 'lower' or 'upper'")
# --distributed starts MPI first. Under ASan, LeakSanitizer is off for MPI
# processes, as for the distributed tests (unit_test/CMakeLists.txt): Open
# MPI's unloaded components leave allocations no suppression can match.
mpi_env = dict(os.environ)
if "ASAN_OPTIONS" in mpi_env:
    mpi_env["ASAN_OPTIONS"] = mpi_env["ASAN_OPTIONS"].replace("detect_leaks=1", "detect_leaks=0")
rc, out, err = run("plan", write("dist.mtx", banner + "2 2 1\n2 1 1\n"), "--distributed",
                   env=mpi_env)
check("--distributed refuses Matrix Market", rc == 2 and out == "" and
      ("reads edge lists only" in err or "needs a strata built with MPI" in err), err)

# --- standard input ------------------------------------------------------------
mtx_diamond = "%%MatrixMarket matrix coordinate pattern general\n4 4 4\n2 1\n3 1\n4 2\n4 3\n"
diamond_plan = "groups 3 barriers 2\n0\n1 2\n3\n"
rc, out, err = run("plan", "-", stdin="4 4\n0 1\n0 2\n1 3\n2 3\n")
check("plan - (edge list)", rc == 0 and out == diamond_plan, err)
rc, out, err = run("plan", "-", "--output", "json", stdin=mtx_diamond)
check("plan - (Matrix Market)", rc == 0 and json.loads(out)["groups"] == [[0], [1, 2], [3]], err)
rc, out, err = run("run", "-", stdin=mtx_diamond)
check("run -", rc == 0 and "verified 4 waves, 3 layers" in out, out + err)
rc, out, err = run("explain", "-", stdin=mtx_diamond)
check("explain -", rc == 0 and "graph: 4 waves, 4 dependencies" in out, out + err)
expect_error("stdin malformed", ["plan", "-"], 2, "ParseError: <stdin>:2: malformed 'after' wave 'x'",
             stdin="3 1\n0 x\n")
expect_error("stdin empty", ["plan", "-"], 2, "ParseError: <stdin>:0: no 'V E' header line", stdin="")
expect_error("stdin over --max-memory", ["plan", "-", "--max-memory", "100"], 3,
             "MemoryConstrained: reading <stdin> needs at least", stdin="3 8\n" + "0 1\n" * 8)
expect_error("stdin and --distributed", ["plan", "-", "--distributed"], 2, "", stdin="1 0\n",
             env=mpi_env)

# --- JSON levels, dot ----------------------------------------------------------
sweep = write("sweep.txt", run("gen", "sweep2d", "7", "5")[1])
rc, out, err = run("plan", sweep, "--output", "json")
doc = json.loads(out)
check("json keys in order", list(doc) == ["wave_count", "group_count", "global_barriers", "groups", "levels"], out[:200])
check("json levels match groups", len(doc["levels"]) == doc["wave_count"] and all(
    doc["levels"][w] == g for g, group in enumerate(doc["groups"]) for w in group), out[:300])
rc, out, err = run("plan", diamond, "--output", "dot")
check("dot output", rc == 0 and out.startswith("strict digraph strata_plan {\n") and
      "{ rank=same; g1 [shape=plaintext, style=\"\", label=\"group 1\"]; 1 " in out and
      "  0 -> 1;\n" in out and out.endswith("}\n"), out)
if shutil.which("dot"):  # Graphviz installed: the output must render
    p = subprocess.run(["dot", "-Tsvg"], input=out, capture_output=True, text=True)
    check("dot renders", p.returncode == 0 and "<svg" in p.stdout, p.stderr)
expect_error("dot beyond the limit", ["plan", write("chain.txt", edge_list(2001, [(w, w + 1) for w in range(2000)])),
                                      "--output", "dot"], 2,
             "InvalidArgument: a dot picture is for small graphs: this one has 2001 waves")
expect_error("dot beyond the layout nodes", ["plan", write("random.txt", run("gen", "random", "1000", "3000")[1]),
                                             "--output", "dot"], 2, "layout nodes (its 1000 waves plus one for every group an edge skips), the limit is 6000")
expect_error("--output xml", ["plan", diamond, "--output", "xml"], 2, "--output must be 'text', 'json' or 'dot'")

# --- explain: layer widths -------------------------------------------------------
rc, out, err = run("explain", sweep)
check("explain layer widths", rc == 0 and "layer widths: min 1 median 3 max 5 waves per group over 11 groups\n" in out, out)
check("explain histogram", "  width   1 | " in out and "  width 4-7 | " in out and out.rstrip().endswith("groups"), out)
rc, out, err = run("explain", sweep, "--output", "json")
doc = json.loads(out) if rc == 0 else {}
widths = doc.get("layer_widths", {})
check("explain json", rc == 0 and list(doc) == ["graph", "device", "recommendation", "planned", "layer_widths"], out[:300])
check("explain json widths", widths.get("min") == 1 and widths.get("median") == 3 and widths.get("max") == 5 and
      [b["groups"] for b in widths.get("histogram", [])] == [2, 4, 5], out)
check("explain json graph", doc.get("graph", {}).get("waves") == 35 and doc.get("planned", {}).get("groups") == 11, out)
expect_error("explain --output dot", ["explain", sweep, "--output", "dot"], 2, "--output must be 'text' or 'json' for 'explain'")

print("compared %d Matrix Market graphs; %d failures" % (compared, len(failures)))
sys.exit(1 if failures else 0)
