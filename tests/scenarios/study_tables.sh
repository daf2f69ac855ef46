#!/usr/bin/env bash
# A study page's tables are what the study's bundled outputs give: `run.sh --tables STUDY` makes them again
# from scenarios/studies/OUTPUTS/outputs/ with this build's sgdsim, and `tables.py check` compares them with
# the page. A page with one cell changed must then fail the check.
#
#   tests/scenarios/study_tables.sh path/to/sgdsim STUDY[,STUDY...] OUTPUTS PAGE
#   e.g. study_tables.sh build/sgdsim dynamics dynamics docs/studies/dynamics.md (PAGE relative to the repository)
#   A page that shows the tables of several of run.sh's studies names them all, comma-separated
#   (bandwidth,bandwidth-a100): each makes its tables from the same bundled outputs.
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,9p' "$0" >&2; exit 2; }
sgdsim=$1
study=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
outputs=$root/scenarios/studies/$3/outputs
page=$root/$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for folder in "$outputs"/*/; do
  ln -s "$folder" "$tmp/$(basename "$folder")"
done
IFS=, read -ra studies <<<"$study"
for one in "${studies[@]}"; do
  SGDSIM=$sgdsim "$root/scenarios/studies/run.sh" --tables "$one" "$tmp"
done
python3 "$root/scenarios/studies/tables.py" check "$tmp/tables" "$page"

# The first data row of the first marked table (past its header and separator), with its first digit changed:
# the check must see it.
python3 - "$page" "$tmp/changed.md" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").readlines()
marker = next(i for i, line in enumerate(lines) if line.startswith("<!-- table: "))
row = [i for i in range(marker, len(lines)) if lines[i].startswith("|")][2]
lines[row] = re.sub(r"[0-9]", lambda m: str((int(m.group(0)) + 1) % 10), lines[row], count=1)
open(sys.argv[2], "w", encoding="utf-8").writelines(lines)
PY
if python3 "$root/scenarios/studies/tables.py" check "$tmp/tables" "$tmp/changed.md" 2>/dev/null; then
  echo "study_tables.sh: a changed cell was not noticed" >&2
  exit 1
fi
echo "study_tables.sh: the tables of $page agree with its bundled outputs"
