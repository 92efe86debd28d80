#!/usr/bin/env python3
"""Tests of `strata run`: every mode runs the synthetic wave on the demo and
on graphs generated here and reports `verified W waves, L layers` with L from
an independent Kahn written here; a wall-time budget drains and resumes
until done; --time prints the time per wave; a bad graph answers exactly as
`strata plan` does (same first stderr line, same exit code, empty stdout);
bad options are InvalidArgument (exit 2). Usage: test_run_cli.py PATH_TO_STRATA"""

import os
import random
import re
import sys

from cli_support import Session, edge_list, kahn_groups

SESSION = Session("strata_run_cli_")
STRATA, TMP, failures = SESSION.strata, SESSION.tmp, SESSION.failures
run, write, check = SESSION.run, SESSION.write, SESSION.check
MODES = ["auto", "layered", "persistent", "dataflow"]


def layers(waves, deps):
    return len(kahn_groups(waves, deps))


def random_dag(rng, waves, edges):
    order = list(range(waves))
    rng.shuffle(order)
    deps = []
    for _ in range(edges if waves > 1 else 0):
        i, j = sorted(rng.sample(range(waves), 2))
        deps.append((order[i], order[j]))
    return deps


def field(stdout, key):
    for line in stdout.splitlines():
        if line.startswith(key + ": "):
            return line[len(key) + 2:]
    return None


# The demo (sweep3d 8x8x8: 512 waves, 22 layers) in every mode.
for mode in MODES:
    rc, out, err = run("run", "--demo", "--mode", mode)
    check("demo %s exit" % mode, rc == 0, err)
    check("demo %s verified" % mode, "verified 512 waves, 22 layers\n" in out, out)
    used = field(out, "mode")
    if mode == "auto":
        check("demo auto mode", used in MODES[1:], out)
        check("demo auto reason", bool(field(out, "reason")), out)
    else:
        check("demo %s mode" % mode, used == mode, out)
    check("demo %s one run" % mode, (field(out, "runs") or "").startswith("1 "), out)

# Generated graphs against the Python Kahn, every mode.
rng = random.Random(13)
for case in range(6):
    waves = rng.randint(1, 300)
    deps = random_dag(rng, waves, rng.randint(0, 3 * waves))
    path = write("g%d.txt" % case, edge_list(waves, deps))
    expected = "verified %d waves, %d layers\n" % (waves, layers(waves, deps))
    for mode in MODES:
        rc, out, err = run("run", path, "--mode", mode, "--wave-work", "50")
        check("graph %d %s" % (case, mode), rc == 0 and expected in out,
              "rc %d, expected %r, got %r %r" % (rc, expected, out, err))

# A wall-time budget far below the work drains, resumes, and still verifies.
for mode in MODES:
    rc, out, err = run("run", "--demo", "--mode", mode, "--wave-work", "200000",
                       "--max-wall-time", "0.0005", "--time")
    check("budget %s exit" % mode, rc == 0, err)
    check("budget %s verified" % mode, "verified 512 waves, 22 layers\n" in out, out)
    m = re.match(r"(\d+) \((\d+) drained", field(out, "runs") or "")
    check("budget %s drained and resumed" % mode,
          m is not None and int(m.group(1)) >= 2 and int(m.group(2)) == int(m.group(1)) - 1, out)
    check("budget %s time" % mode, re.search(r"^time: \S+ s, \S+ us per wave", out, re.M), out)

# A bad graph answers exactly as `strata plan`.
bad = {
    "cycle": "3 3\n0 1\n1 2\n2 1\n",
    "self": "3 1\n2 2\n",
    "invalid": "3 1\n0 7\n",
    "parse": "3 1\n0 x\n",
    "huge": "1099511627776 0\n",
}
for name, text in bad.items():
    path = write("bad_%s.txt" % name, text)
    prc, pout, perr = run("plan", path)
    rrc, rout, rerr = run("run", path, "--mode", "dataflow")
    check("bad %s same exit" % name, rrc == prc and rrc in (2, 3), "plan %d run %d" % (prc, rrc))
    check("bad %s same message" % name,
          rerr.splitlines()[:1] == perr.splitlines()[:1], "%r vs %r" % (perr, rerr))
    check("bad %s empty stdout" % name, rout == "", rout)
missing = os.path.join(TMP, "missing.txt")
check("missing file", run("run", missing)[0] == run("plan", missing)[0] == 2)

# Bad options: InvalidArgument, exit 2, nothing on stdout.
for args in (["--mode", "barrier"], ["--wave-work", "-1"], ["--wave-work", "lots"],
             ["--max-wall-time", "0"], ["--max-wall-time", "soon"], ["--frobnicate"], []):
    rc, out, err = run("run", *(["--demo"] if args else []), *args)
    check("option %s" % args, rc == 2 and out == "" and
          err.startswith("strata: InvalidArgument: ") and "Fix:" in err.splitlines()[0],
          "rc %d %r" % (rc, err))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all run CLI checks passed")
