#!/usr/bin/env python3
"""Writes the generated part of docs/performance.md from the JSON of the latest
benchmark runs (docs/benchmarks/*.json), one section per run:

  strata_bench          (schema strata-bench/1): the planner, per graph
  strata_execute_bench  (schema strata-execute-bench/1): the executor, through
                        scripts/execute_bench_report.py
  strata_sptrsv_bench   (benchmark strata_sptrsv_bench): the sptrsv symbolic
                        phase against Kokkos Kernels'
  strata_solve_bench    (benchmark strata_solve_bench): the triangular solve,
                        every method on every matrix of the set

    scripts/performance_tables.py docs/benchmarks/*.json -o docs/performance.md

Only the text between <!-- performance:begin --> and <!-- performance:end -->
is replaced. A run's environment (device, versions, date, command) heads its
section; the commit a run's JSON records stays in the JSON.
"""
import argparse
import io
import json
import os
import re
import sys
from contextlib import redirect_stdout

BEGIN, END = "<!-- performance:begin -->", "<!-- performance:end -->"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def ms(t):
    return "–" if not t or t.get("median_s") is None else "%.3g" % (t["median_s"] * 1e3)


def ratio(a, b):
    if not a or not b or a.get("median_s") is None or b.get("median_s") is None:
        return "–"
    return "%.2f" % (a["median_s"] / b["median_s"])


def device(name, env):
    """The machine of a run: the JSON records the host CPU, the file name the GPU."""
    backend = env.get("backend", "?")
    for gpu in ("h100", "h200"):
        if "-%s" % gpu in name:
            return "%s, NVIDIA %s" % (backend, gpu.upper())
    threads = env.get("omp_num_threads") or (re.search(r"(\d+)threads", name) or [None, None])[1]
    what = backend + (", %s threads" % threads if backend == "OpenMP" and threads else "")
    return "%s, 2-vCPU VM (%s)" % (what, env.get("cpu", "?"))


def header(name, env):
    out = ["### %s — `%s`" % (device(name, env), name), ""]
    out.append("%s; Kokkos %s, Kokkos Kernels %s; %s repetitions (medians)." % (
        env.get("date", "?"), env.get("kokkos_version", "?"), env.get("kokkos_kernels_version", "?"),
        env.get("repetitions", "?")))
    out += ["", "`%s`" % documented_command(env.get("command", "?"), name), ""]
    return out


def documented_command(command, name):
    """The run's command with its --json path as the file kept here."""
    return re.sub(r"--json \S+", "--json docs/benchmarks/%s" % name, command)


def planner(name, d):
    out = header(name, d["environment"])
    out.append("| graph | waves | deps | groups | auto ms | auto+csr ms | reference ms | reference / auto "
               "| KK level set ms | KK / auto | working peak / CSR |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for g in d["graphs"]:
        modes = g.get("modes", {})
        auto, csr = modes.get("auto", {}), modes.get("auto+csr", {})
        ref = g.get("reference") or None  # {median_s, ...}, or None when not run
        kk = (g.get("kk") or {}).get("time")
        peak = auto.get("working_over_csr")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["name"], g["waves"], g["deps"], g["groups"], ms(auto.get("time")), ms(csr.get("time")),
            ms(ref), ratio(ref, auto.get("time")), ms(kk), ratio(kk, auto.get("time")),
            "–" if peak is None else "%.2f" % peak))
    return out + [""]


def executor(name, path):
    import execute_bench_report as r  # noqa: E402 (the executor's own report)
    text = io.StringIO()
    saved, sys.argv = sys.argv, ["execute_bench_report.py", path]
    try:
        with redirect_stdout(text):
            r.main()
    finally:
        sys.argv = saved
    body = text.getvalue()
    body = re.sub(r"Strata [0-9.]+ \(commit [^,]*, ", "Strata (", body)
    body = re.sub(r"--json \S+", "--json docs/benchmarks/%s" % name, body)
    env = json.load(open(path)).get("environment", {})
    body = re.sub(r"^### .*$", "### %s — `%s`" % (device(name, env), name), body, count=1, flags=re.M)
    return body.rstrip().splitlines() + [""]


