#!/usr/bin/env python3
"""Choose the consensus step gamma of each method on the selection seeds, before any reported run is read.

    select.py SELECTION_SWEEP_DIR COLUMN

A point's label is "<method>-g<gamma>" ("dpsgd" has no gamma). For each method, the gamma whose runs have the
lowest mean final COLUMN (e.g. suboptimality, train_loss) over the selection seeds wins; a run that diverged or
failed counts as +infinity, so a gamma that is unstable on any selection seed loses. Ties go to the smaller
gamma. Prints the chosen labels separated by "|" (the form `sgdsim ... --where point=A|B` takes) on stdout and
one line per method on stderr.
"""
import csv
import math
import re
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    folder, column = sys.argv[1], sys.argv[2]
    values = defaultdict(list)  # label -> final values over seeds
    with open(folder + "/index.csv", newline="") as index:
        for row in csv.DictReader(index):
            if column not in row:
                sys.exit(f"select.py: {folder}/index.csv has no column {column}")
            good = row["status"] == "ok" and row[column] not in ("", None)
            values[row["label"]].append(float(row[column]) if good else math.inf)
    choices = defaultdict(list)  # method -> [(mean, gamma, label)]
    for label, finals in values.items():
        match = re.fullmatch(r"(.*)-g([0-9.]+)", label)
        method, gamma = (match.group(1), float(match.group(2))) if match else (label, 0.0)
        mean = sum(finals) / len(finals)
        choices[method].append((mean, gamma, label))
    chosen = []
    for method in sorted(choices):
        mean, gamma, label = min(choices[method])
        print(f"select.py: {method}: {label} (mean final {column} {mean:.4g} over "
              f"{len(values[label])} selection seeds)", file=sys.stderr)
        chosen.append(label)
    print("|".join(chosen))


if __name__ == "__main__":
    main()
