#!/usr/bin/env bash
# Builds every libFuzzer target (clang, -fsanitize=fuzzer,address,undefined), and the TorchScript loader's
# target (GCC, address and undefined sanitizers, tests/fuzz/mutation_driver.cpp) where libtorch is installed,
# and runs each for SECONDS seconds, one after the other:
#   tools/fuzz.sh 600              # all targets, 10 minutes each
#   tools/fuzz.sh 60 'npy|idx'     # only the targets whose name matches the regex
#   tools/fuzz.sh --cpu 600        # each target until it has used 600 s of CPU time (on a busy machine)
# Each target starts from seed inputs made fresh from the repository (tests/fuzz/corpus/<name>/, the scenarios
# and sweeps under scenarios/ and tests/, the device profiles under profiles/, encodings of every compressor
# example, generated CIFAR-10 records)
# and keeps its growing corpus, its findings (crash-*, oom-*, timeout-*) and its log under $SGDSIM_FUZZ_WORK_DIR
# (default build-fuzz/fuzz-runs/<name>/), so a second run goes on from where the first stopped.
# Runs use libFuzzer's fork mode and go on after a finding, so one run reports every distinct problem it meets.
# The last lines are a table: target, CPU seconds, executions, coverage (edges), features, corpus size,
# findings. Exit status 1 when anything was found. Run it under `nice -n 19` on a shared machine.
set -euo pipefail
cpu_budget=0
if [ "${1:-}" = --cpu ]; then
  cpu_budget=1
  shift
