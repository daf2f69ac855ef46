#!/usr/bin/env python3
"""Figures and tables for the bundled studies that `sgdsim plot` does not make (standard library + gnuplot).

  analyze.py curve SWEEP... --y COLUMN [--x step|bits|time] [--only REGEX] [--log-y] -o FIG.png
      any trace.csv column (e.g. compression_error) against steps, bits or simulated time; mean over seeds
      with a min..max band, one series per index label (seeds merged). Keeps FIG.gp and FIG.dat beside it.
  analyze.py final SWEEP... [--only REGEX] -o TABLE.md
      per series: final training loss, test accuracy, time-averaged compression error, bits per message
      coordinate, total bits; mean [min, max] over seeds.
  analyze.py target SWEEP... --target L [--target L2 ...] [--only REGEX] -o TABLE.md
      per series and target: steps, bits and simulated seconds to the first evaluation at or below the target
      (the same rule as `sgdsim plot --x bandwidth`); mean [min, max] over seeds; a series where any seed never
      got there is reported as not reached (k/n seeds), never averaged over the lucky seeds.
  analyze.py best SWEEP... --target L --family PREFIX... [--ratio A B] -o TABLE.md
      per sweep and target: the best member of each family of explicit points (label prefix, e.g. choco-g for
      the gamma search) that reaches the target on every seed, by mean bits; and ratios between families.
  analyze.py crossover SWEEP --target L --gp FIG.gp -o TABLE.md
      bandwidth sweeps (grid key network.link.bandwidth, explicit points = methods): time to target per method
      and bandwidth, the fastest method per bandwidth, and the bandwidths where each compressed method stops
      beating its uncompressed counterpart (log-log interpolation between grid bandwidths). With --gp, dashed
      vertical lines at those crossovers are added to the gnuplot script written by `sgdsim plot` and the
      figure is re-rendered.

A series is a label of the sweep's index.csv (status ok); labels of several sweeps may be mixed. Trace columns
are named as `sgdsim docs outputs --json` declares them (short names such as bits or loss included); the
simulator is $SGDSIM, by default build/sgdsim of this repository.
"""
import argparse
import csv
import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.lru_cache(maxsize=None)
def declared_columns():
    """The trace.csv columns the simulator declares, by name and by short name (loss -> train_loss, ...)."""
    binary = os.environ.get("SGDSIM") or os.path.join(ROOT, "build", "sgdsim")
    try:
        text = subprocess.run([binary, "docs", "outputs", "--json"], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"analyze.py: cannot read the output declarations from {binary} (build it, or set SGDSIM): {e}")
    columns = {}
    for column in json.loads(text)["trace.csv"]:
        columns[column["name"]] = column
        if column["alias"]:
            columns[column["alias"]] = column
    return columns


def col(name):
    """The trace column of a name or short name."""
    column = declared_columns().get(name)
    if column is None:
        sys.exit(f"analyze.py: no trace column {name!r} is declared (sgdsim docs outputs lists them)")
    return column["name"]


def read_index(sweep):
    path = os.path.join(sweep, "index.csv")
    if not os.path.exists(path):
        sys.exit(f"analyze.py: {path}: no index (run the sweep first)")
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok"]


def read_trace(sweep, run_id):
    with open(os.path.join(sweep, "runs", run_id, "trace.csv"), newline="") as f:
        return list(csv.DictReader(f))


