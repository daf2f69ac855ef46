#!/bin/bash
# `sgdsim emulate` on a switch (a Linux bridge in its own namespace, one shaped veth per host NIC) and
# `sgdsim calibrate --network` over one shaped link (docs/validation.md): each writes what it should and
# leaves no namespace or link behind. Needs root, `ip` and `tc`; elsewhere it reports itself skipped (exit 77,
# ctest's SKIP_RETURN_CODE).
set -u
sgdsim=$1
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "skipped: needs root, ip and tc"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
namespaces() { ip netns list | awk '{print $1}' | sort; }
links() { ip -o link show | awk -F': ' '{print $2}' | sort; }
before_links=$(links)

cat >"$work/switch.json" <<JSON
{"name": "switch-smoke", "seed": 1,
 "network": {"topology": {"kind": "switch", "nodes": 3}, "link": {"bandwidth": "100Mbps", "latency": "0s"}},
 "data": {"dataset": "fashion-mnist", "samples": 200, "test_samples": 20, "batch_size": 8},
 "model": {"kind": "softmax"},
 "algorithm": {"kind": "dpsgd", "steps": 3, "lr": 0.05, "graph": {"kind": "ring", "nodes": 3}},
 "eval": {"every": 1}}
JSON
"$sgdsim" run "$work/switch.json" -o "$work/rec" --record -q || fail "run --record"
"$sgdsim" emulate "$work/rec" -o "$work/out" --no-compute -q &
pid=$!
wait $pid || fail "emulate on a switch"
python3 - "$work/out" <<'PY' || fail "validation.json or comparison.csv"
import csv, json, sys
v = json.load(open(sys.argv[1] + "/validation.json"))
assert v["nodes"] == 3 and v["steps"] == 3 and v["switch"] is True and v["links"] == 3, v
rows = list(csv.DictReader(open(sys.argv[1] + "/comparison.csv")))
assert len(rows) == 9, len(rows)  # 3 nodes x 3 steps
# Each node sends 31 kB to both ring neighbours through its one 100 Mbps NIC: milliseconds on both sides.
assert all(float(r["measured_communication_s"]) > 0 for r in rows), rows
assert all(float(r["simulated_communication_s"]) > 0 for r in rows), rows
PY
! namespaces | grep -q "^sgdsim-$pid-" || fail "namespaces left after the switch: $(namespaces)"
[ "$(links)" = "$before_links" ] || fail "links changed after the switch"

"$sgdsim" calibrate --network --sizes 1000,100000 --rates 100Mbps --round-trips 2 -o "$work/net.json" &
pid=$!
wait $pid || fail "calibrate --network"
! namespaces | grep -q "^sgdsim-$pid-" || fail "namespaces left after calibrate: $(namespaces)"
[ "$(links)" = "$before_links" ] || fail "links changed after calibrate"
python3 - "$work/net.json" <<'PY' || fail "net.json"
import json, sys
c = json.load(open(sys.argv[1]))
s = c["segments"]
assert len(s) == 2 and s[0]["from_bytes"] == 0 and s[1]["from_bytes"] == 10000, s
assert all(0 < x["bandwidth_factor"] <= 1 and x["latency_factor"] == 1 for x in s), s
assert len(c["fit"]["transfers"]) == 2, c["fit"]
PY
# A scenario takes the file as it is.
sed 's|"latency": "0s"}|"latency": "0s"}, "calibration": "net.json"|' "$work/switch.json" >"$work/calibrated.json"
"$sgdsim" validate "$work/calibrated.json" >/dev/null 2>"$work/err" || fail "a scenario refuses net.json: $(cat "$work/err")"
echo "ok"
