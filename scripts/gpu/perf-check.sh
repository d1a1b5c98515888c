#!/usr/bin/env bash
# GPU machine (torch 2.11 with CUDA), issue 18: the PyTorch direct call path and the per-op Node
# units on CUDA, and the performance figures of docs/benchmarks.md.
#  1. opforge test --device cuda on the seed ops (node, torch, grad, export, serialize: the
#     generated functions' direct path and the Node addon's per-op units, CPU and CUDA);
#  2. bench/python/torch_call.py on cpu and cuda (wrapper vs torch.ops vs torch), and
#     test/python/torch_ops_check.py (the Python entry against torch.ops' own, its fallbacks);
#  3. test/python/grad_compile_check.py on cuda (opcheck incl. DynamicTRTResize's backward;
#     torch.compile(fullgraph=True) of a training step through the generated functions);
#  4. bench/gpu/run.sh (elementwise kernels vs torch.relu).
# Run from the repo root after `source .carry/setup.sh`; logs to $OUT/perf-*.log.
set -uo pipefail
out=${OUT:-/tmp}
mkdir -p "$out"
export OPFORGE_PYTHON=${OPFORGE_PYTHON:-python3}
rc=0
node dist/cli/opforge.js test --device cuda > "$out/perf-opforge-test-cuda.log" 2>&1 || rc=1
lib=build/torch/libopforge_torch.so   # the CUDA build the run above left
export PYTHONPATH=out/python
for d in cpu cuda; do
  python3 bench/python/torch_call.py --library "$lib" --device "$d" > "$out/perf-torch-call-$d.log" 2>&1 || rc=1
done
# The Python entry on torch 2.x: built, bit for bit torch.ops' entry, the fallbacks (torch function
# modes, subclasses, bad arguments), opcheck and torch.compile through the generated functions.
for d in cpu cuda; do
  python3 test/python/torch_ops_check.py --library "$lib" --device "$d" --compile --no-legacy > "$out/perf-torch-ops-$d.log" 2>&1 || rc=1
done
python3 test/python/grad_compile_check.py --library "$lib" --device cuda > "$out/perf-grad-compile-cuda.log" 2>&1 || rc=1
OUT="$out" bash bench/gpu/run.sh > "$out/perf-bench-gpu.log" 2>&1 || rc=1
tail -n 5 "$out"/perf-*.log
exit $rc
