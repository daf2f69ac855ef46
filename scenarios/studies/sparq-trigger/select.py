#!/usr/bin/env python3
"""Choose the consensus step gamma of each method on the selection seeds, before any reported run is read.

    select.py SELECTION_SWEEP_DIR COLUMN
    select.py SELECTION_SWEEP_DIR COLUMN --bits-to TARGET

A point's label is "<method>-g<gamma>" ("dpsgd" has no gamma). For each method, the gamma whose runs have the
lowest mean final COLUMN (e.g. suboptimality, train_loss) over the selection seeds wins; with --bits-to, the
gamma whose runs have the fewest mean payload bits to the first evaluation at which COLUMN reaches TARGET
(from below for test_accuracy, from above otherwise). A run that diverged, failed or never reached the target
counts as +infinity, so a gamma that is unstable (or too slow) on any selection seed loses. Ties go to the
smaller gamma. Prints the chosen labels separated by "|" (the form `sgdsim ... --where point=A|B` takes) on stdout and
one line per method on stderr.
"""
import csv
import math
import re
import sys
from collections import defaultdict


def bits_to(run, column, target):
    rising = column == "test_accuracy"
    with open(run + "/trace.csv", newline="") as file:
        for row in csv.DictReader(file):
            if row[column] in ("", "nan"):
                continue
            value = float(row[column])
            if (value >= target) if rising else (value <= target):
                return float(row["bits_sent"])
    return math.inf


def main():
    if len(sys.argv) == 5 and sys.argv[3] == "--bits-to":
        target = float(sys.argv[4])
    elif len(sys.argv) == 3:
        target = None
    else:
        sys.exit(__doc__)
    folder, column = sys.argv[1], sys.argv[2]
    criterion = f"final {column}" if target is None else f"bits to {column} {target:g}"
    values = defaultdict(list)  # label -> the criterion's value over seeds
    with open(folder + "/index.csv", newline="") as index:
        for row in csv.DictReader(index):
            if column not in row:
                sys.exit(f"select.py: {folder}/index.csv has no column {column}")
            good = row["status"] == "ok" and row[column] not in ("", None)
            if not good:
                values[row["label"]].append(math.inf)
            elif target is None:
                values[row["label"]].append(float(row[column]))
            else:
                values[row["label"]].append(bits_to(folder + "/runs/" + row["id"], column, target))
    choices = defaultdict(list)  # method -> [(mean, gamma, label)]
    for label, finals in values.items():
        match = re.fullmatch(r"(.*)-g([0-9.]+)", label)
        method, gamma = (match.group(1), float(match.group(2))) if match else (label, 0.0)
        mean = sum(finals) / len(finals)
        choices[method].append((mean, gamma, label))
    chosen = []
    for method in sorted(choices):
        mean, gamma, label = min(choices[method])
        print(f"select.py: {method}: {label} (mean {criterion} {mean:.4g} over "
              f"{len(values[label])} selection seeds)", file=sys.stderr)
        chosen.append(label)
    print("|".join(chosen))


if __name__ == "__main__":
    main()
