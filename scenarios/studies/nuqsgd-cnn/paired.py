#!/usr/bin/env python3
"""The ratios study 1's prose quotes, per seed: each quantizer against the fp32 run of the same seed.

    paired.py BASELINE TARGET [TARGET ...] -- SWEEP_DIR [SWEEP_DIR ...] > table.md

One row per sweep folder and quantizer point (every point of the sweep but BASELINE), all cells mean [min, max]:
* the averaged estimator's variance over the sampling variance (`estimator_variance / sampling_variance`),
  per seed and evaluation, every evaluation of the run;
* the final test accuracy minus BASELINE's on the same seed, in accuracy points;
* per TARGET T: BASELINE's simulated seconds to test accuracy min-over-seeds(BASELINE's final) x (1 - T), the
  level of `sgdsim targets --relative-to BASELINE --target T`, divided by the quantizer's on the same seed
  (above 1: the quantizer is sooner); a seed on which either run never reaches it gives no ratio (k/n).
"""
import csv
import sys
from collections import defaultdict


def fail(message):
    print("paired.py: " + message, file=sys.stderr)
    sys.exit(2)


def runs_of(folder):
    """point -> {seed: rows of trace.csv}, completed runs only"""
    runs = defaultdict(dict)
    with open(folder + "/index.csv", newline="") as index:
        for row in csv.DictReader(index):
            if row["status"] == "ok":
                with open(f"{folder}/runs/{row['id']}/trace.csv", newline="") as trace:
                    runs[row["point"]][int(row["seed"])] = list(csv.DictReader(trace))
    return runs


def span(values, form="{:.3g}"):
    if not values:
        return "–"
    return (form + " [" + form + ", " + form + "]").format(sum(values) / len(values), min(values), max(values))


def time_to(rows, level):
    return next((float(r["sim_time_s"]) for r in rows if r["test_accuracy"] and float(r["test_accuracy"]) >= level),
                None)


def main():
    args = sys.argv[1:]
    if "--" not in args or args.index("--") < 2 or args.index("--") == len(args) - 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cut = args.index("--")
    try:
        baseline, targets, folders = args[0], [float(t) for t in args[1:cut]], args[cut + 1:]
    except ValueError as e:
        fail(f"a TARGET is not a number: {e}")
    header = ["sweep", "series", "estimator / sampling variance", "Δ final accuracy (points)"]
    header += [f"fp32's time / its time to {t:g} short of fp32" for t in targets]
    table = []  # printed once every folder has been read: no half-written table
    for folder in folders:
        try:
            runs = runs_of(folder)
        except (OSError, KeyError, ValueError) as e:
            fail(f"{folder}: not a sweep folder with trace.csv files ({e})")
        if baseline not in runs:
            fail(f"{folder}: no completed run of the point {baseline}")
        base = runs[baseline]
        finals = {seed: float(rows[-1]["test_accuracy"]) for seed, rows in base.items()}
        levels = [min(finals.values()) * (1 - t) for t in targets]
        for label in sorted(l for l in runs if l != baseline):
            ratios, gaps = [], []
            speedups = [[] for _ in targets]
            for seed, rows in sorted(runs[label].items()):
                for r in rows:
                    if r["estimator_variance"] and r["sampling_variance"] and float(r["sampling_variance"]) > 0:
                        ratios.append(float(r["estimator_variance"]) / float(r["sampling_variance"]))
                if seed not in base:
                    continue
                gaps.append(100 * (float(rows[-1]["test_accuracy"]) - finals[seed]))
                for speedup, level in zip(speedups, levels):
                    mine, theirs = time_to(rows, level), time_to(base[seed], level)
                    if mine and theirs:
                        speedup.append(theirs / mine)
            cells = [folder.rstrip("/").split("/")[-1], label, span(ratios), span(gaps, "{:+.2f}")]
            for speedup in speedups:
                cell = span(speedup, "{:.2f}")
                if len(speedup) < len(gaps):
                    cell += f" ({len(speedup)}/{len(gaps)})"
                cells.append(cell)
            table.append(cells)
    print("Per seed against the fp32 run of the same seed, mean [min, max]; the variance ratio over every evaluation.")
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for cells in table:
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
