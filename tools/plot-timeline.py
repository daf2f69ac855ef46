#!/usr/bin/env python3
"""Draws a timeline.json (written by `sgdsim run ... --timeline`) as a picture with gnuplot: one row per node
with its work (by kind), receives and waits, and below it each link's utilisation.

    python3 tools/plot-timeline.py DIR/timeline.json -o timeline.png [--from-ms A] [--to-ms B] [--nodes N]

Writes the gnuplot script and its data beside the picture (FILE.gp, FILE.dat), like `sgdsim plot`. Needs only
Python's standard library and gnuplot. Exit 2 for bad arguments or a file that is not a timeline.
"""
import argparse
import json
import os
import subprocess
import sys

COLOURS = {
    "gradient": "#4477aa", "encode": "#ee6677", "decode": "#228833", "mixing": "#ccbb44", "update": "#66ccee",
    "receive": "#bbbbbb", "wait": "#555555",
}


def fail(message):
    print("plot-timeline: " + message, file=sys.stderr)
    sys.exit(2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timeline")
    parser.add_argument("-o", "--output", required=True, help="picture: .png or .svg")
    parser.add_argument("--from-ms", type=float, default=None, help="start of the window (simulated ms)")
    parser.add_argument("--to-ms", type=float, default=None, help="end of the window (simulated ms)")
    parser.add_argument("--nodes", type=int, default=8, help="draw at most this many nodes (default 8)")
    parser.add_argument("--links", type=int, default=4, help="draw at most this many link counters (default 4)")
    args = parser.parse_args()
    try:
        with open(args.timeline, encoding="utf-8") as f:
            document = json.load(f)
        events = document["traceEvents"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{args.timeline}: not a timeline ({e})")
    if not args.output.endswith((".png", ".svg")):
        fail("-o must name a .png or .svg file")

    spans, counters, names = [], {}, {}
    for e in events:
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "process_name":
            names[e["pid"]] = e["args"]["name"]
        elif ph == "X" and e.get("tid", 0) == 0:
            kind = e["name"] if e["cat"] == "work" else e["cat"]
            spans.append((e["pid"], e["ts"] / 1e3, (e["ts"] + e["dur"]) / 1e3, kind))
        elif ph == "C":
            counters.setdefault(e["name"], []).append((e["ts"] / 1e3, e["args"]["utilisation"]))
    if not spans:
        fail(f"{args.timeline}: no spans to draw")
    start = args.from_ms if args.from_ms is not None else min(s[1] for s in spans)
    end = args.to_ms if args.to_ms is not None else max(s[2] for s in spans)
    nodes = sorted({s[0] for s in spans})[: args.nodes]
    busiest = sorted(counters, key=lambda name: -max(u for _, u in counters[name]))[: args.links]

    base = os.path.splitext(args.output)[0]
    data = base + ".dat"
    rows = len(nodes) + len(busiest)
    # gnuplot counts only blocks that hold data: keep the non-empty ones, each with its plot clause.
    blocks, plots = [], []
    for kind, colour in COLOURS.items():
        lines = []
        for pid, a, b, k in spans:
            if k != kind or pid not in nodes or b < start or a > end:
                continue
            y = rows - nodes.index(pid)
            # boxxyerror rectangles: x y x_low x_high y_low y_high
            lines.append(f"{(a + b) / 2:.9g} {y:g} {max(a, start):.9g} {min(b, end):.9g} {y - 0.35:g} {y + 0.35:g}")
        if lines:
            blocks.append([f"# {kind}"] + lines)
            plots.append(f"'{os.path.basename(data)}' index {len(blocks) - 1} using 1:2:3:4:5:6 with boxxyerror "
                         f"fs solid 0.9 noborder lc rgb '{colour}' title '{kind}'")
    for i, name in enumerate(busiest):
        # The utilisation as a step function, scaled into the link's row.
        y0 = len(busiest) - i - 0.4
        level, lines = 0.0, [f"# {name}"]
        for t, u in sorted(counters[name]):
            if t > end:
                break
            lines.append(f"{max(t, start):.9g} {y0 + 0.8 * level:.6g}")
            level = u
            lines.append(f"{max(t, start):.9g} {y0 + 0.8 * level:.6g}")
        lines.append(f"{end:.9g} {y0 + 0.8 * level:.6g}")
        blocks.append(lines)
        plots.append(f"'{os.path.basename(data)}' index {len(blocks) - 1} using 1:2 with lines lw 1.5 "
                     "lc rgb 'black' notitle")
    with open(data, "w", encoding="utf-8") as out:
        out.write("\n\n\n".join("\n".join(block) for block in blocks) + "\n")

    terminal = ("set terminal pngcairo size 1200,%d noenhanced font 'sans,10'" % (140 + 28 * rows)
                if args.output.endswith(".png") else
                "set terminal svg size 1200,%d noenhanced font 'sans,10' background rgb 'white'" % (140 + 28 * rows))
    ytics = ", ".join([f'"{names.get(pid, pid)}" {rows - i}' for i, pid in enumerate(nodes)] +
                      [f'"{name} (0..1)" {len(busiest) - i}' for i, name in enumerate(busiest)])
    script = "\n".join([
        terminal,
        f"set output '{os.path.basename(args.output)}'",
        f"set title 'Timeline of {os.path.basename(os.path.dirname(os.path.abspath(args.timeline)))}: "
        "simulated time by node and link'",
        "set xlabel 'simulated time (ms)'",
        f"set xrange [{start:.9g}:{end:.9g}]",
        f"set yrange [0.3:{rows + 0.7}]",
        f"set ytics ({ytics})",
        "set grid xtics",
        "set key outside right top",
        "plot " + ", \\\n     ".join(plots),
        "",
    ])
    gp = base + ".gp"
    with open(gp, "w", encoding="utf-8") as out:
        out.write(script)
    try:
        subprocess.run(["gnuplot", os.path.basename(gp)], cwd=os.path.dirname(os.path.abspath(gp)), check=True)
    except FileNotFoundError:
        print("plot-timeline: gnuplot is not installed (apt install gnuplot-nox); wrote " + gp, file=sys.stderr)
        sys.exit(1)
    except subprocess.CalledProcessError as e:
        print(f"plot-timeline: gnuplot failed ({e.returncode}); see {gp}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
