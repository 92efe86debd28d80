#!/usr/bin/env python3
"""Checks a strata_bench JSON file: well formed, every field the report needs,
every plan equal to the reference and every Kokkos Kernels level count equal to
the group count. Never looks at a time.

  check_bench_json.py FILE.json
  check_bench_json.py --run STRATA_BENCH FILE.json [bench args...]   (runs `--quick` first)
"""
import sys

from bench_json import check_timing, fail, load, main

GRAPH_KEYS = ["name", "description", "waves", "deps", "groups", "topological_ids", "csr_bytes",
              "reference", "modes", "kk"]


def check(path):
    data, env = load(path, "strata-bench/1")
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


if __name__ == "__main__":
    main(sys.argv[1:], __doc__, check)
