#!/usr/bin/env python3
"""Times two whole commands in turn (A B A B ...) and prints the median of the pair-by-pair ratios A/B.

On a shared machine speed drifts by more than most optimisations are worth; runs of A and B next to each
other see the same drift, so their ratio holds where absolute times do not. Warm-up pairs are not counted.

    python3 bench/interleave.py -n 5 \\
        --a 'build/sgdsim run bench/scenarios/choco-convex.json -o /tmp/a --force -q' \\
        --b 'before/sgdsim run bench/scenarios/choco-convex.json -o /tmp/b --force -q'

Each command is split as a shell splits words (no shell runs it); its output is discarded. Figures per
process: wall seconds, CPU seconds (user + system) and peak resident memory (MiB). Exit status 2 for bad
arguments or a command that cannot be started, 1 when a command fails (it is not timed further).
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(command):
    start = time.monotonic()
    try:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as error:
        print(f"interleave: cannot start {shlex.join(command)}: {error.strerror}", file=sys.stderr)
        sys.exit(2)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"interleave: {shlex.join(command)} exited with {code}", file=sys.stderr)
        sys.exit(1)
    return {"wall s": wall, "cpu s": usage.ru_utime + usage.ru_stime, "peak MiB": usage.ru_maxrss / 1024}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=5, help="counted pairs (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="uncounted pairs first (default 1)")
    parser.add_argument("--a", required=True, help="command A")
    parser.add_argument("--b", required=True, help="command B")
    args = parser.parse_args()
    if args.n < 1 or args.warmup < 0:
        parser.error("-n must be at least 1 and --warmup at least 0")
    try:
        a, b = shlex.split(args.a), shlex.split(args.b)
    except ValueError as error:
        parser.error(f"cannot split a command: {error}")
    if not a or not b:
        parser.error("--a and --b must not be empty")
    for _ in range(args.warmup):
        run(a)
        run(b)
    runs = {"A": [], "B": []}
    for _ in range(args.n):
        runs["A"].append(run(a))
        runs["B"].append(run(b))
    for name, figures in runs.items():
        for key in figures[0]:
            values = [f[key] for f in figures]
            print(f"{name} {key:9} median {statistics.median(values):10.3f}  min {min(values):10.3f}  "
                  f"max {max(values):10.3f}")
    for key in ("wall s", "cpu s", "peak MiB"):
        ratios = [x[key] / y[key] for x, y in zip(runs["A"], runs["B"])]
        print(f"A/B {key:9} median {statistics.median(ratios):10.3f}  min {min(ratios):10.3f}  "
              f"max {max(ratios):10.3f}")


if __name__ == "__main__":
    main()
