#!/usr/bin/env bash
# GPU machine check of the Node runtime's CUDA path (test/gpu/node-cuda.ts): builds the addon with
# CUDA, compares CUDA with CPU on every spec case, runs a device-resident chain, async and OOM.
# Needs Node (source .carry/setup.sh) and the built dist/. Logs to $OUT (default /tmp/opforge-gpu).
set -uo pipefail
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
node dist/test/gpu/node-cuda.js > "$OUT/node-cuda.log" 2>&1
status=$?
tail -n 1 "$OUT/node-cuda.log"
exit $status