def sptrsv(name, d):
    out = header(name, d["environment"])
    out.append("| matrix | triangle | algorithm | rows | levels | Strata symbolic ms | KK symbolic ms "
               "| KK / Strata | same levels, bitwise same x |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---|")
    for rec in d["records"]:
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            rec["matrix"], rec["triangle"], rec["algorithm"], rec["rows"], rec["levels"],
            ms(rec["strata_symbolic"]), ms(rec["kk_symbolic"]), ratio(rec["kk_symbolic"], rec["strata_symbolic"]),
            "yes" if rec.get("same_levels") and rec.get("bitwise_same_x") else "**no**"))
    return out + [""]


def solve_table(d):
    """The strata_solve_bench table (docs/solve.md shows the same rows)."""
    methods = ["serial", "strata-auto", "strata-layered", "strata-dataflow", "kk-RP", "kk-TP1",
               "kk-TP1CHAIN"]
    cusparse = any(m["method"] == "cusparse-SpSV" for r in d["records"] for m in r["methods"])
    if cusparse:
        methods.append("cusparse-SpSV")
    out = ["| matrix | rows | levels | " + " | ".join(methods) + " | auto vs best KK |"
           + (" auto vs cuSPARSE |" if cusparse else ""),
           "|---|---:|---:|" + "---:|" * (len(methods) + 1) + ("---:|" if cusparse else "")]
    for rec in d["records"]:
        by = {m["method"]: m for m in rec["methods"]}
        cells = []
        for name in methods:
            m = by.get(name)
            if m is None or not m.get("verified"):
                cells.append("–" if m is None else "**failed**")
                continue
            cell = "%s ms" % ms(m["time"])
            if name == "strata-auto" and m.get("schedule"):
                cell += " (%s)" % m["schedule"]
            cells.append(cell)
        auto = by.get("strata-auto", {})
        row = "| %s | %s | %s | %s | %s× |" % (
            rec["matrix"], "{:,}".format(rec["rows"]), "{:,}".format(rec["levels"]), " | ".join(cells),
            "%.2f" % auto.get("ratio_vs_best_kk", 0))
        if cusparse:
            row += " %.2f× |" % auto.get("ratio_vs_cusparse", 0)
        out.append(row)
    return out


def solve(name, d):
    out = header(name, d["environment"])
    out.append("Milliseconds (median); the auto mode's schedule in brackets (stretches of "
               "levels and their kernel); ratios: the best Kokkos Kernels method's time over "
               "Strata auto's. Load average at the start: %s." %
               d["environment"].get("load_average_start", "?"))
    out.append("")
    return out + solve_table(d) + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    lines = [BEGIN, "", "_Generated by `scripts/performance_tables.py` from the JSON below._", ""]
    for path in a.json:
        d = json.load(open(path))
        name = os.path.basename(path)
        if d.get("schema", "").startswith("strata-bench"):
            lines += planner(name, d)
        elif d.get("schema", "").startswith("strata-execute-bench"):
            lines += executor(name, path)
        elif d.get("benchmark") == "strata_sptrsv_bench":
            lines += sptrsv(name, d)
        elif d.get("benchmark") == "strata_solve_bench":
            lines += solve(name, d)
        else:
            sys.exit("performance_tables.py: %s: not a strata benchmark JSON" % path)
    lines.append(END)
    page = open(a.output).read()
    start, end = page.index(BEGIN), page.index(END) + len(END)
    open(a.output, "w").write(page[:start] + "\n".join(lines) + page[end:])
    print("performance_tables: wrote %s (%d runs)" % (a.output, len(a.json)))


if __name__ == "__main__":
    main()
