#!/usr/bin/env bash
# GPU machine run of the spec-space corpus (docs/specspace.md): `opforge test --device cuda` on
# every generated spec (the Node addon's and the PyTorch extension's CUDA kernels on every case,
# against the spec's reference). The user-ops fixture: scripts/gpu/opforge-test.sh. Logs to $OUT.
#   bash scripts/gpu/specspace.sh [first seed] [count]      (default: the fixed corpus, seeds 1..44)
# Needs Node (source .carry/setup.sh), the built dist/ and a GPU.
set -uo pipefail
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
from=${1:-1}
count=${2:-44}
status=0
node dist/test/specspace/long.js --from "$from" --count "$count" --batch "$count" --backends node,torch --cuda \
  --dir build/specspace-gpu --keep > "$OUT/specspace-long.log" 2>&1 || status=1
tail -n 1 "$OUT/specspace-long.log"
exit $status
