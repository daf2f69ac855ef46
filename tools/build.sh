#!/usr/bin/env bash
# Installs what is missing, then configures and builds sgdsim into build/ (or $SGDSIM_BUILD_DIR).
# Extra arguments go to CMake's configure step, e.g. -DSGDSIM_SANITIZE=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/tools/setup.sh"
build=${SGDSIM_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${SGDSIM_BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
