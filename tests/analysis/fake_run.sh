#!/usr/bin/env bash
# A stand-in for `sgdsim run S.json -o DIR` used by the sweep tests (through SGDSIM_RUNNER): it honours the run
# command's contract (atomic DIR with trace.csv, summary.json and resolved.json; exit 2 when DIR exists) and makes
# figures from the scenario text, so tests of sweeps need no simulation.
#   scenario contains "fake_fail"    -> prints an error on stderr and exits 3
#   scenario contains "fake_invalid" -> rejects the scenario like bad input: exit 2
#   FAKE_SLEEP=seconds              -> sleeps before writing (to be killed mid-way)
set -euo pipefail
[ "$1" = run ] || { echo "fake_run: expected 'run'" >&2; exit 2; }
scenario=$2
[ "$3" = -o ] || { echo "fake_run: expected -o" >&2; exit 2; }
out=$4
[ -e "$out" ] && { echo "fake_run: $out exists" >&2; exit 2; }
text=$(tr -d '\n' < "$scenario")
if [[ $text == *fake_invalid* ]]; then
  echo "sgdsim: error: $scenario: \$.algorithm.note: this point is made invalid" >&2
  exit 2
fi
if [[ $text == *fake_fail* ]]; then
  echo "fake_run: starting" >&2
  echo "fake_run: error: this point is made to fail" >&2
  exit 3
fi
seed=$(grep -o '"seed": *[0-9]*' <<<"$text" | head -1 | grep -o '[0-9]*$')
# Bandwidth in Mbps from strings like "10Mbps" (default 100).
bandwidth=$(grep -o '"bandwidth": *"[0-9.]*' <<<"$text" | head -1 | grep -o '[0-9.]*$' || true)
bandwidth=${bandwidth:-100}
# A per-method rate, so that methods differ: choco converges fastest in this fake world.
rate=1
[[ $text == *'"kind": "choco"'* ]] && rate=2
[[ $text == *'"kind": "sparq"'* ]] && rate=3
sleep "${FAKE_SLEEP:-0}"
temp="$(dirname "$out")/.$(basename "$out").tmp.$$"
mkdir -p "$temp"
cp "$scenario" "$temp/resolved.json"
awk -v seed="$seed" -v bw="$bandwidth" -v rate="$rate" 'BEGIN {
  print "step,sim_time_s,bits_sent,bytes_on_wire,messages,triggers,train_loss,test_accuracy,consensus_distance"
  for (step = 0; step <= 50; step += 10) {
    bits = step * 32000 / rate
    loss = 1 / (1 + rate * step / 10) + seed * 0.001
    time = bits / (bw * 1e6) + step * 0.001
    printf "%d,%.6g,%d,%d,%d,,%.6g,%.4g,%.6g\n", step, time, bits, bits / 8, step * 8, loss, 1 - loss, loss / 10
    last = sprintf("{\"step\": %d, \"sim_time_s\": %.6g, \"bits_sent\": %d, \"bytes_on_wire\": %d, \"messages\": %d, \"triggers\": null, \"train_loss\": %.6g, \"test_accuracy\": %.4g, \"consensus_distance\": %.6g}", step, time, bits, bits / 8, step * 8, loss, 1 - loss, loss / 10)
  }
  print last > "/dev/stderr"
}' > "$temp/trace.csv" 2> "$temp/final.json"
printf '{"name": "fake", "seed": %s, "version": "fake", "final": %s, "totals": {}, "wall_clock_s": {"total": %s}}\n' \
  "$seed" "$(cat "$temp/final.json")" "$RANDOM" > "$temp/summary.json"
rm "$temp/final.json"
mv -T "$temp" "$out"
