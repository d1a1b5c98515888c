#!/usr/bin/env bash
# GPU machine check of the Node runtime's CUDA path (test/gpu/node-cuda.ts): builds the addon with
# CUDA, compares CUDA with CPU on every spec case of every op with a CUDA kernel (others: a `skip`
# line each); for the seed ops also KNN beyond the spec cases, a device-resident chain, async, OOM.
#   scripts/gpu/node-cuda.sh [--ops DIR] [--out DIR]   (default: the seed ops; scripts/gpu/ops-args.sh)
# Needs Node (source .carry/setup.sh) and the built dist/. Logs to $OUT (default /tmp/opforge-gpu)
# as node-cuda.log (<project>-node-cuda.log for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
p=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
node dist/test/gpu/node-cuda.js --ops "$OPS" --out "$GEN_OUT" > "$OUT/${p}node-cuda.log" 2>&1
status=$?
tail -n 1 "$OUT/${p}node-cuda.log"
exit $status
