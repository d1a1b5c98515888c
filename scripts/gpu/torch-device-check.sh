#!/usr/bin/env bash
# GPU machine: CUDA tensors reaching PyTorch ops that cannot run them give a clear RuntimeError
# naming the op, not the dispatcher's NotImplementedError (docs/decisions.md, "An op without
# kernels.cuda on CUDA tensors"):
#  1. test/fixtures/edges (no op has kernels.cuda), extension configured with -DWITH_CUDA=ON:
#     "<Op> has no CUDA kernel (its spec names no kernels.cuda) ...", through opforge_ops, through
#     torch.ops.opforge directly and under torch.compile; CPU tensors still run.
#  2. the seed ops (all have kernels.cuda) in an extension built WITHOUT CUDA: "built without CUDA".
# Needs node (source .carry/setup.sh) and dist/ (npx tsc -p .). Logs to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
P=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
status=0
node dist/cli/opforge.js gen --quiet --ops test/fixtures/edges/ops --out build/edges-gpu-out > "$OUT/device-build.log" 2>&1 || status=1
cmake -S build/edges-gpu-out/torch -B /tmp/edges-cuda -DCMAKE_PREFIX_PATH="$P" -DWITH_CUDA=ON >> "$OUT/device-build.log" 2>&1 &&
  cmake --build /tmp/edges-cuda -j"$(nproc)" >> "$OUT/device-build.log" 2>&1 || status=1
PYTHONPATH=build/edges-gpu-out/python python3 scripts/gpu/torch_device_check.py no-kernel /tmp/edges-cuda/libopforge_torch.so \
  const_fill segment_sum list_scale > "$OUT/device-no-kernel.log" 2>&1 || status=1
cmake -S out/torch -B /tmp/seeds-cpu-only -DCMAKE_PREFIX_PATH="$P" -DWITH_CUDA=OFF >> "$OUT/device-build.log" 2>&1 &&
  cmake --build /tmp/seeds-cpu-only -j"$(nproc)" >> "$OUT/device-build.log" 2>&1 || status=1
PYTHONPATH=out/python python3 scripts/gpu/torch_device_check.py no-cuda-build /tmp/seeds-cpu-only/libopforge_torch.so \
  custom_relu my_add > "$OUT/device-no-cuda-build.log" 2>&1 || status=1
tail -n 1 "$OUT/device-no-kernel.log" "$OUT/device-no-cuda-build.log"
exit $status
