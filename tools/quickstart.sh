#!/usr/bin/env bash
# README command (1): set-up, build, and the bundled quickstart study — a 16-node ring learning Fashion-MNIST
# with D-PSGD, CHOCO-SGD, SPARQ-SGD and NUQSGD data-parallel SGD — ending in a bits-vs-loss plot.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Only the program (and the libtorch plugin it loads): the tests and benchmarks are tools/test.sh's business.
SGDSIM_TARGETS=sgdsim bash "$root/tools/build.sh"
build=${SGDSIM_BUILD_DIR:-$root/build}
out=${1:-$root/results/quickstart}
"$build/sgdsim" sweep "$root/scenarios/quickstart.sweep.json" -o "$out" -j "$(nproc)"
"$build/sgdsim" plot "$out" --x bits --y loss -o "$out/bits_vs_loss.png"
"$build/sgdsim" plot "$out" --x time --y loss -o "$out/time_vs_loss.png"
echo "quickstart: index $out/index.csv; figures $out/bits_vs_loss.png and $out/time_vs_loss.png"
