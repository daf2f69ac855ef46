#!/usr/bin/env bash
# Builds every libFuzzer target (clang, ASan + UBSan) and runs each for SECONDS seconds, one after the other:
#   tools/fuzz.sh 600              # all targets, 10 minutes each
#   tools/fuzz.sh 60 'npy|idx'     # only the targets whose name matches the regex
# Each target starts from its seed inputs (tests/fuzz/corpus/<name>/) and keeps its growing corpus, its findings
# (crash-*, oom-*, timeout-*) and its log under $SGDSIM_FUZZ_WORK_DIR (default build-fuzz/fuzz-runs/<name>/).
# Runs use libFuzzer's fork mode and go on after a finding, so one run reports every distinct problem it meets.
# The last lines are a table: target, seconds, executions, findings. Exit status 1 when anything was found.
set -euo pipefail
seconds=${1:?usage: tools/fuzz.sh SECONDS [TARGET-REGEX]}
pattern=${2:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SGDSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
work=${SGDSIM_FUZZ_WORK_DIR:-$build/fuzz-runs}

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGDSIM_FUZZ=ON \
  -DSGDSIM_TESTS=OFF -DSGDSIM_BENCHMARKS=OFF >/dev/null
cmake --build "$build" --target fuzz_all -j "$(nproc)" >/dev/null

summary=()
found=0
for target in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  name=${target##*/fuzz_}
  [[ $name =~ $pattern ]] || continue
  dir=$work/$name
  mkdir -p "$dir/corpus" "$dir/findings"
  seeds=()
  [ -d "$root/tests/fuzz/corpus/$name" ] && seeds=("$root/tests/fuzz/corpus/$name")
  options=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -fork=1 -ignore_crashes=1 -ignore_ooms=1
           -ignore_timeouts=1 -artifact_prefix="$dir/findings/")
  [ -f "$root/tests/fuzz/$name.dict" ] && options+=(-dict="$root/tests/fuzz/$name.dict")
  echo "fuzz: $name for $seconds s" >&2
  # Relative paths in fuzzed inputs (scenarios, sweeps) resolve inside the work folder, not the source tree.
  (cd "$dir" && "$target" "${options[@]}" corpus "${seeds[@]}" >"$dir/log" 2>&1) || true
  # Fork mode prints "#<executions>: cov: ..." lines; the last one is the total.
  execs=$(grep -o '^#[0-9]*' "$dir/log" | tail -1 | tr -d '#')
  findings=$(find "$dir/findings" -type f | wc -l)
  [ "$findings" -gt 0 ] && found=1
  summary+=("$(printf '%-32s %6s s %12s execs %4s findings' "$name" "$seconds" "${execs:-?}" "$findings")")
done
printf '%s\n' "${summary[@]}"
exit $found
