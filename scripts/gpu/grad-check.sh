#!/usr/bin/env bash
# GPU machine (torch 2.11 with CUDA): the spec's backward (issue 19).
#  1. opforge test --backend grad on the CPU and --device cuda (gradcheck in float64 and autograd of
#     the reference, every case of every op with a backward);
#  2. test/python/grad_check.py with the CUDA extension on cuda and cpu, and without it (custom_op
#     over the references): gradients = PyTorch's own ops, gradcheck, errors, SGD steps;
#  3. test/python/grad_compile_check.py: opcheck with autograd tests, torch.compile(fullgraph=True)
#     of a training step vs eager, with the extension on cuda and without it.
# Run from the repo root after `source .carry/setup.sh`; logs to $OUT/grad-*.log.
set -uo pipefail
out=${OUT:-/tmp}
mkdir -p "$out"
export OPFORGE_PYTHON=${OPFORGE_PYTHON:-python3}
rc=0
node dist/cli/opforge.js test --backend grad > "$out/grad-opforge-test-cpu.log" 2>&1 || rc=1
node dist/cli/opforge.js test --backend grad --device cuda > "$out/grad-opforge-test-cuda.log" 2>&1 || rc=1
lib=build/torch/libopforge_torch.so   # the CUDA build the run above left
export PYTHONPATH=out/python
for a in "--library $lib --device cuda" "--library $lib --device cpu" "--device cpu"; do
  tag=$(echo "$a" | tr -c 'a-z0-9' '-' | sed 's/--*/-/g')
  # shellcheck disable=SC2086
  python3 test/python/grad_check.py $a > "$out/grad-check$tag.log" 2>&1 || rc=1
  # shellcheck disable=SC2086
  python3 test/python/grad_compile_check.py $a > "$out/grad-compile$tag.log" 2>&1 || rc=1
done
tail -n 2 "$out"/grad-*.log
exit $rc
