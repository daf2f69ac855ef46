#!/bin/bash
# `sgdsim emulate` over real TCP between two network namespaces (docs/validation.md): a small recorded run is
# replayed, its comparison written, and nothing it made is left behind — after a normal end and after
# SIGINT. Needs root, `ip` and `tc`; elsewhere it reports itself skipped (exit 77, ctest's SKIP_RETURN_CODE).
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

scenario() {  # steps, bandwidth
  cat <<JSON
{"name": "smoke", "seed": 1,
 "network": {"topology": {"kind": "ring", "nodes": 2}, "link": {"bandwidth": "$2", "latency": "0s"}},
 "data": {"dataset": "fashion-mnist", "samples": 200, "test_samples": 20, "batch_size": 8},
 "model": {"kind": "softmax"},
 "algorithm": {"kind": "dpsgd", "steps": $1, "lr": 0.05},
 "eval": {"every": 1}}
JSON
}
scenario 4 100Mbps >"$work/short.json"
scenario 400 1Mbps >"$work/long.json"
"$sgdsim" run "$work/short.json" -o "$work/short" --record -q || fail "run --record"
"$sgdsim" emulate "$work/short" -o "$work/out" -q &
pid=$!
wait $pid || fail "emulate"
for f in comparison.csv validation.json resolved.json; do [ -s "$work/out/$f" ] || fail "no $f"; done
python3 - "$work/out" <<'PY' || fail "validation.json or comparison.csv"
import csv, json, sys
v = json.load(open(sys.argv[1] + "/validation.json"))
for key in ("median_relative_error", "p90_relative_error", "steps", "nodes", "kernel", "qdisc"):
    assert key in v, key
assert v["nodes"] == 2 and v["steps"] == 4, v
assert v["qdisc"]["kind"] == "htb-ack" and "htb" in v["qdisc"]["example"], v["qdisc"]
rows = list(csv.DictReader(open(sys.argv[1] + "/comparison.csv")))
assert len(rows) == 8, len(rows)  # 2 nodes x 4 steps
# 4 steps of 2 x 31 KB (a 7850-float model) over 100 Mbps: each step waits milliseconds, measured and simulated
assert all(float(r["measured_communication_s"]) > 0 for r in rows), rows
assert all(float(r["simulated_communication_s"]) > 0 for r in rows), rows
PY
# Other emulations may run meanwhile (their namespaces carry their own PID): this one's must be gone, and no
# interface of the host's namespace may have changed.
! namespaces | grep -q "^sgdsim-$pid-" || fail "namespaces left after a normal end: $(namespaces)"
[ "$(links)" = "$before_links" ] || fail "links changed after a normal end"

# Interrupted while replaying: the namespaces go, the exit code says SIGINT.
"$sgdsim" run "$work/long.json" -o "$work/long" --record -q || fail "run --record (long)"
"$sgdsim" emulate "$work/long" -o "$work/out2" -q &
pid=$!
for _ in $(seq 100); do
  ip netns list | grep -q "^sgdsim-$pid-1" && break
  sleep 0.1
done
ip netns list | grep -q "^sgdsim-$pid-" || fail "the emulation made no namespaces"
sleep 0.5
kill -INT $pid
wait $pid
code=$?
[ $code = 130 ] || fail "exit $code after SIGINT, expected 130"
[ ! -e "$work/out2" ] || fail "an interrupted emulation wrote its output"
! namespaces | grep -q "^sgdsim-$pid-" || fail "namespaces left after SIGINT: $(namespaces)"
[ "$(links)" = "$before_links" ] || fail "links changed after SIGINT"

# Refused without the tools: exit 2, nothing made.
PATH=/nonexistent "$sgdsim" emulate "$work/short" -o "$work/out3" 2>"$work/err"
code=$?
[ $code = 2 ] || fail "exit $code without ip and tc, expected 2"
grep -q "not on PATH" "$work/err" || fail "no clear message without ip and tc: $(cat "$work/err")"
echo "ok"
