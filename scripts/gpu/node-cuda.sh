#!/usr/bin/env bash
# GPU machine check of the Node runtime's CUDA path: `opforge test --device cuda --backend node`
# (every spec case of every op with kernels.cuda, on the GPU, against the spec's reference), then
# for the seed ops test/gpu/node-cuda.ts (KNN beyond the spec cases, a device-resident chain,
# async, freed/mixed tensors, out of memory).
#   scripts/gpu/node-cuda.sh [--ops DIR] [--out DIR]   (default: the seed ops; scripts/gpu/ops-args.sh)
# Needs Node (source .carry/setup.sh) and the built dist/. Logs to $OUT (default /tmp/opforge-gpu)
# as node-cuda.log (<project>-node-cuda.log for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
repo=$PWD
p=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
log="$OUT/${p}node-cuda.log"
(cd "$PROJECT" && node "$repo/dist/cli/opforge.js" test --ops "$OPS" --out "$GEN_OUT" --device cuda --backend node) > "$log" 2>&1
status=$?
if [ "$SEED" = 1 ]; then node dist/test/gpu/node-cuda.js >> "$log" 2>&1 || status=1; fi
tail -n 2 "$log"
exit $status
