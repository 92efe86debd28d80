#!/usr/bin/env python3
"""Turns strata_bench JSON files into the tables of docs/performance.md and a PNG plot.

  scripts/bench_report.py RUN.json [RUN.json ...] -o docs/performance.md --plot docs/benchmarks.png

One section per JSON file (a backend run: CPU Serial, CPU OpenMP, CUDA, ...),
each with its environment header (date, CPU/GPU, versions, the exact command)
and a table per graph with every mode's median time, the serial reference, Kokkos
Kernels' level set and the ratios. When the output file exists, only the text
between the markers
    <!-- strata-bench:begin -->  and  <!-- strata-bench:end -->
is replaced, so the hand-written parts of docs/performance.md stay. Needs python3
and, for --plot, matplotlib (Debian: python3-matplotlib); CI does not run it.
"""
import argparse
import json
import os
import sys

BEGIN = "<!-- strata-bench:begin -->"
END = "<!-- strata-bench:end -->"
MODES = ["auto", "auto+scratch", "auto+csr", "auto+in-csr", "sparse", "dense", "hybrid", "fused"]


def median(t):
    return None if t is None else t.get("median_s")


def fmt_s(x):
    if x is None:
        return "–"
    if x >= 10:
        return "%.1f" % x
    if x >= 0.01:
        return "%.3f" % x
    return "%.2g" % x


def fmt_ratio(x):
    return "–" if x is None else "%.2f" % x


def fmt_count(n):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            v = n / scale
            return ("%.0f" if v >= 100 else "%.1f" if v >= 10 else "%.2f") % v + unit
    return str(n)


def mode_time(g, mode):
    m = g["modes"].get(mode)
    return None if m is None or "skipped" in m else m["time"]["median_s"]


def best_mode(g):
    """Fastest mode that plans from the dependencies with fresh storage (not
    auto+scratch, which reuses storage, nor the modes given a CSR)."""
    best = None
    for mode in MODES:
        if mode in ("auto+scratch", "auto+csr", "auto+in-csr"):
            continue
        t = mode_time(g, mode)
        if t is not None and (best is None or t < best[1]):
            best = (mode, t)
    return best


def kk_time(g):
    return None if "skipped" in g["kk"] else g["kk"]["time"]["median_s"]


def label(data, path):
    env = data["environment"]
    threads = env.get("omp_num_threads") or ""
    name = env["backend"]
    if name == "OpenMP":
        n = threads or str(env["concurrency"])
        name += " %s thread%s" % (n, "" if n == "1" else "s")
    return "%s (%s)" % (name, os.path.splitext(os.path.basename(path))[0])


