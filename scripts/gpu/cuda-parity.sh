#!/usr/bin/env bash
# On the GPU machine: every op's CUDA kernels on every spec test case, against the spec's reference
# (or the CPU kernel without one): `opforge test --device cuda --backend node,torch` on the project
# (ops without kernels.cuda: skipped by name).
#   scripts/gpu/cuda-parity.sh [--ops DIR] [--out DIR]   (default: the seed ops; scripts/gpu/ops-args.sh)
# Run from the repo root after `source .carry/setup.sh`; writes $OUT/cuda-parity.log
# (<project>-cuda-parity.log for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
out=${OUT:-/tmp}
mkdir -p "$out"
repo=$PWD
p=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
(cd "$PROJECT" && node "$repo/dist/cli/opforge.js" test --ops "$OPS" --out "$GEN_OUT" --device cuda --backend node,torch) 2>&1 | tee "$out/${p}cuda-parity.log"
exit "${PIPESTATUS[0]}"
