#!/bin/bash
# The validation campaign of docs/validation.md, one command (root; run it on a quiet host):
#   1. `sgdsim calibrate --network -o OUT/net.json`: the flow model's factors by message size, fitted to a
#      ping-pong over one shaped link (the cells below are not used for fitting);
#   2. record small runs (4 steps, one trace row per step) of D-PSGD, CHOCO-SGD with top-k and the fp32 ring
#      all-reduce on rings of 4 and 8 nodes and on 8 nodes at a switch (D-PSGD mixing over a ring of 8) at
#      10 Mbps, 100 Mbps and 1 Gbps with messages from 1 kB to 10 MB;
#   3. replay each over real TCP (`sgdsim emulate --no-compute`) against the `ideal` and `tcp` network models
#      and `ideal` with the calibration ("calibrated");
#   4. write OUT/cells.csv, OUT/tables.md (tools/validation-table.py) and OUT/host.txt (load before and after).
# Prints one line per cell and model. Resumable: what exists in OUT is kept. Usage:
#   tools/validation-campaign.sh SGDSIM OUT [CELL_FILTER_REGEX]
# NICE=19 (default 0) runs it under nice on a shared host; the figures then include the other work's delays.
set -eu
sgdsim=$1
out=$2
filter=${3:-.}
mkdir -p "$out"
out=$(cd "$out" && pwd)
run() { nice -n "${NICE:-0}" "$@"; }
start=$(date +%s)
{
  echo "start: $(date -u +%FT%TZ) $(uptime)"
  echo "kernel: $(uname -sr), cores: $(nproc)"
} >"$out/host.txt"
[ -s "$out/net.json" ] || run "$sgdsim" calibrate --network -o "$out/net.json"
# model object, dataset object for each message size (float32: d coordinates = 4·d bytes)
size_model() {
  case $1 in
  1k) echo '{"kind": "logistic"}|{"dataset": "synthetic", "kind": "logistic", "features": 255, "samples": 400, "test_samples": 0, "batch_size": 8}' ;;
  10k) echo '{"kind": "logistic"}|{"dataset": "synthetic", "kind": "logistic", "features": 2559, "samples": 400, "test_samples": 0, "batch_size": 8}' ;;
  100k) echo '{"kind": "logistic"}|{"dataset": "synthetic", "kind": "logistic", "features": 25599, "samples": 200, "test_samples": 0, "batch_size": 8}' ;;
  1M) echo '{"kind": "mlp", "hidden": [318]}|{"dataset": "fashion-mnist", "samples": 400, "test_samples": 20, "batch_size": 8}' ;;
  10M) echo '{"kind": "mlp", "hidden": [3180]}|{"dataset": "fashion-mnist", "samples": 400, "test_samples": 20, "batch_size": 8}' ;;
  esac
}
algorithm() {
  case $1 in
  dpsgd) echo '{"kind": "dpsgd", "steps": 4, "lr": 0.01}' ;;
  choco) echo '{"kind": "choco", "steps": 4, "lr": 0.01, "consensus_step": 0.1, "compressor": {"kind": "topk", "fraction": 0.1}}' ;;
  allreduce) echo '{"kind": "data_parallel", "steps": 4, "lr": 0.01, "compressor": {"kind": "none"}, "collective": {"kind": "ring_allreduce"}}' ;;
  esac
}
# algorithm topology nodes size rate
cells() {
  for rate in 10Mbps 100Mbps 1Gbps; do
    for size in 1k 10k 100k 1M 10M; do echo "dpsgd ring 4 $size $rate"; done
    for size in 10k 1M; do echo "dpsgd ring 8 $size $rate"; done
    echo "choco ring 4 1M $rate"
    echo "allreduce ring 4 1M $rate"
    echo "allreduce ring 8 10M $rate"
    echo "dpsgd switch 8 1M $rate"
    echo "allreduce switch 8 10M $rate"
  done
}
echo "cell,model,median_relative_error,p90_relative_error,median_signed_relative_error,message_bytes,process_share,machine_busy_share,wall_s" >"$out/cells.csv"
cells | grep -E "$filter" | while read -r alg topo nodes size rate; do
  cell="$alg-$topo$nodes-$size-$rate"
  IFS='|' read -r model data <<<"$(size_model "$size")"
  algorithm=$(algorithm "$alg")
  # On a switch, a gossip method mixes over a ring of its nodes (algorithm.graph).
  [ "$topo" = switch ] && [ "$alg" != allreduce ] &&
    algorithm="${algorithm%\}}, \"graph\": {\"kind\": \"ring\", \"nodes\": $nodes}}"
  cat >"$out/$cell.json" <<JSON
{"name": "$cell", "seed": 1,
 "network": {"topology": {"kind": "$topo", "nodes": $nodes}, "link": {"bandwidth": "$rate", "latency": "0s"}},
 "data": $data, "model": $model, "algorithm": $algorithm, "eval": {"every": 1}}
JSON
  [ -d "$out/$cell" ] || run "$sgdsim" run "$out/$cell.json" -o "$out/$cell" --record -q --threads 1
  for net in ideal tcp calibrated; do
    dir="$out/$cell-$net"
    if [ "$net" = calibrated ]; then
      prediction=(network.model=ideal "network.calibration=$out/net.json")
    else
      prediction=(network.model=$net)
    fi
    [ -d "$dir" ] || run "$sgdsim" emulate "$out/$cell" -o "$dir" --no-compute --set "${prediction[@]}" -q
    python3 - "$dir" "$cell" "$net" "$out/$cell" >>"$out/cells.csv" <<'PY'
import json, sys
v = json.load(open(sys.argv[1] + "/validation.json"))
s = json.load(open(sys.argv[4] + "/summary.json"))
t = s["totals"] if "totals" in s else {}
msgs = t.get("messages") or 1
payload = (t.get("bits_sent") or 0) / 8
c = v["cpu"]
print(f'{sys.argv[2]},{sys.argv[3]},{v["median_relative_error"]},{v["p90_relative_error"]},'
      f'{v["median_signed_relative_error"]},{payload / msgs:.0f},{c["process_share"]:.3f},'
      f'{c["machine_busy_share"]:.3f},{c["wall_s"]:.2f}')
PY
    tail -1 "$out/cells.csv"
  done
done
python3 "$(dirname "$0")/validation-table.py" "$out/cells.csv" >"$out/tables.md"
echo "end: $(date -u +%FT%TZ) $(uptime); $(($(date +%s) - start)) s" >>"$out/host.txt"
cat "$out/host.txt"