def section(data, path):
    env = data["environment"]
    notes = data.get("notes", {})
    out = []
    out.append("### %s — %s, %s\n" % (label(data, path), env.get("cpu", "?"), env["date"]))
    out.append("| | |\n| --- | --- |")
    rows = [
        ("JSON", "`%s`" % os.path.relpath(path)),
        ("date (UTC)", env["date"]),
        ("host / CPU", "%s / %s" % (env["host"], env.get("cpu", "?"))),
        ("backend", "Kokkos::%s (memory space %s), concurrency %s, OMP_NUM_THREADS=%s"
         % (env["backend"], env.get("memory_space", "?"), env["concurrency"],
            env.get("omp_num_threads") or "unset")),
        ("Kokkos / Kokkos Kernels", "%s / %s" % (env["kokkos_version"], env["kokkos_kernels_version"])),
        ("KK level set", env.get("kk_symbolic", "?")),
        ("Strata", "%s, commit %s, %s build, %s" % (env.get("strata_version", "?"), env.get("git_commit", "?"),
                                                   env.get("build_type", "?"), env.get("compiler", "?"))),
        ("command", "`%s`" % env["command"]),
        ("repetitions", "%s per measurement, medians shown" % env["repetitions"]),
        ("load average (1/5/15 min)", "start %s, end %s" % (env.get("load_average_start", "?"),
                                                            env.get("load_average_end", "?"))),
    ]
    for k, v in rows:
        out.append("| %s | %s |" % (k, v.replace("|", "\\|")))
    out.append("")
    modes = [m for m in MODES if any(m in g["modes"] for g in data["graphs"])]
    head = (["graph", "waves", "deps", "groups", "topo ids"] + ["%s s" % m for m in modes] +
            ["ref s", "KK s", "ref/auto", "ref/best", "KK/auto", "KK/best", "KK/auto+csr", "best mode",
             "auto Mdeps/s", "peak/CSR (auto)", "peak MB (auto)", "CSR MB"])
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    footnotes = []
    for g in data["graphs"]:
        auto = mode_time(g, "auto")
        best = best_mode(g)
        ref = median(g["reference"])
        kk = kk_time(g)
        am = g["modes"].get("auto", {})
        cells = [g["name"], fmt_count(g["waves"]), fmt_count(g["deps"]), str(g["groups"]),
                 "yes" if g["topological_ids"] else "no"]
        cells += [fmt_s(mode_time(g, m)) for m in modes]
        cells += [fmt_s(ref), fmt_s(kk) if kk is not None else "n/a"]
        cells += [fmt_ratio(ref / auto if ref and auto else None),
                  fmt_ratio(ref / best[1] if ref and best else None),
                  fmt_ratio(kk / auto if kk and auto else None),
                  fmt_ratio(kk / best[1] if kk and best else None),
                  fmt_ratio(kk / mode_time(g, "auto+csr") if kk and mode_time(g, "auto+csr") else None),
                  best[0] if best else "–",
                  "%.1f" % (g["deps"] / auto / 1e6) if auto else "–",
                  fmt_ratio(am.get("peak_over_csr")),
                  "%.1f" % (am["peak_bytes"] / 1e6) if "peak_bytes" in am else "–",
                  "%.1f" % (g["csr_bytes"] / 1e6)]
        out.append("| " + " | ".join(cells) + " |")
        for m in modes:
            mm = g["modes"].get(m, {})
            if "skipped" in mm:
                footnotes.append("%s, %s: %s" % (g["name"], m, mm["skipped"]))
            elif mm and not mm.get("plan_matches_reference", False):
                footnotes.append("%s, %s: **plan differs from the reference**" % (g["name"], m))
        if "skipped" in g["kk"]:
            footnotes.append("%s, KK: %s" % (g["name"], g["kk"]["skipped"]))
        else:
            footnotes.append("%s, KK: %d levels, %s Strata's %d groups"
                             % (g["name"], g["kk"]["levels"],
                                "equal to" if g["kk"]["levels_match_groups"] else "**differs from**",
                                g["groups"]))
    out.append("")
    out.append("Skipped runs and the Kokkos Kernels cross-check:\n")
    out += ["- " + f for f in footnotes]
    out.append("")
    # Memory of every mode, not just auto.
    out.append("Peak memory over the CSR's own bytes, every mode (measured with Kokkos' "
               "allocation callbacks; %s):\n" % notes.get("peak_bytes", "").rstrip("."))
    head = ["graph", "CSR MB"] + modes + ["KK"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for g in data["graphs"]:
        cells = [g["name"], "%.1f" % (g["csr_bytes"] / 1e6)]
        for m in modes:
            mm = g["modes"].get(m, {})
            cells.append(fmt_ratio(mm.get("peak_over_csr")) if "peak_over_csr" in mm else "–")
        kkp = g["kk"].get("peak_bytes")
        cells.append(fmt_ratio(kkp / g["csr_bytes"]) if kkp else "–")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out)


def targets(runs):
    """The issue's CPU targets, evaluated on every run that has the graphs."""
    out = ["| run | target | measured | met |", "|---|---|---|---|"]
    for path, data in runs:
        name = label(data, path)
        graphs = {g["name"]: g for g in data["graphs"]}
        env = data["environment"]
        if env["backend"] == "OpenMP" and str(env.get("omp_num_threads") or env["concurrency"]) == "2":
            for gname in ("sweep3d-200", "random-2M-10M"):
                g = graphs.get(gname)
                if not g or mode_time(g, "auto") is None or median(g["reference"]) is None:
                    continue
                r = median(g["reference"]) / mode_time(g, "auto")
                rs = median(g["reference"]) / mode_time(g, "auto+scratch") if mode_time(g, "auto+scratch") else None
                rmin = g["reference"]["min_s"] / g["modes"]["auto"]["time"]["min_s"]
                out.append("| %s | %s: auto ≥ 1.6× the serial reference | %.2f× of medians (of minima %.2f×; "
                           "reused scratch %s×) | %s |"
                           % (name, gname, r, rmin, fmt_ratio(rs), "yes" if r >= 1.6 else "**no** (%.0f%% short)"
                              % (100 * (1 - r / 1.6))))
        kk_graphs = [g for g in data["graphs"] if kk_time(g) is not None]
        csr_graphs = [g for g in kk_graphs if mode_time(g, "auto+csr")]
        if csr_graphs:
            slower = [g["name"] for g in csr_graphs if mode_time(g, "auto+csr") >= kk_time(g)]
            worst = min(kk_time(g) / mode_time(g, "auto+csr") for g in csr_graphs)
            out.append("| %s | auto+csr (CSR given, as KK's is) faster than KK's level set on every graph it took (%d) "
                       "| slower on %s; lowest KK/auto+csr %.2f | %s |"
                       % (name, len(csr_graphs), ", ".join(slower) if slower else "none", worst,
                          "yes" if not slower else "**no**"))
        if kk_graphs:
            slower = [g["name"] for g in kk_graphs if mode_time(g, "auto") and mode_time(g, "auto") >= kk_time(g)]
            worst = min(kk_time(g) / mode_time(g, "auto") for g in kk_graphs if mode_time(g, "auto"))
            out.append("| %s | auto faster than KK's level set on every graph it took (%d) | slower on %s; lowest KK/auto %.2f | %s |"
                       % (name, len(kk_graphs), ", ".join(slower) if slower else "none", worst,
                          "yes" if not slower else "**no**"))
        # Issue 16 counts the returned plan apart (the caller's): the working
        # peak where the JSON has it (strata_bench since 0533afa), the total
        # peak for older runs; the total is shown beside it.
        autos = [g for g in data["graphs"] if "peak_over_csr" in g["modes"].get("auto", {})]
        if autos:
            working = all("working_over_csr" in g["modes"]["auto"] for g in autos)
            key = "working_over_csr" if working else "peak_over_csr"
            peaks = [(g["modes"]["auto"][key], g["name"]) for g in autos]
            totals = [g["modes"]["auto"]["peak_over_csr"] for g in autos]
            over = [n for p, n in peaks if p > 2.5]
            what = ("peak memory (auto), the returned plan apart," if working
                    else "peak memory (auto), the returned plan included,")
            total = ("; with the plan %.2f–%.2f×" % (min(totals), max(totals))) if working else ""
            out.append("| %s | %s ≤ 2.5× the CSR's bytes, on the %d graphs of this run | %.3f–%.4f×; above on %s%s | %s |"
                       % (name, what, len(peaks), min(p for p, _ in peaks), max(p for p, _ in peaks),
                          ", ".join(over) if over else "none", total, "yes" if not over else "**no**"))
    return "\n".join(out)


