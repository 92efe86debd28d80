#!/usr/bin/env python3
"""Checks a strata_execute_bench JSON file: well formed, every field the report
needs, every method that ran verified (each wave once and after its
predecessors; the triangular solves, plain and staged, within 1e-12 of the
serial one), every
method of the run present on every workload. Never looks at a time.

  check_execute_bench_json.py FILE.json
  check_execute_bench_json.py --run STRATA_EXECUTE_BENCH FILE.json [bench args...]   (runs `--quick` first)
"""
import sys

from bench_json import check_timing, fail, load, main

DAG_KEYS = ["name", "description", "waves", "deps", "groups", "bodies"]


def check_dag(d, methods, bodies):
    for k in DAG_KEYS:
        if k not in d:
            fail("workload %s lacks %r" % (d.get("name"), k))
    name = d["name"]
    if sorted(d["bodies"]) != sorted(bodies):
        fail("%s: wave bodies %s, expected %s" % (name, sorted(d["bodies"]), sorted(bodies)))
    ran = 0
    for body, ms in d["bodies"].items():
        if list(ms) != methods:
            fail("%s [%s]: methods %s, expected %s" % (name, body, list(ms), methods))
        for method, m in ms.items():
            where = "%s [%s] %s" % (name, body, method)
            if "skipped" in m:
                if not m["skipped"]:
                    fail(where + ": skipped without saying why")
                continue
            ran += 1
            check_timing(where, m["time"])
            if m.get("verified") is not True:
                fail("%s: not verified (%s)" % (where, m.get("check")))
            for k in ["us_per_wave", "us_per_layer", "speedup_vs"]:
                if k not in m:
                    fail("%s lacks %r" % (where, k))
    if ran == 0:
        fail(name + ": no method ran")


def check(path):
    data, env = load(path, "strata-execute-bench/1", ["methods"])
    methods = env["methods"]
    filtered = "--filter" in env["command"]  # a filtered run may hold only some workloads
    dags = data.get("dags", [])
    if not dags and not filtered:
        fail("no DAG workloads")
    for d in dags:
        check_dag(d, methods, ["empty", "small"])
    tri = data.get("trisolve")
    if tri is None:
        if not filtered:
            fail("no triangular solve")
        print("check_execute_bench_json: %s: %d DAGs x %d methods on %s (filtered run, no trisolve), "
              "well formed, every run verified" % (path, len(dags), len(methods), env["backend"]))
        return
    check_timing("trisolve serial", tri["serial"])
    if not tri["kk"]:
        fail("trisolve: no Kokkos Kernels algorithm")
    for algo, k in tri["kk"].items():
        if "skipped" in k:
            continue
        check_timing("trisolve " + algo, k["time"])
        if k.get("verified") is not True:
            fail("trisolve %s: relative error %r > 1e-12" % (algo, k.get("relative_error")))
    if not tri["waves"]:
        fail("trisolve: no wave decomposition")
    for d in tri["waves"]:
        check_dag(d, methods, ["trisolve", "trisolve-staged"])
    print("check_execute_bench_json: %s: %d DAGs + %d trisolve decompositions x %d methods on %s, "
          "well formed, every run verified" % (path, len(dags), len(tri["waves"]), len(methods), env["backend"]))


if __name__ == "__main__":
    main(sys.argv[1:], __doc__, check)
