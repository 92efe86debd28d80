#!/usr/bin/env python3
"""Plots the layer widths (waves per group, group by group) of Strata plans
of sweep and ILU graphs as one SVG, without matplotlib: the image in
docs/visualising_plans.md. CI does not run this; rerun it by hand after a
change that moves the plans (the plans themselves are deterministic).

  scripts/plot_layer_widths.py STRATA OUT.svg

STRATA is a built `strata` tool; each graph is `strata gen KIND ARGS`
planned with `strata plan - --output json` (the groups' sizes)."""
import json
import math
import subprocess
import sys

STRATA, OUT = sys.argv[1], sys.argv[2]
PANELS = [
    ("Upwind sweeps (ids in topological order)", [
        ("sweep2d 200 (40,000 waves)", ["sweep2d", "200"], "#1f77b4"),
        ("sweep3d 40 (64,000 waves)", ["sweep3d", "40"], "#d62728"),
    ]),
    ("ILU(0) factors of Laplacians, rows randomly permuted", [
        ("ilu2d 200 (40,000 rows)", ["ilu2d", "200"], "#2ca02c"),
        ("ilu3d 40 (64,000 rows)", ["ilu3d", "40"], "#9467bd"),
        ("ilu3d 100 (1,000,000 rows)", ["ilu3d", "100"], "#ff7f0e"),
    ]),
]


def widths(args):
    graph = subprocess.run([STRATA, "gen", *args], check=True, capture_output=True).stdout
    plan = subprocess.run([STRATA, "plan", "-", "--output", "json"], input=graph, check=True,
                          capture_output=True).stdout
    return [len(g) for g in json.loads(plan)["groups"]]


W, H, LEFT, RIGHT, TOP, GAP, PANEL_H = 900, 0, 70, 20, 40, 70, 260
svg = []
y0 = TOP
for title, series in PANELS:
    data = [(label, widths(args), color) for label, args, color in series]
    groups = max(len(w) for _, w, _ in data)
    top = max(max(w) for _, w, _ in data)
    decades = max(1, math.ceil(math.log10(top)))
    x = lambda g: LEFT + (W - LEFT - RIGHT) * (g / max(groups - 1, 1))
    y = lambda v: y0 + PANEL_H - PANEL_H * math.log10(max(v, 1)) / decades
    svg.append('<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>' % (LEFT, y0 - 12, title))
    svg.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' %
               (LEFT, y0, W - LEFT - RIGHT, PANEL_H))
    for d in range(decades + 1):
        yy = y(10 ** d)
        svg.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (LEFT, yy, W - RIGHT, yy))
        svg.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>' %
                   (LEFT - 6, yy + 4, "{:,}".format(10 ** d)))
    step = next(m * 10 ** k for k in range(12) for m in (1, 2, 5) if groups / (m * 10 ** k) <= 10)
    for g in range(0, groups, step):
        svg.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>' %
                   (x(g), y0 + PANEL_H + 15, g))
    svg.append('<text x="%d" y="%d" font-size="12" text-anchor="middle">group (Kahn layer)</text>' %
               ((LEFT + W - RIGHT) // 2, y0 + PANEL_H + 32))
    svg.append('<text x="16" y="%d" font-size="12" transform="rotate(-90 16 %d)" text-anchor="middle">'
               'waves in the group</text>' % (y0 + PANEL_H // 2, y0 + PANEL_H // 2))
    for i, (label, w, color) in enumerate(data):
        points = " ".join("%.1f,%.1f" % (x(g), y(v)) for g, v in enumerate(w))
        svg.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (color, points))
        for g, v in enumerate(w):
            if len(w) <= 40:
                svg.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (x(g), y(v), color))
        ly = y0 + 18 + 17 * i
        svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>' %
                   (W - RIGHT - 440, ly - 4, W - RIGHT - 415, ly - 4, color))
        svg.append('<text x="%d" y="%d" font-size="12">%s: %d groups, widest %s</text>' %
                   (W - RIGHT - 410, ly, label, len(w), "{:,}".format(max(w))))
    y0 += PANEL_H + GAP
H = y0 - GAP + 45
with open(OUT, "w") as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">\n' % (W, H))
    f.write('<rect width="100%" height="100%" fill="white"/>\n')
    f.write("\n".join(svg) + "\n</svg>\n")
print("wrote", OUT)
