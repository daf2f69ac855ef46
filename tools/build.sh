#!/usr/bin/env bash
# Installs what is missing, then configures and builds sgdsim into build/ (or $SGDSIM_BUILD_DIR).
# Extra arguments go to CMake's configure step, e.g. -DSGDSIM_SANITIZE=ON. SGDSIM_TARGETS (space-separated)
# builds only those targets, e.g. SGDSIM_TARGETS=sgdsim (the program and the libtorch plugin it loads).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/tools/setup.sh"
build=${SGDSIM_BUILD_DIR:-$root/build}
# A unity build (CMakeLists.txt, SGDSIM_UNITY): from scratch, it compiles in far less CPU time.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${SGDSIM_BUILD_TYPE:-Release} -DSGDSIM_UNITY=ON "$@" >/dev/null
targets=()
for target in ${SGDSIM_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$build" -j "$(nproc)" "${targets[@]}"
