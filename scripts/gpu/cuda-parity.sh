#!/usr/bin/env bash
# On the GPU machine: every op's CUDA kernel vs its CPU kernel for each spec test case (ops without
# kernels.cuda: a `skip` line each).
#   scripts/gpu/cuda-parity.sh [--ops DIR] [--out DIR]   (default: the seed ops; scripts/gpu/ops-args.sh)
# Run from the repo root after `source .carry/setup.sh`; writes $OUT/cuda-parity.log
# (<project>-cuda-parity.log for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
out=${OUT:-/tmp}
mkdir -p "$out"
p=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
node dist/test/gpu/cuda-parity.js "build/${p}cuda-parity" --ops "$OPS" --out "$GEN_OUT" 2>&1 | tee "$out/${p}cuda-parity.log"
exit "${PIPESTATUS[0]}"
