#!/usr/bin/env bash
# Rewrites the generated references from the declarations in the code: scenarios/scenario.schema.json
# (`sgdsim schema`) and docs/scenario.md (`sgdsim docs scenario`) from the keys, docs/outputs.md (`sgdsim docs
# outputs`) from the trace columns and summary fields. Run after changing any key, kind or output; the tests
# "... is what `sgdsim ...` prints" fail until you do.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${SGDSIM_BINARY:-${SGDSIM_BUILD_DIR:-$root/build}/sgdsim}
"$binary" schema > "$root/scenarios/scenario.schema.json"
"$binary" docs scenario > "$root/docs/scenario.md"
"$binary" docs outputs > "$root/docs/outputs.md"
echo "regenerated scenarios/scenario.schema.json, docs/scenario.md and docs/outputs.md" >&2