fi
seconds=${1:?usage: tools/fuzz.sh [--cpu] SECONDS [TARGET-REGEX]}
pattern=${2:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SGDSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
work=${SGDSIM_FUZZ_WORK_DIR:-$build/fuzz-runs}
jobs=${SGDSIM_FUZZ_BUILD_JOBS:-$(nproc)}
# The libraries are built with recoverable UBSan checks: make undefined behaviour stop the run, so that it is
# saved as a finding instead of a line in the log.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSGDSIM_FUZZ=ON \
  -DSGDSIM_TESTS=OFF -DSGDSIM_BENCHMARKS=OFF >/dev/null
cmake --build "$build" --target fuzz_all -j "$jobs" >/dev/null
targets=("$build"/tests/fuzz/fuzz_*)
# The TorchScript loader's target needs GCC (clang 14 cannot compile libtorch's headers): it is built in the
# sanitizer build of the test suite ($SGDSIM_FUZZ_GCC_BUILD_DIR, default build-asan/) and brings its own
# driver (tests/fuzz/mutation_driver.cpp), which takes libFuzzer's options.
gcc_build=${SGDSIM_FUZZ_GCC_BUILD_DIR:-$root/build-asan}
if [[ torchscript =~ $pattern ]]; then
  if cmake -S "$root" -B "$gcc_build" -DCMAKE_BUILD_TYPE=Debug -DSGDSIM_UNITY=ON -DSGDSIM_SANITIZE=ON \
       -DSGDSIM_TORCH=ON -DSGDSIM_BENCHMARKS=OFF >/dev/null &&
     cmake --build "$gcc_build" --target fuzz_torchscript -j "$jobs" >/dev/null; then
    targets+=("$gcc_build/tests/fuzz/fuzz_torchscript")
  else
    echo "fuzz: fuzz_torchscript not built (it needs GCC and libtorch-dev)" >&2
  fi
fi

# Seed inputs of target $1 (program $3) into folder $2 (emptied first), from the repository's own files.
make_seeds() {
  local name=$1 seeds=$2 program=$3
  rm -rf "$seeds"
  mkdir -p "$seeds"
  [ -d "$root/tests/fuzz/corpus/$name" ] && cp "$root/tests/fuzz/corpus/$name"/* "$seeds"/
  case $name in
    decode|schedule|torchscript)  # written by the target: a real encoding for every example of every
      # compressor kind; a small schedule as a file and as a body; the tests' scripted modules as files and
      # as records
      SGDSIM_FUZZ_SEEDS=$seeds "$program" 2>/dev/null ;;
    scenario)  # every scenario of the repository, the malformed ones of the tests included
      find "$root/scenarios" "$root/tests/golden" "$root/tests/scenarios" -name '*.json' \
        ! -name '*.sweep.json' ! -name '*.schema.json' ! -path '*/golden/*/*' |
        while read -r file; do cp "$file" "$seeds/$(echo "${file#"$root"/}" | tr / _)"; done ;;
    sweep)  # every sweep file; the base scenarios they name are put where the target looks (fuzz/)
      find "$root/scenarios" -name '*.sweep.json' |
        while read -r file; do cp "$file" "$seeds/$(echo "${file#"$root"/}" | tr / _)"; done
      mkdir -p "$work/sweep/fuzz"
      find "$root/scenarios" -name '*.json' ! -name '*.sweep.json' ! -name '*.schema.json' \
        -exec cp {} "$work/sweep/fuzz/" \; ;;
    profile)  # the bundled device profiles: the CPU one and the accelerators' rooflines
      cp "$root"/profiles/*.json "$seeds"/ ;;
    cifar10)  # one record plain, three gzip-compressed (CIFAR-10 itself is not in the repository)
      python3 - "$seeds" <<'EOF'
import gzip, sys
def records(n):
    return b"".join(bytes([i % 10]) + bytes((i + 7 * j) % 256 for j in range(3072)) for i in range(n))
open(sys.argv[1] + "/one", "wb").write(records(1))
open(sys.argv[1] + "/three.gz", "wb").write(gzip.compress(records(3), mtime=0))
EOF
      ;;
  esac
}

# The figures of the last status line of a libFuzzer log ("#N: cov: C ft: F corp: K/S ..." in fork mode).
field() { grep -o "$1 [0-9]*" <<<"$2" | tail -1 | awk '{print $2}'; }

summary=()
found=0
for target in "${targets[@]}"; do
  [ -x "$target" ] || continue
  name=${target##*/fuzz_}
  [[ $name =~ $pattern ]] || continue
  dir=$work/$name
  mkdir -p "$dir/corpus" "$dir/findings"
  make_seeds "$name" "$dir/seeds" "$target"
  # -timeout is wall-clock time per input. The TorchScript loader reads each archive in a child process first
  # (a fork of the whole ASan-built program): one input takes up to ~20 s on a busy 2-core machine, not a hang.
  timeout=30
  [ "$name" = torchscript ] && timeout=120
  options=(-print_funcs=0 -rss_limit_mb=2048 -timeout="$timeout" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
           -artifact_prefix="$dir/findings/")
  [ -f "$root/tests/fuzz/$name.dict" ] && options+=(-dict="$root/tests/fuzz/$name.dict")
  : >"$dir/log"
  cpu=0
  execs=0
  left=$seconds
  # Without --cpu one round of SECONDS wall-clock seconds; with it, rounds until the CPU time (user + system
  # of the target and its fork-mode children) reaches SECONDS. Each round resumes from the kept corpus.
  while :; do
    echo "fuzz: $name for $left s" >&2
    TIMEFORMAT='%U %S'
    # Relative paths in fuzzed inputs (scenarios, sweeps) resolve inside the work folder, not the source tree.
    times=$( { time (cd "$dir" && "$target" "${options[@]}" -max_total_time="$left" corpus seeds \
                       >"$dir/round.log" 2>&1 || true); } 2>&1)
    cat "$dir/round.log" >>"$dir/log"
    last=$(grep -E '^#[0-9]+' "$dir/round.log" | tail -1 || true)
    execs=$((execs + $(grep -o '^#[0-9]*' <<<"$last" | tr -d '#' || echo 0)))
    cpu=$(awk -v t="$times" -v c="$cpu" 'BEGIN { split(t, a, " "); printf "%.0f", c + a[1] + a[2] }')
    [ "$cpu_budget" = 1 ] && [ "$cpu" -lt "$seconds" ] || break
    left=$((seconds - cpu < 10 ? 10 : seconds - cpu))
  done
  findings=$(find "$dir/findings" -type f | wc -l)
  [ "$findings" -gt 0 ] && found=1
  # The GCC-built target reports outcomes (distinct results) where libFuzzer reports coverage.
  coverage=$(printf '%6s cov %7s ft' "$(field cov: "$last")" "$(field ft: "$last")")
  [ -n "$(field outcomes: "$last")" ] && coverage=$(printf '%15s outcomes' "$(field outcomes: "$last")")
  summary+=("$(printf '%-12s %6s cpu-s %11s execs %s %6s corpus %3s findings' "$name" "$cpu" "$execs" \
               "$coverage" "$(field corp: "$last")" "$findings")")
done
printf '%s\n' "${summary[@]}"
exit $found
