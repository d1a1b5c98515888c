#!/usr/bin/env bash
# GPU machine check of the PyTorch backend (torch 2.x with CUDA, onnx >= 1.16, onnxscript):
# builds out/torch with the CUDA kernels, then runs test/python/torch_ops_check.py
#   1. with the extension on CUDA: parity with the reference, legacy and dynamo export checks,
#      torch.library.opcheck and torch.compile(fullgraph=True, dynamic=True) vs eager;
#   2. without the extension: the same through torch.library.custom_op over the reference (CPU).
# Logs and the exported models go to $OUT (default /tmp/opforge-gpu). Run from the repo root.
set -uo pipefail
OUT=${OUT:-/tmp/opforge-gpu}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
status=0
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  $PY -c 'import torch, onnx, onnxscript; print("torch", torch.__version__, "cuda", torch.version.cuda, "onnx", onnx.__version__, "onnxscript", onnxscript.__version__)'
} > "$OUT/torch-env.log" 2>&1
prefix=$($PY -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
if cmake -S out/torch -B build/torch-cuda -DWITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > "$OUT/torch-build.log" 2>&1 &&
   cmake --build build/torch-cuda -j"$(nproc)" >> "$OUT/torch-build.log" 2>&1; then
  echo "build: ok" >> "$OUT/torch-build.log"
  PYTHONPATH=out/python $PY test/python/torch_ops_check.py --library build/torch-cuda/libopforge_torch.so \
    --device cuda --dynamo --compile --save-models "$OUT/models" > "$OUT/torch-check-cuda.log" 2>&1 || status=1
else
  echo "build: FAILED" >> "$OUT/torch-build.log"
  status=1
fi
PYTHONPATH=out/python $PY test/python/torch_ops_check.py --dynamo --compile > "$OUT/torch-check-reference.log" 2>&1 || status=1
[ -d "$OUT/models" ] && tar czf "$OUT/models.tgz" -C "$OUT" models && rm -rf "$OUT/models"
tail -n 1 "$OUT"/torch-check-*.log
exit $status
