#!/usr/bin/env bash
# GPU machine run of the spec-space corpus (docs/specspace.md) and of the user-ops fixture:
# every case through the PyTorch extension built with CUDA against the spec
# references on CUDA tensors (torch_ops_check.py --device cuda), and the Node addon's CUDA kernels
# against its CPU kernels (test/gpu/node-cuda.ts --ops). Logs to $OUT.
#   bash scripts/gpu/specspace.sh [first seed] [count]      (default: the fixed corpus, seeds 1..44)
# Needs Node (source .carry/setup.sh), the built dist/ and a GPU; no ONNX Runtime from Node there.
set -uo pipefail
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
from=${1:-1}
count=${2:-44}
status=0
node dist/test/specspace/long.js --from "$from" --count "$count" --batch "$count" --backends torch --cuda \
  --dir build/specspace-gpu --keep > "$OUT/specspace-long.log" 2>&1 || status=1
tail -n 1 "$OUT/specspace-long.log"
node dist/test/gpu/node-cuda.js --ops build/specspace-gpu/b0/ops --out build/specspace-gpu/b0/out > "$OUT/specspace-node-cuda.log" 2>&1 || status=1
tail -n 1 "$OUT/specspace-node-cuda.log"
mkdir -p build/user-ops-gpu && rm -rf build/user-ops-gpu/ops && cp -r test/fixtures/user-ops/ops build/user-ops-gpu/ops
node dist/test/gpu/node-cuda.js --ops build/user-ops-gpu/ops --out build/user-ops-gpu/out > "$OUT/user-ops-node-cuda.log" 2>&1 || status=1
tail -n 1 "$OUT/user-ops-node-cuda.log"
exit $status
