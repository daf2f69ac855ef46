#!/usr/bin/env python3
"""The tables of docs/validation.md from a campaign's cells.csv (tools/validation-campaign.sh): per cell and
network model the median and p90 relative error of the communication time per step, and the CPU the
emulation took. Usage: tools/validation-table.py OUT/cells.csv [--cpu-bound SHARE]
A cell whose emulating process used more than SHARE of the host's cores (default 0.4: most of one of two
cores) is marked CPU-bound and left out of the summary by message size."""
import csv
import statistics
import sys

path = sys.argv[1]
limit = float(sys.argv[sys.argv.index("--cpu-bound") + 1]) if "--cpu-bound" in sys.argv else 0.4
rows = list(csv.DictReader(open(path)))
print("| cell | model | message | median | p90 | signed median | CPU share (process / host) |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    size = int(r["message_bytes"])
    size_text = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"
    bound = " (CPU-bound)" if float(r["process_share"]) > limit else ""
    print(f'| {r["cell"]}{bound} | {r["model"]} | {size_text} | {float(r["median_relative_error"]):.1%} | '
          f'{float(r["p90_relative_error"]):.1%} | {float(r["median_signed_relative_error"]):+.1%} | '
          f'{float(r["process_share"]):.2f} / {float(r["machine_busy_share"]):.2f} |')
print()
print("| model | messages | cells | median of cell medians | worst cell median |")
print("|---|---|---|---|---|")
for model in sorted({r["model"] for r in rows}):
    for label, low, high in (("< 64 kB", 0, 64e3), ("≥ 64 kB", 64e3, 1e18)):
        kept = [float(r["median_relative_error"]) for r in rows
                if r["model"] == model and low <= int(r["message_bytes"]) < high
                and float(r["process_share"]) <= limit]
        if kept:
            print(f"| {model} | {label} | {len(kept)} | {statistics.median(kept):.1%} | {max(kept):.1%} |")
# The goal of docs/validation.md is stated per topology (messages of 64 kB and more, every rate); the
# algorithms differ in how many flows meet at a node; the host's CPU weighs more at higher rates.
# A cell's name is algorithm-topology-size-rate.
def rate_bps(text):
    return float(text[:-4]) * {"M": 1e6, "G": 1e9}[text[-4]]


groupings = (
    ("topology", lambda parts: parts[1], str),
    ("algorithm", lambda parts: parts[0], str),
    ("rate", lambda parts: parts[3], rate_bps),
    ("topology at rate", lambda parts: f"{parts[1]} {parts[3]}", lambda g: (g.split()[0], rate_bps(g.split()[1]))),
)
for title, group_of, order in groupings:
    print()
    print(f"| {title} | model | cells (≥ 64 kB, not CPU-bound) | median of cell medians | worst cell median |")
    print("|---|---|---|---|---|")
    for group in sorted({group_of(r["cell"].split("-")) for r in rows}, key=order):
        for model in sorted({r["model"] for r in rows}):
            kept = [float(r["median_relative_error"]) for r in rows
                    if r["model"] == model and group_of(r["cell"].split("-")) == group
                    and int(r["message_bytes"]) >= 64e3 and float(r["process_share"]) <= limit]
            if kept:
                print(f"| {group} | {model} | {len(kept)} | {statistics.median(kept):.1%} | {max(kept):.1%} |")
