#!/usr/bin/env python3
"""Firing rates and paired, per-seed comparisons of SPARQ-SGD's thresholds with its c0 = 0 ablation.

    paired.py SWEEP_DIR CHOSEN COLUMN TARGET [TARGET ...] > table.md

CHOSEN is select.py's output (labels separated by "|"); the runs of those labels in SWEEP_DIR are compared.
For each SPARQ label: the firing rate (the trace's final `triggers` over nodes x floor(steps / local_steps)
possible firings), mean [min, max] over seeds; the final consensus distance; and, per TARGET of COLUMN
(reached from above), the bits SPARQ sent until its first evaluation at the target divided by the bits its
c0 = 0 twin (periodic CHOCO with the same local steps, at its own chosen gamma) sent on the same seed:
mean [min, max] of the per-seed ratios, and on how many seeds the threshold saved bits. A seed on which either
run never reached the target gives no ratio (counted in the "reached" cell).
"""
import csv
import json
import math
import re
import sys
from collections import defaultdict


def runs_of(folder):
    """label -> {seed: run folder}"""
    runs = defaultdict(dict)
    with open(folder + "/index.csv", newline="") as index:
        for row in csv.DictReader(index):
            runs[row["label"]][int(row["seed"])] = (folder + "/runs/" + row["id"], row["status"])
    return runs


def trace(run):
    with open(run + "/trace.csv", newline="") as file:
        return list(csv.DictReader(file))


def bits_to(rows, column, target):
    for row in rows:
        if row[column] != "" and float(row[column]) <= target:
            return float(row["bits_sent"])
    return None


def span(values, form="{:.3g}"):
    if not values:
        return "–"
    return (form + " [" + form + ", " + form + "]").format(sum(values) / len(values), min(values), max(values))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    folder, chosen, column = sys.argv[1], sys.argv[2].split("|"), sys.argv[3]
    targets = [float(t) for t in sys.argv[4:]]
    runs = runs_of(folder)
    sparq = [label for label in chosen if label.startswith("sparq-")]
    periodic = next((label for label in sparq if re.match(r"sparq-c0-", label)), None)
    if periodic is None:
        sys.exit("paired.py: no c0 = 0 label among the chosen ones")
    header = ["series", "c0", "firing rate %", "final consensus distance"]
    for target in targets:
        header += [f"bits to {column} ≤ {target:g} / c0 = 0 (per seed)", "seeds with fewer bits"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    base = {seed: trace(run) for seed, (run, status) in runs[periodic].items() if status == "ok"}
    for label in sorted(sparq, key=lambda l: float(re.match(r"sparq-c([0-9.e+]+)-", l).group(1))):
        rates, distances = [], []
        ratios = {target: [] for target in targets}
        for seed, (run, status) in sorted(runs[label].items()):
            if status != "ok":
                continue
            rows = trace(run)
            with open(run + "/resolved.json") as file:
                resolved = json.load(file)
            algorithm = resolved["algorithm"]
            possible = resolved["network"]["topology"]["nodes"] * (algorithm["steps"] // algorithm["local_steps"])
            rates.append(100 * float(rows[-1]["triggers"]) / possible)
            distances.append(float(rows[-1]["consensus_distance"]))
            for target in targets:
                mine = bits_to(rows, column, target)
                theirs = bits_to(base[seed], column, target) if seed in base else None
                if mine is not None and theirs:
                    ratios[target].append(mine / theirs)
        c0 = re.match(r"sparq-c([0-9.e+]+)-", label).group(1)
        cells = [label, c0, span(rates, "{:.0f}"), span(distances)]
        for target in targets:
            r = ratios[target]
            cells += [span(r, "{:.2f}"), f"{sum(1 for x in r if x < 1)}/{len(r)}" if r else "–"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
