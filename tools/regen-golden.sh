#!/usr/bin/env bash
# Rewrites the golden traces (tests/golden/<name>/trace.csv and summary.json) from the current code, after
# checking that each scenario gives the same outputs in two processes. Run it only when a change of results is
# intended, then review `git diff tests/golden` and commit the files with the change. See docs/testing.md.
# Uses the build in build/ (or $SGDSIM_BUILD_DIR), configuring it first if needed; extra arguments go to CMake's
# configure step as in tools/build.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SGDSIM_BUILD_DIR:-$root/build}
if [ ! -f "$build/CMakeCache.txt" ] || [ $# -gt 0 ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${SGDSIM_BUILD_TYPE:-Release} "$@" >/dev/null
fi
cmake --build "$build" --target test_golden -j "$(nproc)"
SGDSIM_REGEN_GOLDEN=1 "$build/tests/test_golden" "golden trace: *"
git -C "$root" status --short -- tests/golden || true