def num(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def load(sweeps, only=None):
    """{label: [(seed, index row, trace rows)]} in index order; row["_sweep"] names the sweep folder."""
    series = {}
    for sweep in sweeps:
        for row in read_index(sweep):
            if only and not re.search(only, row["label"]):
                continue
            row["_sweep"] = sweep
            series.setdefault(row["label"], []).append((row["seed"], row, read_trace(sweep, row["id"])))
    if not series:
        sys.exit("analyze.py: no completed runs matched")
    return series


def short_labels(labels):
    """Drop the comma-separated parts every label shares (e.g. 'nodes=4'), for legends and tables."""
    parts = [[p.strip() for p in label.split(",")] for label in labels]
    common = set(parts[0]).intersection(*map(set, parts[1:])) if len(parts) > 1 else set()
    out = {}
    for label, ps in zip(labels, parts):
        kept = [p for p in ps if p not in common]
        out[label] = ", ".join(kept) if kept else label
    return out


def spread(values, fmt):
    if not values:
        return "–"
    mean = statistics.fmean(values)
    if len(values) == 1:
        return fmt(mean)
    return f"{fmt(mean)} [{fmt(min(values))}, {fmt(max(values))}]"


def sci(x):
    return f"{x:.3g}"


def fix3(x):
    return f"{x:.3f}"


def fix4(x):
    return f"{x:.4f}"


X_CHOICES = ["step", "bits", "time"]


def render(gp_path):
    folder, name = os.path.split(os.path.abspath(gp_path))
    subprocess.run(["gnuplot", name], cwd=folder, check=True)


def cmd_curve(args):
    series = load(args.sweeps, args.only)
    names = short_labels(list(series))
    xcol = col(args.x)
    log_x = declared_columns()[args.x]["log_scale"]
    base, _ = os.path.splitext(args.output)
    dat, gp = base + ".dat", base + ".gp"
    blocks = []
    for label, runs in series.items():
        by_step = {}
        for _, _, trace in runs:
            for r in trace:
                x, y = num(r[xcol]), num(r[args.y])
                if x is None or y is None or (args.log_y and y <= 0) or (log_x and x <= 0):
                    continue
                by_step.setdefault(int(r["step"]), []).append((x, y))
        lines = [f"# {names[label]}", "# x mean min max seeds"]
        for step in sorted(by_step):
            pts = by_step[step]
            if len(pts) != len(runs):
                continue  # a row not every seed has (should not happen with one grid of steps)
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            lines.append(f"{statistics.fmean(xs):.10g} {statistics.fmean(ys):.10g} {min(ys):.10g} "
                         f"{max(ys):.10g} {len(pts)}")
        if len(lines) == 2:  # no drawable point (e.g. zero bits on a log axis): an empty block would shift
            print(f"analyze.py: {names[label]}: nothing to draw, left out", file=sys.stderr)  # gnuplot's indices
            continue
        blocks.append((names[label], "\n".join(lines)))
    with open(dat, "w") as f:
        f.write("\n\n\n".join(b for _, b in blocks) + "\n")
    xlabel = declared_columns()[args.x]["axis"]
    plot = []
    for i, (name, _) in enumerate(blocks):
        colour, dash = i % 8 + 1, i // 8 + 1  # gnuplot has 8 default colours; then dashes tell series apart
        plot.append(f'data index {i} using 1:3:4 with filledcurves lc {colour} notitle')
        plot.append(f'data index {i} using 1:2 with lines lc {colour} dt {dash} lw 2 title "{name}"')
    with open(gp, "w") as f:
        f.write(f"""# Written by scenarios/studies/analyze.py curve. Re-render with: gnuplot {os.path.basename(gp)}
set terminal pngcairo size {args.size} noenhanced font "sans,10"
set output "{os.path.basename(args.output)}"
data = "{os.path.basename(dat)}"
set title "{args.title or args.y + ' vs ' + args.x}"
set xlabel "{xlabel}"
set ylabel "{args.ylabel or args.y}"
set grid
set key outside right top box opaque
set style fill transparent solid 0.20 noborder
{'set logscale y' if args.log_y else ''}
{'set logscale x' if log_x else ''}
plot {', '.join(plot)}
""")
    render(gp)
    # Keep committed figures small: shrink the canvas until the PNG is under 100 kB (min/max bands are costly).
    for _ in range(4):
        if os.path.getsize(args.output) <= 100_000:
            break
        with open(gp) as f:
            script = f.read()
        w, h = (int(v) for v in re.search(r"size (\d+),(\d+)", script).groups())
        with open(gp, "w") as f:
            f.write(script.replace(f"size {w},{h}", f"size {int(w * 0.9)},{int(h * 0.9)}", 1))
        render(gp)
    print(f"analyze.py: {len(blocks)} series -> {args.output}")


def cmd_final(args):
    series = load(args.sweeps, args.only)
    names = short_labels(list(series))
    # Same seed = same initial model and same minibatches in every run of a sweep, so the loss difference to
    # the reference point of the same sweep and seed isolates the effect of the method.
    reference = {}
    if args.reference:
        for sweep in args.sweeps:
            for row in read_index(sweep):
                if row.get("point") == args.reference:
                    reference[(sweep, row["seed"])] = num(read_trace(sweep, row["id"])[-1][col("loss")])
    paired = " | final loss − " + args.reference + " (same seed)" if args.reference else ""
    out = ["| series | seeds | final training loss" + paired + " | final test accuracy | mean compression error "
           "‖Q(g)−g‖²/‖g‖² | bits per coordinate per message | total bits sent |",
           "|---|---|---|" + ("---|" if args.reference else "") + "---|---|---|---|"]
    for label, runs in series.items():
        loss, acc, err, bpc, bits, delta = [], [], [], [], [], []
        for seed, row, trace in runs:
            last = trace[-1]
            loss.append(num(last[col("loss")]))
            ref = reference.get((row["_sweep"], seed))
            if ref is not None and loss[-1] is not None:
                delta.append(loss[-1] - ref)
            if num(last[col("accuracy")]) is not None:
                acc.append(num(last[col("accuracy")]))
            # Rows average over the messages since the previous row and rows are evenly spaced, so the mean of
            # the rows is the mean over training (the last row may cover a shorter span; negligible here).
            errs = [num(r["compression_error"]) for r in trace[1:] if num(r["compression_error"]) is not None]
            if errs:
                err.append(statistics.fmean(errs))
            total, messages = num(last[col("bits")]), num(last["messages"])
            bits.append(total)
            if args.dimension and messages:
                bpc.append(total / messages / args.dimension)
        loss = [v for v in loss if v is not None]
        extra = f" | {spread(delta, lambda v: f'{v:+.4f}')}" if args.reference else ""
        out.append(f"| {names[label]} | {len(runs)} | {spread(loss, fix4)}{extra} | {spread(acc, fix4)} | "
                   f"{spread(err, sci)} | {spread(bpc, fix3)} | {spread(bits, sci)} |")
    write(args.output, out)


def reach(trace, target):
    for r in trace:
        loss = num(r[col("loss")])
        if loss is not None and loss <= target:
            return r
    return None


def cmd_target(args):
    series = load(args.sweeps, args.only)
    names = short_labels(list(series))
    out = ["| series | target loss | seeds reached | steps | bits sent | simulated s | final loss |",
           "|---|---|---|---|---|---|---|"]
    for target in args.target:
        for label, runs in series.items():
            hits = [reach(trace, target) for _, _, trace in runs]
            final = [num(trace[-1][col("loss")]) for _, _, trace in runs]
            ok = [h for h in hits if h is not None]
            if len(ok) < len(runs):
                out.append(f"| {names[label]} | {target} | {len(ok)}/{len(runs)} | not reached | – | – | "
                           f"{spread(final, fix4)} |")
                continue
            bits = [num(h[col("bits")]) for h in ok]
            out.append(f"| {names[label]} | {target} | {len(ok)}/{len(runs)} | "
                       f"{spread([num(h['step']) for h in ok], lambda v: f'{v:.0f}')} | {spread(bits, sci)} | "
                       f"{spread([num(h[col('time')]) for h in ok], sci)} | {spread(final, fix4)} |")
    write(args.output, out)


def cmd_best(args):
    """Per sweep and target: the family member (label prefix) with the fewest mean bits among those that reach the
    target on every seed, and the ratios of the families' best bits."""
    fams = args.family
    head = " | ".join(f"best {f}: bits [min, max] (steps)" for f in fams)
    ratios = [(a, b) for a, b in args.ratio]
    out = ["| sweep | target | " + head + "".join(f" | {a} / {b} bits" for a, b in ratios) + " |",
           "|---|---|" + "---|" * (len(fams) + len(ratios))]
    for sweep in args.sweeps:
        series = load([sweep])
        for target in args.target:
            best = {}
            for label, runs in series.items():
                point = runs[0][1].get("point", label)
                fam = next((f for f in fams if point.startswith(f)), None)
                if fam is None:
                    continue
                hits = [reach(trace, target) for _, _, trace in runs]
                if None in hits:
                    continue
                bits = [num(h[col("bits")]) for h in hits]
                steps = statistics.fmean(num(h["step"]) for h in hits)
                if fam not in best or statistics.fmean(bits) < best[fam][0]:
                    best[fam] = (statistics.fmean(bits), bits, point, steps)
            cells = []
            for f in fams:
                if f in best:
                    m, bits, point, steps = best[f]
                    cells.append(f"{point}: {spread(bits, sci)} ({steps:.0f})")
                else:
                    cells.append("none reaches it on every seed")
            rs = []
            for a, b in ratios:
                rs.append(f"{best[a][0] / best[b][0]:.2g}" if a in best and b in best and best[b][0] > 0 else "–")
            out.append(f"| {os.path.basename(os.path.normpath(sweep))} | {target} | " + " | ".join(cells) +
                       "".join(f" | {r}" for r in rs) + " |")
    write(args.output, out)


BANDWIDTH = "network.link.bandwidth"


def bandwidth_bps(text):
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kMGT]?)(bps|Bps)\s*", text)
    if not m:
        sys.exit(f"analyze.py: cannot read bandwidth {text!r}")
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
    return float(m.group(1)) * scale * (8 if m.group(3) == "Bps" else 1)


