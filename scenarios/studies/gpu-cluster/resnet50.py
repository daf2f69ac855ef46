#!/usr/bin/env python3
"""ResNet-50's simulated time per iteration, by method, network, accelerator profile and NIC bandwidth.

    resnet50.py run   OUT_DIR [GBPS ...]     one `sgdsim estimate` per configuration: OUT_DIR/NAME.estimate
    resnet50.py table OUT_DIR NET PROFILE > table.md

`run` simulates the first STEPS steps (below) of base-resnet50.json under every configuration that has no
file in OUT_DIR yet (resumable; GBPS: only those bandwidths, e.g. for a second process), one at a time: each
holds 8 ResNet-50 replicas in memory (6 GB). The simulator is $SGDSIM. A file (JSON) keeps the estimate's
figures (not its price sources) and the --set list that made it. `table` prints, for one network and profile,
each method's speed-up over the network's baseline (its time per step / the method's; above 1: faster) and its
time per step, per bandwidth whose baseline was estimated, and a first row with the bound no compression can beat:
the baseline's time over its computation alone (gradient and update). The estimates are deterministic: there
are no seeds to range over.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 2
BANDWIDTHS = [10, 100, 25, 400]  # Gbps of each device's NIC, in the order they are run
SPARSE = {"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.05}, {"kind": "sign"}]}
CODE4 = {"table": "code", "bits": 4, "bucket": 8192, "bucketing": "per_tensor"}
# A network: its topology, its devices, the profiles it is priced under, and its baseline. Only 8 devices on a
# switch and the A100 fit this study's budget: an estimate holds every replica (6.0 GB of peak memory and 16
# CPU-seconds measured for 8 devices).
NETWORKS = {
    "switch8": ({"kind": "switch", "nodes": 8}, 8, ["a100-amp"], "fp16-ring"),
}


def methods(network):
    """label -> --set overrides, in table order (the LeNet-5 sweep's three methods first)."""
    ring = {"kind": "ring", "nodes": NETWORKS[network][1]}
    table = {
        "fp16-ring": {"algorithm.collective": {"kind": "ring_allreduce"}, "algorithm.compressor": {"kind": "fp16"}},
        "qsgd4-allgather": {"algorithm.compressor": dict(kind="qsgd", **CODE4)},
        "topk1-ef-allgather": {"algorithm.compressor": {"kind": "topk", "fraction": 0.01},
                               "algorithm.memory": "error_feedback"},
        "powersgd-r4": {"algorithm.kind": "powersgd", "algorithm.rank": 4},
        "thc4": {"algorithm.collective": {"kind": "thc", "bits": 4, "error_feedback": True}},
        "dpsgd-ring": {"algorithm.kind": "dpsgd", "algorithm.graph": ring},
        "choco-ring": {"algorithm.kind": "choco", "algorithm.graph": ring, "algorithm.consensus_step": 0.2,
                       "algorithm.compressor": SPARSE},
    }
    return table


def configurations(bandwidths):
    for network, (topology, _, profiles, _) in NETWORKS.items():
        for profile in profiles:
            for gbps in bandwidths:
                for label, sets in methods(network).items():
                    overrides = {"network.topology": topology, "network.link.bandwidth": f"{gbps}Gbps",
                                 "compute.profile": profile, **sets}
                    yield f"{network}-{profile}-{gbps}Gbps-{label}", overrides


def run(out, bandwidths):
    sgdsim = os.environ.get("SGDSIM", os.path.join(HERE, "..", "..", "..", "build", "sgdsim"))
    os.makedirs(out, exist_ok=True)
    for name, overrides in configurations(bandwidths):
        path = os.path.join(out, name + ".estimate")
        if os.path.exists(path):
            continue
        sets = [f"{key}={json.dumps(value) if not isinstance(value, str) else value}"
                for key, value in overrides.items()]
        command = [sgdsim, "estimate", os.path.join(HERE, "base-resnet50.json"), "--json", "--steps", str(STEPS)]
        for s in sets:
            command += ["--set", s]
        print(f"resnet50.py: {name}", file=sys.stderr)
        figures = json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout)
        figures.pop("sources", None)
        figures["set"] = sets
        with open(path + ".tmp", "w") as file:
            json.dump(figures, file, indent=1, sort_keys=True)
            file.write("\n")
        os.replace(path + ".tmp", path)


def table(out, network, profile):
    if network not in NETWORKS or profile not in NETWORKS[network][2]:
        sys.exit(f"resnet50.py: no configurations for network '{network}' and profile '{profile}'")
    baseline, labels = NETWORKS[network][3], list(methods(network))

    def path(label, gbps):
        return os.path.join(out, f"{network}-{profile}-{gbps}Gbps-{label}.estimate")

    def step(label, gbps):
        with open(path(label, gbps)) as file:
            return json.load(file)["per_step"]

    # A bandwidth is shown when its baseline was estimated; a method not estimated there says so.
    shown = [g for g in sorted(BANDWIDTHS) if os.path.exists(path(baseline, g))]
    if not shown:
        sys.exit(f"resnet50.py: no baseline estimate of {network}, {profile} in {out} (resnet50.py run {out})")
    print(f"Speed-up over {baseline} (its time per step / the method's) and time per step, ResNet-50 at 256 "
          f"images per device, {NETWORKS[network][1]} devices, `{profile}`:")
    print()
    print("| method | " + " | ".join(f"{g} Gbps" for g in shown) + " |")
    print("|---|" + "---|" * len(shown))
    cells = []
    for gbps in shown:
        base = step(baseline, gbps)
        alone = base["gradient_s"] + base["update_s"]
        cells.append("{:.2f} ({:.1f} ms)".format(base["total_s"] / alone, 1e3 * alone))
    print("| bound: computation alone | " + " | ".join(cells) + " |")
    for label in labels:
        cells = []
        for gbps in shown:
            if not os.path.exists(path(label, gbps)):
                cells.append("not estimated")
                continue
            base, mine = step(baseline, gbps)["total_s"], step(label, gbps)["total_s"]
            cells.append("{:.2f} ({:.1f} ms)".format(base / mine, 1e3 * mine))
        print(f"| {label} | " + " | ".join(cells) + " |")
    missing = [g for g in sorted(BANDWIDTHS) if g not in shown]
    if missing:
        print()
        print("Not estimated: " + ", ".join(f"{g} Gbps" for g in missing) + ".")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2], [int(g) for g in sys.argv[3:]] or BANDWIDTHS)
    elif len(sys.argv) == 5 and sys.argv[1] == "table":
        table(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
