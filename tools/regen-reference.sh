#!/usr/bin/env bash
# Rewrites the generated scenario reference from the key declarations in the code: scenarios/scenario.schema.json
# (`sgdsim schema`) and docs/scenario.md (`sgdsim docs scenario`). Run after changing any key or kind; the test
# "scenarios/scenario.schema.json is what `sgdsim schema` prints" fails until you do.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${SGDSIM_BINARY:-${SGDSIM_BUILD_DIR:-$root/build}/sgdsim}
"$binary" schema > "$root/scenarios/scenario.schema.json"
"$binary" docs scenario > "$root/docs/scenario.md"
echo "regenerated scenarios/scenario.schema.json and docs/scenario.md" >&2