def crossing(bws, slow, fast):
    """Bandwidths where fast(bw)/slow(bw) crosses 1, log-log interpolated between neighbouring grid points."""
    found = []
    for i in range(len(bws) - 1):
        a, b = slow[i], slow[i + 1]
        c, d = fast[i], fast[i + 1]
        if None in (a, b, c, d):
            continue
        r0, r1 = math.log(c / a), math.log(d / b)
        if r0 < 0 <= r1 or r0 > 0 >= r1:
            f = r0 / (r0 - r1) if r0 != r1 else 0.0
            found.append(math.exp(math.log(bws[i]) + f * (math.log(bws[i + 1]) - math.log(bws[i]))))
    return found


def fmt_bw(bps):
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3g} {unit}"
    return f"{bps:.3g} bps"


def cmd_crossover(args):
    rows = read_index(args.sweep)
    times = {}  # (method, bw) -> [time or None per seed]
    for row in rows:
        hit = reach(read_trace(args.sweep, row["id"]), args.target)
        key = (row["point"], bandwidth_bps(row[BANDWIDTH]))
        times.setdefault(key, []).append(num(hit[col("time")]) if hit else None)
    methods = list(dict.fromkeys(k[0] for k in times))
    bws = sorted({k[1] for k in times})

    def mean_time(m, bw):
        ts = times.get((m, bw), [])
        return statistics.fmean(ts) if ts and None not in ts else None

    out = [f"Time (simulated seconds) to training loss ≤ {args.target}: mean [min, max] over seeds; "
           "'–' = some seed never reached it.", "",
           "| method | " + " | ".join(fmt_bw(b) for b in bws) + " |", "|---|" + "---|" * len(bws)]
    for m in methods:
        cells = []
        for bw in bws:
            ts = times.get((m, bw), [])
            cells.append(spread(ts, sci) if ts and None not in ts else "–")
        out.append(f"| {m} | " + " | ".join(cells) + " |")
    fastest = []
    for bw in bws:
        cand = [(mean_time(m, bw), m) for m in methods if mean_time(m, bw) is not None]
        fastest.append(min(cand)[1] if cand else "–")
    out.append("| **fastest** | " + " | ".join(f"**{m}**" for m in fastest) + " |")
    out += ["", "| compressed method | vs | faster at | crossover bandwidth(s) |", "|---|---|---|---|"]
    lines = []
    for fast, slow in args.pair:
        if fast not in methods or slow not in methods:
            continue
        tf = [mean_time(fast, bw) for bw in bws]
        ts = [mean_time(slow, bw) for bw in bws]
        wins = [fmt_bw(bw) for bw, a, b in zip(bws, tf, ts) if a is not None and b is not None and a < b]
        cross = crossing(bws, ts, tf)
        out.append(f"| {fast} | {slow} | {', '.join(wins) if wins else 'none of the grid'} | "
                   f"{', '.join('≈ ' + fmt_bw(c) for c in cross) if cross else 'no crossing in the grid'} |")
        lines += [(c, f"{fast} = {slow}") for c in cross]
    write(args.output, out)
    if args.gp:
        with open(args.gp) as f:
            script = f.read()
        marks = "".join(
            f'set arrow from {c:.6g}, graph 0 to {c:.6g}, graph 1 nohead dashtype 2 lc rgb "gray30"\n'
            f'set label "{name}" at {c:.6g}, graph {0.97 - 0.05 * i:.2f} right font ",8" '
            f'tc rgb "gray30" offset -0.4,0\n'
            for i, (c, name) in enumerate(sorted(lines)))
        script = re.sub(r"^plot ", lambda m: marks + "plot ", script, count=1, flags=re.M)
        with open(args.gp, "w") as f:
            f.write(script)
        render(args.gp)


