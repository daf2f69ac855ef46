#!/usr/bin/env python3
"""ResNet-50's simulated time per iteration, by method, network, accelerator profile and NIC bandwidth.

    resnet50.py run   OUT_DIR [GBPS ...]     one `sgdsim estimate` per configuration: OUT_DIR/NAME.estimate
    resnet50.py table OUT_DIR NET PROFILE > table.md

`run` simulates the first STEPS steps (below) of base-resnet50.json under every configuration that has no
file in OUT_DIR yet (resumable; GBPS: only those bandwidths, e.g. for a second process), one at a time, in
the order of NETWORKS: each holds every ResNet-50 replica in memory (6.0 GB for 8 devices, 11.9 GB for 16).
An estimate that takes longer than $RESNET50_TIMEOUT seconds of wall time (default 900) is stopped and left
out (the table says "not estimated"). The simulator is $SGDSIM. A file (JSON) keeps the estimate's figures
(not its price sources) and the --set list that made it. `table` prints, for one network and profile, each
method's speed-up over the network's baseline (its time per step / the method's; above 1: faster) and its time
per step, per bandwidth whose baseline was estimated, and a first row with the bound no compression can beat:
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
NVLINK = {"bandwidth": "300GBps", "latency": "1us"}  # an A100's NVLink3 to the NVSwitch, each way
# A network: its topology, its devices, the devices behind one NIC link, the profiles it is priced under, its
# baseline and the methods estimated on it (None: all). The bandwidth of the grid is each device's NIC: a host
# of G devices gets one link of G times it (docs/network.md, `cluster`). 16 devices are four 4-device hosts on
# a two-level fat tree (two hosts per leaf, full bisection); 32 would need 24 GB, this machine's whole memory.
NETWORKS = {
    "switch8": ({"kind": "switch", "nodes": 8}, 8, 1, ["a100-amp", "v100-amp"], "fp16-ring", None),
    "cluster16": ({"kind": "cluster", "hosts": 4, "gpus_per_host": 4, "intra_link": NVLINK,
                   "fat_tree": {"down": [2, 2], "up": [1, 2]}}, 16, 4, ["a100-amp"], "fp16-hierarchical",
                  ["fp16-hierarchical", "fp16-ring", "qsgd4-allgather", "topk1-ef-allgather", "powersgd-r4"]),
}


def methods(network):
    """label -> --set overrides, in table order (the baselines and the LeNet-5 sweep's three methods first)."""
    ring = {"kind": "ring", "nodes": NETWORKS[network][1]}
    table = {
        "fp16-hierarchical": {"algorithm.collective": {"kind": "hierarchical_allreduce"},
                              "algorithm.compressor": {"kind": "fp16"}},
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
    chosen = NETWORKS[network][5]
    return {label: sets for label, sets in table.items() if label in chosen} if chosen else \
        {label: sets for label, sets in table.items() if label != "fp16-hierarchical"}


def configurations(bandwidths):
    for network, (topology, _, per_link, profiles, _, _) in NETWORKS.items():
        for profile in profiles:
            for gbps in bandwidths:
                for label, sets in methods(network).items():
                    overrides = {"network.topology": topology, "network.link.bandwidth": f"{gbps * per_link}Gbps",
                                 "compute.profile": profile, **sets}
                    yield f"{network}-{profile}-{gbps}Gbps-{label}", overrides


def run(out, bandwidths):
    sgdsim = os.environ.get("SGDSIM", os.path.join(HERE, "..", "..", "..", "build", "sgdsim"))
    timeout = float(os.environ.get("RESNET50_TIMEOUT", "900"))
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
        try:
            done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"resnet50.py: {name}: stopped after {timeout} s of wall time, not estimated", file=sys.stderr)
            continue
        figures = json.loads(done.stdout)
        figures.pop("sources", None)
        figures["set"] = sets
        with open(path + ".tmp", "w") as file:
            json.dump(figures, file, indent=1, sort_keys=True)
            file.write("\n")
        os.replace(path + ".tmp", path)


def table(out, network, profile):
    if network not in NETWORKS or profile not in NETWORKS[network][3]:
        sys.exit(f"resnet50.py: no configurations for network '{network}' and profile '{profile}'")
    baseline, labels = NETWORKS[network][4], list(methods(network))

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
          f"images per device, {NETWORKS[network][1]} devices, `{profile}`, by each device's NIC bandwidth:")
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
