#!/usr/bin/env python3
"""Tests of `strata solve`: x of real, integer and pattern Matrix Market
files (lower and upper, unit and stored diagonals, general and symmetric)
against a substitution written here, in every mode; the residual report;
--time on stderr; bad files and matrices that are not triangular, lack a
diagonal or hold a zero one answer with the exit code, a `strata:` line
naming the row, a Fix: hint, and nothing on stdout; `strata explain` names
the solve's schedule for a .mtx. Usage: test_solve_cli.py PATH_TO_STRATA"""

import random
import sys

from cli_support import Session

SESSION = Session("strata_solve_cli_")
run, write, check = SESSION.run, SESSION.write, SESSION.check
MODES = ["auto", "layered", "dataflow"]


def mtx(n, entries, field="real", symmetry="general"):
    lines = ["%%%%MatrixMarket matrix coordinate %s %s" % (field, symmetry), "% test", "%d %d %d" % (n, n, len(entries))]
    for (i, j, v) in entries:
        lines.append("%d %d" % (i + 1, j + 1) if field == "pattern" else "%d %d %r" % (i + 1, j + 1, v))
    return "\n".join(lines) + "\n"


def substitute(n, entries, upper, unit, b):
    rows = [[] for _ in range(n)]
    for (i, j, v) in entries:
        rows[i].append((j, v))
    x = [0.0] * n
    for k in range(n):
        i = n - 1 - k if upper else k
        s, d = b[i], 1.0
        for (j, v) in rows[i]:
            if j == i:
                if not unit:
                    d = v
            else:
                s -= v * x[j]
        x[i] = s / d
    return x


def random_triangle(rng, n, upper, per_row=3):
    entries = []
    for i in range(n):
        cols = set()
        for _ in range(rng.randint(0, per_row)):
            if (i < n - 1) if upper else (i > 0):
                cols.add(rng.randint(i + 1, n - 1) if upper else rng.randint(0, i - 1))
        row = [(i, c, -rng.uniform(0.1, 0.2)) for c in cols]
        row.append((i, i, 1.0 + rng.uniform(0.5, 1.0)))
        rng.shuffle(row)  # the diagonal anywhere in the row, entries in any order
        entries.extend(row)
    return entries


def close(x, y):
    norm = max([abs(v) for v in y] + [1e-300])
    return len(x) == len(y) and max([abs(a - b) for a, b in zip(x, y)] + [0.0]) <= 1e-12 * norm


rng = random.Random(41)
for case in range(4):
    n = rng.randint(1, 120)
    for upper in (False, True):
        entries = random_triangle(rng, n, upper)
        path = write("t%d%s.mtx" % (case, "u" if upper else "l"), mtx(n, entries))
        tri = ["--triangle", "upper"] if upper else []
        for unit in (False, True):
            want = substitute(n, entries, upper, unit, [1.0] * n)
            for mode in MODES:
                args = ["solve", path, "--output", "x", "--mode", mode] + tri + (["--unit-diagonal"] if unit else [])
                rc, out, err = run(*args)
                check("case %d %s unit=%s %s exit" % (case, tri, unit, mode), rc == 0, err)
                got = [float(v) for v in out.split()]
                check("case %d %s unit=%s %s x" % (case, tri, unit, mode), close(got, want), out[:200])

# --rhs FILE and random; the residual report.
entries = random_triangle(random.Random(5), 50, False)
path = write("r.mtx", mtx(50, entries))
b = [1.0 + 0.01 * i for i in range(50)]
rhs = write("b.txt", "\n".join(repr(v) for v in b) + "\n")
rc, out, err = run("solve", path, "--rhs", rhs, "--output", "x")
check("rhs file exit", rc == 0, err)
check("rhs file x", close([float(v) for v in out.split()], substitute(50, entries, False, False, b)), out[:200])
rc, out, err = run("solve", path, "--rhs", "random", "--time")
check("residual exit", rc == 0, err)
res = [l for l in out.splitlines() if l.startswith("relative_residual: ")]
check("residual line", len(res) == 1 and float(res[0].split()[1]) <= 1e-14, out)
check("levels line", any(l.startswith("levels: ") for l in out.splitlines()), out)
check("time on stderr", "solve_seconds:" in err and "us_per_level:" in err and "solve_seconds" not in out, err)

# Integer and symmetric files; a pattern gets values and missing diagonals.
rc, out, err = run("solve", write("i.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 2\n2 1 1\n2 2 4\n"), "--output", "x")
check("integer", rc == 0 and close([float(v) for v in out.split()], [0.5, 0.125]), out + err)
sym = write("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 1\n2 2 4\n3 3 1\n")
rc, out, err = run("solve", sym, "--output", "x", "--triangle", "upper")
check("symmetric upper", rc == 0 and close([float(v) for v in out.split()], substitute(3, [(0, 0, 2.0), (0, 1, 1.0), (1, 1, 4.0), (2, 2, 1.0)], True, False, [1.0] * 3)), out + err)
pat = write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n2 1\n3 3\n")
rc, out, err = run("solve", pat)
check("pattern exit", rc == 0, err)
check("pattern note", "lacked 2 diagonal entries" in err, err)

# Errors: exit code, the strata: line first, the row named, Fix:, empty stdout.
def expect_error(name, args, code, needles):
    rc, out, err = run(*args)
    check(name + " exit", rc == code, "rc %d %s" % (rc, err))
    check(name + " stdout empty", out == "", out)
    first = err.splitlines()[0] if err else ""
    check(name + " first line", first.startswith("strata: ") and "Fix:" in first, err)
    for needle in needles:
        check(name + " names " + needle, needle in first, first)

not_lower = write("nl.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n2 3 5\n3 3 1\n")
expect_error("not lower", ["solve", not_lower], 3, ["row 1 ", "column 2"])
missing = write("md.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 1 1\n3 3 1\n")
expect_error("missing diagonal", ["solve", missing], 3, ["row 1 ", "no diagonal"])
zero = write("zd.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 1 1\n2 2 0\n3 3 1\n")
expect_error("zero diagonal", ["solve", zero], 3, ["row 1 ", "zero diagonal"])
expect_error("missing file", ["solve", SESSION.tmp + "/nothing.mtx"], 2, ["IoError"])
expect_error("bad banner", ["solve", write("bb.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n")], 2, ["ParseError"])
expect_error("bad entry", ["solve", write("be.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n")], 2, ["ParseError", "be.mtx:3:"])
expect_error("not square", ["solve", write("ns.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 0\n")], 2, ["not square"])
expect_error("bad mode", ["solve", path, "--mode", "persistent"], 2, ["InvalidArgument"])
expect_error("budget", ["solve", path, "--max-memory", "100"], 3, ["MemoryConstrained", "--max-memory"])
expect_error("budget after reading", ["solve", path, "--max-memory", "10K"], 3, ["MemoryConstrained: solving"])
expect_error("directory", ["solve", SESSION.tmp], 2, ["IoError"])
expect_error("bad rhs", ["solve", path, "--rhs", write("short.txt", "1 2 3\n")], 2, ["ParseError"])

# explain names the solve's schedule and rule for a .mtx.
rc, out, err = run("explain", path)
check("explain exit", rc == 0, err)
check("explain solve line", any(l.startswith("solve: ") and "schedule" in l for l in out.splitlines()), out)
check("explain solve reason", any(l.startswith("solve reason: rule") for l in out.splitlines()), out)

if SESSION.failures:
    print("%d failures" % len(SESSION.failures))
    sys.exit(1)
print("OK")
