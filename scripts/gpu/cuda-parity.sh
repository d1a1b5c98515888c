#!/usr/bin/env bash
# On the GPU machine: every seed op's CUDA kernel vs its CPU kernel for each spec test case.
# Run from the repo root after `source .carry/setup.sh`; writes $OUT/cuda-parity.log.
set -uo pipefail
out=${OUT:-/tmp}
node dist/test/gpu/cuda-parity.js build/cuda-parity 2>&1 | tee "$out/cuda-parity.log"
exit "${PIPESTATUS[0]}"
