#!/usr/bin/env python3
"""Checks a strata_bench JSON file: well formed, every field the report needs,
every plan equal to the reference and every Kokkos Kernels level count equal to
the group count. Never looks at a time.

  check_bench_json.py FILE.json
  check_bench_json.py --run STRATA_BENCH FILE.json [bench args...]   (runs `--quick` first)
"""
import json
import subprocess
import sys

ENV_KEYS = ["backend", "concurrency", "kokkos_version", "kokkos_kernels_version", "date", "host",
            "cpu", "command", "repetitions", "load_average_start"]
GRAPH_KEYS = ["name", "description", "waves", "deps", "groups", "topological_ids", "csr_bytes",
              "reference", "modes", "kk"]


def fail(message):
    print("check_bench_json: " + message)
    sys.exit(1)


def check_timing(where, t):
    if not isinstance(t, dict) or not isinstance(t.get("median_s"), (int, float)) or t["median_s"] < 0:
        fail("%s: no median time" % where)
    if len(t.get("seconds", [])) != t.get("repetitions"):
        fail("%s: repetitions and seconds disagree" % where)


def check(path):
    with open(path) as f:
        data = json.load(f)  # raises on malformed JSON
    if data.get("schema") != "strata-bench/1":
        fail("unknown schema %r" % data.get("schema"))
    env = data.get("environment", {})
    for k in ENV_KEYS:
        if k not in env:
            fail("environment lacks %r" % k)
    graphs = data.get("graphs", [])
    if not graphs:
        fail("no graphs")
    for g in graphs:
        for k in GRAPH_KEYS:
            if k not in g:
                fail("graph %s lacks %r" % (g.get("name"), k))
        name = g["name"]
        if g["reference"] is not None:
            check_timing(name + " reference", g["reference"])
        if not g["modes"]:
            fail(name + ": no modes")
        for mode, m in g["modes"].items():
            if "skipped" in m:
                continue
            check_timing("%s %s" % (name, mode), m["time"])
            if not m["plan_matches_reference"] or m["groups"] != g["groups"]:
                fail("%s %s: plan differs from the reference" % (name, mode))
            if m["peak_bytes"] <= 0 and g["waves"] > 0:
                fail("%s %s: no peak memory measured" % (name, mode))
        kk = g["kk"]
        if "skipped" not in kk:
            check_timing(name + " kk", kk["time"])
            if not kk["levels_match_groups"]:
                fail("%s: Kokkos Kernels found %d levels, Strata %d groups" % (name, kk["levels"], g["groups"]))
        elif g["topological_ids"] is False and not kk["skipped"].startswith("n/a"):
            fail(name + ": kk skipped without saying why")
    print("check_bench_json: %s: %d graphs on %s, well formed, plans and KK levels agree"
          % (path, len(graphs), env["backend"]))


def main(argv):
    if len(argv) >= 3 and argv[0] == "--run":
        exe, path, extra = argv[1], argv[2], argv[3:]
        rc = subprocess.call([exe, "--quick", "--json", path] + extra)
        if rc != 0:
            fail("%s exited with %d" % (exe, rc))
        check(path)
    elif len(argv) == 1:
        check(argv[0])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
