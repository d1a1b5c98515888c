#!/usr/bin/env bash
# GPU machine (torch 2.x with CUDA): the performance figures of docs/benchmarks.md. The checks are
# scripts/gpu/check.sh's; this builds what it measures the way users build it, then measures:
#  1. opforge test --device cuda --backend torch (the CUDA extension in build/torch, checked);
#  2. bench/python/torch_call.py on cpu and cuda (generated function vs torch.ops vs torch);
#  3. bench/gpu/run.sh (elementwise kernels vs torch.relu and a device-to-device copy).
# Run from the repo root after `source .carry/setup.sh`; logs to $OUT/perf-*.log.
set -uo pipefail
out=${OUT:-/tmp/opforge-gpu}
mkdir -p "$out"
export OPFORGE_PYTHON=${OPFORGE_PYTHON:-python3}
rc=0
node dist/cli/opforge.js test --device cuda --backend torch > "$out/perf-opforge-test-cuda.log" 2>&1 || rc=1
lib=build/torch/libopforge_torch.so   # the CUDA build the run above left
for d in cpu cuda; do
  PYTHONPATH=out/python "$OPFORGE_PYTHON" bench/python/torch_call.py --library "$lib" --device "$d" > "$out/perf-torch-call-$d.log" 2>&1 || rc=1
done
OUT="$out" bash bench/gpu/run.sh > "$out/perf-bench-gpu.log" 2>&1 || rc=1
tail -n 5 "$out"/perf-*.log
exit $rc
