#!/usr/bin/env bash
# GPU machine check of the PyTorch backend (torch 2.x with CUDA, onnx >= 1.16, onnxscript):
# builds <out>/torch with the CUDA kernels, then runs test/python/torch_ops_check.py
#   1. with the extension on CUDA: parity with the reference, legacy and dynamo export checks,
#      torch.library.opcheck and torch.compile(fullgraph=True, dynamic=True) vs eager (ops without
#      kernels.cuda: a counted `skip` line for the device checks);
#   2. without the extension: the same through torch.library.custom_op over the reference (CPU).
#   scripts/gpu/torch-check.sh [--ops DIR] [--out DIR]   (default: the seed ops; scripts/gpu/ops-args.sh)
# DEVICE=cpu builds without CUDA and runs on the CPU; CHECK_FLAGS (default "--dynamo --compile")
# are passed to torch_ops_check.py (empty for torch < 2.5). Logs and the exported models go to
# $OUT (default /tmp/opforge-gpu), prefixed with the project name for other ops. Run from the repo root.
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
OUT=${OUT:-/tmp/opforge-gpu}
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
CHECK_FLAGS=${CHECK_FLAGS---dynamo --compile}
mkdir -p "$OUT"
p=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
build=$([ "$SEED" = 1 ] && echo build/torch-$DEVICE || echo "build/gpu/$(basename "$PROJECT")/torch-$DEVICE")
cuda=$([ "$DEVICE" = cpu ] && echo OFF || echo ON)
ops=(--ops "$OPS" --out "$GEN_OUT")
status=0
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  $PY -c 'import torch, onnx; print("torch", torch.__version__, "cuda", torch.version.cuda, "onnx", onnx.__version__)'
  echo "ops: $OPS -> $GEN_OUT"
} > "$OUT/${p}torch-env.log" 2>&1
prefix=$($PY -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
if cmake -S "$GEN_OUT/torch" -B "$build" -DWITH_CUDA=$cuda -DCMAKE_CUDA_ARCHITECTURES=90 -DOPFORGE_PROJECT_ROOT="$PROJECT" \
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > "$OUT/${p}torch-build.log" 2>&1 &&
   cmake --build "$build" -j"$(nproc)" >> "$OUT/${p}torch-build.log" 2>&1; then
  echo "build: ok" >> "$OUT/${p}torch-build.log"
  # shellcheck disable=SC2086 # CHECK_FLAGS is a flag list
  $PY test/python/torch_ops_check.py "${ops[@]}" --library "$build/libopforge_torch.so" \
    --device "$DEVICE" $CHECK_FLAGS --save-models "$OUT/${p}models" > "$OUT/${p}torch-check-$DEVICE.log" 2>&1 || status=1
else
  echo "build: FAILED" >> "$OUT/${p}torch-build.log"
  status=1
fi
# shellcheck disable=SC2086
$PY test/python/torch_ops_check.py "${ops[@]}" $CHECK_FLAGS > "$OUT/${p}torch-check-reference.log" 2>&1 || status=1
[ -d "$OUT/${p}models" ] && tar czf "$OUT/${p}models.tgz" -C "$OUT" "${p}models" && rm -rf "$OUT/${p}models"
tail -n 1 "$OUT/${p}"torch-check-*.log
exit $status
