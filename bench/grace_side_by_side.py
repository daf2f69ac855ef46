#!/usr/bin/env python3
"""sgdsim's compressors side by side with GRACE's PyTorch ones, on one vector.

Usage: grace_side_by_side.py GRACE_CHECKOUT [--sgdsim build/sgdsim] [--bench build/bench/bench_compression]
                             [--work DIR] [--reps R] [--only NAME,...]

GRACE (github.com/sands-lab/grace) is not part of sgdsim: check it out anywhere and pass its path; this script
imports its `grace_dl.dist.compressor` modules from there and changes nothing in them.

One float32 N(0, 1) vector of d = 2^20 (torch generator, seed 1) is written to WORK/v.f32 and given to both.
Per compressor, for GRACE (torch.set_num_threads(1)): the median CPU time of compress + decompress over R calls,
the bits its compressed tensors would put on the wire (sum of numel x element bits of what `compress` returns
and the communicator sends), and the mean relative squared error |Q(v) - v|^2 / |v|^2 over the R calls.
For sgdsim: `sgdsim compress --json --repeat R` gives bits and the same error; its CPU time per call is the
difference between a run with R calls and one with 1 call, divided by R - 1 (so process start and file reading
cancel out), median of 3 such pairs; and where bench_compression times the same configuration (its own d = 2^20
Gaussian vector), its median encode + decode CPU time, without the error computation and allocations of
`sgdsim compress`. Everything runs single-threaded; throughput = d / time per compress + decompress.
Stateful kinds (signum, powersgd) carry their state over the R calls on both sides.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

D = 1 << 20
SEED = 1


def wire_bits(tensors):
    """Bits of a list of tensors as sent: numel x element bits (a 0-d tensor counts one element)."""
    return sum(t.numel() * t.element_size() * 8 for t in tensors)


def flat_tensors(obj):
    import torch
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in flat_tensors(o)]
    return []


# Each case: name, GRACE constructor (module, class, kwargs), how to reshape v for GRACE, what GRACE sends
# (a function of (compressed tensors, ctx) -> list of tensors on the wire), sgdsim compressor objects
# (label -> JSON), the mapping note.
def cases():
    sent = lambda tensors, ctx: flat_tensors(tensors)
    return [
        ("qsgd", "qsgd", "QSGDCompressor", {"quantum_num": 16, "bucket_size": 128}, None, sent,
         [("elias", {"kind": "qsgd", "levels": 16, "bucket": 128}),
          ("fixed", {"kind": "qsgd", "levels": 16, "bucket": 128, "coding": "fixed"}),
          ("zstd", {"kind": "qsgd", "levels": 16, "bucket": 128, "coding": "zstd"})],
         "quantum_num 16 = levels 16; bucket_size 128 = bucket 128"),
        ("terngrad", "terngrad", "TernGradCompressor", {}, None, sent,
         [("", {"kind": "terngrad", "bucket": 0})],
         "one scale per tensor = bucket 0; GRACE first clips at 2.5 standard deviations, sgdsim does not"),
        ("onebit", "onebit", "OneBitCompressor", {}, None, sent,
         [("", {"kind": "onebit", "bucket": 0})], "one pair of means per tensor = bucket 0"),
        ("signsgd", "signsgd", "SignSGDCompressor", {}, None, sent,
         [("", {"kind": "signsgd"})], "same operator (0 -> +1)"),
        ("signum", "signum", "SignumCompressor", {"momentum": 0.9}, None, sent,
         [("", {"kind": "signum", "momentum": 0.9})], "momentum 0.9 both; state carried over the R calls"),
        ("efsignsgd", "efsignsgd", "EFSignSGDCompressor", {"lr": 0.1}, None, sent,
         [("", {"kind": "sign", "bucket": 0})],
         "(mean |x|) sign(x); the error feedback is GRACE's memory / sgdsim's protocol memory, not timed"),
        ("natural", "natural", "NaturalCompressor", {}, None, sent,
         [("", {"kind": "natural"})], "exponent_bits 8 (GRACE: 8-bit sign+exponent codes)"),
        ("topk", "topk", "TopKCompressor", {"compress_ratio": 0.01}, None, sent,
         [("", {"kind": "topk", "fraction": 0.01})],
         "compress_ratio 0.01 = fraction 0.01 (GRACE k = floor(0.01 d) = 10485, sgdsim round = 10486)"),
        ("randk", "randomk", "RandomKCompressor", {"compress_ratio": 0.01}, None, sent,
         [("", {"kind": "randk", "fraction": 0.01})],
         "fraction 0.01; GRACE draws indices with replacement from a seed both sides know and sends values "
         "only; sgdsim draws k distinct indices and sends them (Elias gaps)"),
        ("threshold", "threshold", "ThresholdCompressor", {"threshold": 0.5}, None, sent,
         [("", {"kind": "threshold", "threshold": 0.5})],
         "threshold 0.5 (GRACE keeps |x| >= 0.5, sgdsim |x| > 0.5: the same set unless a value is exactly 0.5)"),
        ("dgc", "dgc", "DgcCompressor", {"compress_ratio": 0.01}, None, sent,
         [("", {"kind": "dgc", "fraction": 0.01, "sample": 0.01})],
         "compress_ratio 0.01 = fraction 0.01, GRACE's 1 % sample = sample 0.01; GRACE rescales the threshold "
         "(x1.3 / x0.7, up to 10 times) until 0.7k..1.3k pass, sgdsim takes the exact top-k of those that pass "
         "when more than 1.3k do; no momentum on either side (a memory)"),
        ("powersgd", "powersgd", "PowerSGDCompressor", {"rank": 4, "use_memory": True, "world_size": 1},
         (1024, 1024), lambda tensors, ctx: flat_tensors(ctx[:2]),
         [("", {"kind": "powersgd", "rank": 4, "rows": 1024})],
         "rank 4 on v as a 1024 x 1024 matrix (rows 1024), warm-started Q over the R calls on both sides; GRACE "
         "all-reduces P and Q (one process, gloo), its wire is P and Q"),
    ]


# The registered example or bench_compression case of the same configuration (d = 2^20 Gaussian there too).
BENCH = {
    "terngrad": "kind/terngrad-0", "onebit": "kind/onebit-0", "signsgd": "kind/signsgd-0",
    "signum": "kind/signum-0", "efsignsgd": "sign", "natural": "kind/natural-0", "topk": "topk_1pct",
    "randk": "randk_1pct", "threshold": "kind/threshold-0", "dgc": "kind/dgc-0", "powersgd": "kind/powersgd-1",
}


def run_bench(bench, names):
    """Median encode and decode items_per_second (CPU time) of bench_compression; returns name -> seconds
    per compress + decompress of d coordinates."""
    alt = "|".join(names)  # plain names: the benchmark's regex engine refuses escapes such as "\\-"
    cmd = [bench, f"--benchmark_filter=^(encode|decode)/({alt})$", "--benchmark_repetitions=3",
           "--benchmark_report_aggregates_only=true", "--benchmark_min_time=0.2", "--benchmark_format=json"]
    result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    rate = {}
    for b in result["benchmarks"]:
        if b.get("aggregate_name") == "median":
            rate[b["run_name"]] = b["items_per_second"]
    return {n: D / rate[f"encode/{n}"] + D / rate[f"decode/{n}"] for n in names
            if f"encode/{n}" in rate and f"decode/{n}" in rate}


def run_grace(grace_path, case, v, reps):
    import importlib
    import torch
    name, module, cls, kwargs, shape, on_wire = case[:6]
    if grace_path not in sys.path:
        sys.path.insert(0, grace_path)
    mod = importlib.import_module("grace_dl.dist.compressor." + module)
    comp = getattr(mod, cls)(**kwargs)
    x = v.view(*shape) if shape else v
    vv = float(torch.sum(v.double() ** 2))
    times, errors, bits = [], [], None
    torch.manual_seed(SEED)
    for _ in range(reps):
        t0 = time.process_time()
        tensors, ctx = comp.compress(x, "v")
        out = comp.decompress(tensors, ctx)
        times.append(time.process_time() - t0)
        errors.append(float(torch.sum((out.flatten().double() - v.double()) ** 2)) / vv)
        if bits is None:
            bits = wire_bits(on_wire(tensors, ctx))
    return statistics.median(times), bits, statistics.mean(errors)


def child_cpu(cmd):
    """Run cmd, return (stdout, user + system CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_sgdsim(sgdsim, vec_file, obj, reps):
    base = [sgdsim, "compress", "--compressor", json.dumps(obj), "--input", vec_file, "--json", "--seed", str(SEED)]
    per_call, report = [], None
    for _ in range(3):
        out, t_r = child_cpu(base + ["--repeat", str(reps)])
        _, t_1 = child_cpu(base + ["--repeat", "1"])
        report = json.loads(out)
        per_call.append(max(t_r - t_1, 1e-9) / (reps - 1))
    return statistics.median(per_call), report["bits"], report["relative_squared_error"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("grace", help="path of a GRACE checkout (the directory holding grace_dl/)")
    ap.add_argument("--sgdsim", default="build/sgdsim")
    ap.add_argument("--work", default=None, help="directory for v.f32 (default: a temporary one)")
    ap.add_argument("--bench", default="build/bench/bench_compression",
                    help="bench_compression binary ('' to skip it)")
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--only", default="", help="comma-separated compressor names")
    args = ap.parse_args()

    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    work = args.work or tempfile.mkdtemp(prefix="grace-sbs-")
    os.makedirs(work, exist_ok=True)
    gen = torch.Generator().manual_seed(SEED)
    v = torch.randn(D, generator=gen, dtype=torch.float32)
    vec_file = os.path.join(work, "v.f32")
    v.numpy().astype("<f4").tofile(vec_file)
    # GRACE's PowerSGD all-reduces P and Q: a one-process group makes that the identity.
    dist.init_process_group("gloo", init_method="file://" + os.path.join(work, "pg"), rank=0, world_size=1)

    only = set(filter(None, args.only.split(",")))
    rows, notes, skipped = [], [], []
    for case in cases():
        name = case[0]
        if only and name not in only:
            continue
        try:
            g_t, g_bits, g_err = run_grace(args.grace, case, v, args.reps)
        except Exception as e:  # report and go on: some GRACE compressors need CUDA-only packages
            skipped.append(f"{name}: GRACE {type(e).__name__}: {e}")
            g_t = g_bits = g_err = None
        notes.append(f"* {name}: {case[7]}")
        for label, obj in case[6]:
            s_t, s_bits, s_err = run_sgdsim(args.sgdsim, vec_file, obj, args.reps)
            bench = BENCH.get(name) if len(case[6]) == 1 else None
            rows.append((name + (f" ({label})" if label else ""), g_t, g_bits, g_err, s_t, s_bits, s_err, bench))
    bench_t = run_bench(args.bench, sorted({r[7] for r in rows if r[7]})) if args.bench else {}

    fmt = lambda x, f: "—" if x is None else f.format(x)
    print(f"d = {D}, N(0, 1) float32, seed {SEED}, {args.reps} calls each; throughput = compress + decompress, "
          "millions of coordinates per second of CPU time, one thread\n")
    print("| compressor | GRACE Mcoord/s | sgdsim compress Mcoord/s | ratio | bench_compression Mcoord/s | ratio "
          "| GRACE bits/coord | sgdsim bits/coord | GRACE rel. sq. error | sgdsim rel. sq. error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, g_t, g_bits, g_err, s_t, s_bits, s_err, bench in rows:
        g_tp = None if g_t is None else D / g_t / 1e6
        s_tp = D / s_t / 1e6
        b_tp = D / bench_t[bench] / 1e6 if bench in bench_t else None
        ratio = None if g_tp is None else s_tp / g_tp
        b_ratio = None if g_tp is None or b_tp is None else b_tp / g_tp
        print(f"| {name} | {fmt(g_tp, '{:.1f}')} | {s_tp:.1f} | {fmt(ratio, '{:.1f}')} | "
              f"{fmt(b_tp, '{:.0f}')}{' (' + bench + ')' if b_tp else ''} | {fmt(b_ratio, '{:.1f}')} | "
              f"{fmt(None if g_bits is None else g_bits / D, '{:.3f}')} | {s_bits / D:.3f} | "
              f"{fmt(g_err, '{:.4f}')} | {s_err:.4f} |")
    print("\nSettings:\n" + "\n".join(notes))
    if skipped:
        print("\nGRACE skipped:\n" + "\n".join("* " + s for s in skipped))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