def plot(runs, path):
    try:
        import matplotlib
    except ImportError:
        sys.exit("bench_report: --plot needs matplotlib for %s (Debian: apt-get install "
                 "python3-matplotlib, then run it with /usr/bin/python3)" % sys.executable)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for _, data in runs:
        for g in data["graphs"]:
            if g["name"] not in names:
                names.append(g["name"])
    fig, axes = plt.subplots(2, 1, figsize=(max(10, 0.9 * len(names)), 9), sharex=True)
    width = 0.8 / max(1, len(runs))
    for k, (p, data) in enumerate(runs):
        graphs = {g["name"]: g for g in data["graphs"]}
        ref_ratio, kk_ratio = [], []
        for n in names:
            g = graphs.get(n)
            auto = mode_time(g, "auto") if g else None
            ref = median(g["reference"]) if g else None
            kk = kk_time(g) if g else None
            ref_ratio.append(ref / auto if ref and auto else 0)
            kk_ratio.append(kk / auto if kk and auto else 0)
        xs = [i + (k - (len(runs) - 1) / 2) * width for i in range(len(names))]
        axes[0].bar(xs, ref_ratio, width, label=label(data, p))
        axes[1].bar(xs, kk_ratio, width, label=label(data, p))
    for ax, title in ((axes[0], "serial reference time / Strata auto time"),
                      (axes[1], "Kokkos Kernels sptrsv_symbolic time / Strata auto time (0: n/a)")):
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("speedup (×, log)")
        ax.set_title(title)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].axhline(1.6, color="red", linewidth=0.8, linestyle="--")
    axes[1].set_xticks(range(len(names)))
    axes[1].set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="strata_bench --json files, one per backend run")
    ap.add_argument("-o", "--output", default="docs/performance.md")
    ap.add_argument("--plot", help="PNG file for the speedup plot")
    args = ap.parse_args()
    runs = []
    for p in args.json:
        with open(p) as f:
            runs.append((p, json.load(f)))
    body = [BEGIN, "",
            "_Generated by `scripts/bench_report.py %s` from the JSON files below; do not edit by hand._\n"
            % " ".join(os.path.relpath(p) for p in args.json)]
    body.append("### Targets\n")
    body.append(targets(runs))
    body.append("")
    if args.plot:
        plot(runs, args.plot)
        rel = os.path.relpath(args.plot, os.path.dirname(os.path.abspath(args.output)))
        body.append("![speedup of Strata's auto mode over the serial reference and over Kokkos Kernels](%s)\n" % rel)
    for p, data in runs:
        body.append(section(data, p))
    body.append(END)
    generated = "\n".join(body) + "\n"
    if os.path.exists(args.output):
        text = open(args.output).read()
        if BEGIN in text and END in text:
            text = text[:text.index(BEGIN)] + generated.rstrip("\n") + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + generated
    else:
        text = "# Benchmarks\n\n" + generated
    with open(args.output, "w") as f:
        f.write(text)
    print("bench_report: wrote %s%s" % (args.output, " and " + args.plot if args.plot else ""))


if __name__ == "__main__":
    sys.exit(main())
