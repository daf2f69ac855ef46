#!/usr/bin/env python3
"""Speed-up over a baseline method in simulated time to a target, per accelerator profile and bandwidth.

    speedup.py SWEEP_DIR BASELINE COLUMN TARGET > table.md

SWEEP_DIR is a sweep whose points are methods and whose grid is `compute.profile` x `network.link.bandwidth`
(gpu-cluster/lenet5.sweep.json). For every profile, method and bandwidth the cell is the baseline's time to
the first evaluation at which COLUMN reaches TARGET (from below for test_accuracy, from above otherwise)
divided by the method's, seed by seed: mean [min, max] of the per-seed ratios (above 1: the method is
faster). A seed on which the method never reached the target gives no ratio; the cell then says on how many
seeds it did ("2/3 reached"), and is "not reached" when none did. The baseline must reach it on every seed.
"""
import csv
import sys
from collections import defaultdict


def time_to(run, column, target):
    rising = column == "test_accuracy"
    with open(run + "/trace.csv", newline="") as file:
        for row in csv.DictReader(file):
            value = row[column]
            if value in ("", "nan"):
                continue
            if (float(value) >= target) if rising else (float(value) <= target):
                return float(row["sim_time_s"])
    return None


def bits_per_second(text):
    for suffix, factor in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3), ("bps", 1.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    sys.exit(f"speedup.py: bandwidth '{text}' is not in bps, kbps, Mbps or Gbps")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    folder, baseline, column, target = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    times = defaultdict(dict)  # (profile, method, bandwidth) -> {seed: time or None}
    methods, profiles, bandwidths = [], [], []
    with open(folder + "/index.csv", newline="") as index:
        for row in csv.DictReader(index):
            profile, method, bandwidth = row["compute.profile"], row["point"], row["network.link.bandwidth"]
            for values, value in ((profiles, profile), (methods, method), (bandwidths, bandwidth)):
                if value not in values:
                    values.append(value)
            run = folder + "/runs/" + row["id"]
            times[profile, method, bandwidth][int(row["seed"])] = (
                time_to(run, column, target) if row["status"] == "ok" else None)
    if baseline not in methods:
        sys.exit(f"speedup.py: no point '{baseline}' in {folder}/index.csv")
    bandwidths.sort(key=bits_per_second)
    relation = "≥" if column == "test_accuracy" else "≤"
    print(f"Speed-up over {baseline} in simulated time to {column} {relation} {target:g}: its time / the "
          "method's, per seed, mean [min, max] over seeds.")
    for profile in profiles:
        print()
        print(f"| `{profile}` | " + " | ".join(bandwidths) + " |")
        print("|---|" + "---|" * len(bandwidths))
        for method in methods:
            cells = []
            for bandwidth in bandwidths:
                base, mine = times[profile, baseline, bandwidth], times[profile, method, bandwidth]
                if any(t is None for t in base.values()):
                    sys.exit(f"speedup.py: {baseline} does not reach {column} {target:g} on every seed "
                             f"({profile}, {bandwidth})")
                ratios = [base[seed] / mine[seed] for seed in sorted(mine) if mine[seed] is not None]
                if not ratios:
                    cells.append("not reached")
                    continue
                cell = "{:.2f} [{:.2f}, {:.2f}]".format(sum(ratios) / len(ratios), min(ratios), max(ratios))
                if len(ratios) < len(mine):
                    cell += f" ({len(ratios)}/{len(mine)} reached)"
                cells.append(cell)
            print(f"| {method} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