def write(path, lines):
    text = "\n".join(lines) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    with open(path, "w") as f:
        f.write(text)
    print(f"analyze.py: -> {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("curve")
    c.add_argument("sweeps", nargs="+")
    c.add_argument("--y", required=True)
    c.add_argument("--x", choices=X_CHOICES, default="step")
    c.add_argument("--only")
    c.add_argument("--log-y", action="store_true")
    c.add_argument("--title")
    c.add_argument("--ylabel")
    c.add_argument("--size", default="860,520")
    c.add_argument("-o", "--output", required=True)
    c.set_defaults(func=cmd_curve)
    f = sub.add_parser("final")
    f.add_argument("sweeps", nargs="+")
    f.add_argument("--only")
    f.add_argument("--dimension", type=int, help="model dimension d, for bits per coordinate")
    f.add_argument("--reference", help="explicit point label whose same-seed final loss is subtracted")
    f.add_argument("-o", "--output", default="-")
    f.set_defaults(func=cmd_final)
    t = sub.add_parser("target")
    t.add_argument("sweeps", nargs="+")
    t.add_argument("--target", type=float, action="append", required=True)
    t.add_argument("--only")
    t.add_argument("-o", "--output", default="-")
    t.set_defaults(func=cmd_target)
    b = sub.add_parser("best")
    b.add_argument("sweeps", nargs="+")
    b.add_argument("--target", type=float, action="append", required=True)
    b.add_argument("--family", action="append", required=True, help="explicit point label prefix, e.g. choco")
    b.add_argument("--ratio", nargs=2, action="append", default=[], metavar=("A", "B"))
    b.add_argument("-o", "--output", default="-")
    b.set_defaults(func=cmd_best)
    x = sub.add_parser("crossover")
    x.add_argument("sweep")
    x.add_argument("--target", type=float, required=True)
    x.add_argument("--pair", nargs=2, action="append", default=[], metavar=("COMPRESSED", "BASELINE"))
    x.add_argument("--gp")
    x.add_argument("-o", "--output", default="-")
    x.set_defaults(func=cmd_crossover)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
