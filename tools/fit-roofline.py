#!/usr/bin/env python3
"""Fits each bundled accelerator profile's efficiency to NVIDIA's published ResNet-50 v1.5 training throughput.

    python3 tools/fit-roofline.py build/sgdsim [--write]

For each profile, `sgdsim estimate --json` of scenarios/resnet50-synthetic.json gives the layers of the model
(the gradient price's subject) and the step's other parts; the efficiency is the one at which the step (the
roofline of the layers, algorithms/protocols/roofline.cpp, plus the rest) takes 256 / published seconds,
found by bisection. --write puts it, to four significant digits, into profiles/NAME.json.
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "resnet50-synthetic.json"
# Images per second, NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/README.md.
PUBLISHED = {"v100-fp32": 367, "v100-amp": 1200, "a100-tf32": 938, "a100-amp": 2470}
PREFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "u": 1e-6, "m": 1e-3, "n": 1e-9}


def quantity(value, unit):
    """A profile's value: a plain number, or SimGrid's text ("15.7Tf", "900GBps", "5us")."""
    if isinstance(value, (int, float)):
        return float(value)
    match = re.fullmatch(r"([0-9.eE+-]+)([kMGTPumn]?)" + unit, value)
    if not match:
        sys.exit(f"cannot read {value!r} as {unit}")
    return float(match.group(1)) * PREFIX[match.group(2)]


def roofline(layers, batch, efficiency, device):
    seconds = 0.0
    for flops, values, weight_values, kernels in layers:
        math = batch * flops / (efficiency * device["peak"])
        memory = (batch * values + weight_values) * device["bytes_per_value"] / device["memory_bandwidth"]
        seconds += max(math, memory) + kernels * device["launch"]
    return seconds


def fit(binary, name):
    out = subprocess.run([binary, "estimate", str(SCENARIO), "--json", "--set", f"compute.profile={name}"],
                         check=True, capture_output=True, text=True).stdout
    estimate = json.loads(out)
    subject = estimate["sources"]["gradient"][0]["for"]
    layers, batch = subject["layers"], subject["batch_size"]
    step = estimate["per_step"]
    rest = step["total_s"] - step["gradient_s"]
    figures = json.loads((ROOT / "profiles" / f"{name}.json").read_text())["accelerator"]
    device = {"peak": quantity(figures["peak"]["value"], "f"),
              "memory_bandwidth": quantity(figures["memory_bandwidth"]["value"], "Bps"),
              "launch": quantity(figures["launch_overhead"]["value"], "s"),
              "bytes_per_value": float(figures["bytes_per_value"]["value"])}
    target = batch / PUBLISHED[name]
    low, high = 1e-3, 1.0
    if roofline(layers, batch, high, device) + rest > target:
        sys.exit(f"{name}: even efficiency 1 is slower than the published {PUBLISHED[name]} img/s")
    for _ in range(100):
        middle = (low + high) / 2
        if roofline(layers, batch, middle, device) + rest > target:
            low = middle
        else:
            high = middle
    efficiency = float(f"{high:.4g}")
    predicted = batch / (roofline(layers, batch, efficiency, device) + rest)
    compute_bound = sum(1 for f, v, w, k in layers
                        if batch * f / (efficiency * device["peak"]) >=
                        (batch * v + w) * device["bytes_per_value"] / device["memory_bandwidth"])
    print(f"{name}: efficiency {efficiency} -> {predicted:.1f} img/s (published {PUBLISHED[name]}); "
          f"{compute_bound} of {len(layers)} layers compute-bound; rest of the step {rest * 1e3:.3f} ms")
    return efficiency


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, write = sys.argv[1], "--write" in sys.argv[2:]
    for name in PUBLISHED:
        efficiency = fit(binary, name)
        if write:
            path = ROOT / "profiles" / f"{name}.json"
            profile = json.loads(path.read_text())
            profile["accelerator"]["efficiency"]["value"] = efficiency
            path.write_text(json.dumps(profile, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
