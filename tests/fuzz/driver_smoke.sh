#!/usr/bin/env bash
# ctest: a fuzz target built with tests/fuzz/mutation_driver.cpp (argument: its path) writes its seeds, replays
# each of them, then mutates inputs from them for 150 runs, twice: no finding, the mutations reach outcomes that
# the seeds do not, and the second run keeps the same inputs as the first (the mutations are deterministic).
set -euo pipefail
target=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/seeds" "$work/corpus" "$work/again" "$work/findings"
SGDSIM_FUZZ_SEEDS=$work/seeds "$target"
[ -n "$(ls "$work/seeds")" ] || { echo "no seed written"; exit 1; }
"$target" "$work"/seeds/* 2>"$work/replay.log" || { cat "$work/replay.log"; exit 1; }
seed_outcomes=$(grep -c '^Executed' "$work/replay.log")
[ "$seed_outcomes" -eq "$(ls "$work/seeds" | wc -l)" ] || { cat "$work/replay.log"; exit 1; }
for corpus in corpus again; do
  "$target" -runs=150 -seed=1 -artifact_prefix="$work/findings/" "$work/$corpus" "$work/seeds" 2>"$work/run.log" ||
    { cat "$work/run.log"; exit 1; }
done
tail -1 "$work/run.log"
if [ -n "$(ls "$work/findings")" ]; then
  cat "$work/run.log"
  echo "findings: $(ls "$work/findings")"
  exit 1
fi
grep -q '^#[0-9]*	DONE' "$work/run.log" || { echo "the run did not finish"; exit 1; }
initial=$(sort -u <(sed -n 's/^Executed [^ ]* (\(.*\))$/\1/p' "$work/replay.log") | wc -l)
final=$(grep -o 'outcomes: [0-9]*' "$work/run.log" | tail -1 | awk '{print $2}')
echo "outcomes: $initial from the seeds, $final after the mutations"
[ "$final" -gt "$initial" ] || { echo "the mutations reached no new outcome"; exit 1; }
[ "$(ls "$work/corpus")" = "$(ls "$work/again")" ] || { echo "two runs with seed 1 kept different inputs"; exit 1; }
