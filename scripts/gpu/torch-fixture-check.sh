#!/usr/bin/env bash
# GPU machine: the PyTorch and ONNX Runtime backends over test/fixtures/adapters (an optional input,
# all six attribute types incl. empty lists, a shape expression over an attribute): extension vs
# reference, legacy and dynamo export checks, opcheck and torch.compile, then the exported models in onnxruntime vs PyTorch.
# Needs build/adapters-out (opforge gen --ops test/fixtures/adapters/ops --out build/adapters-out,
# done by npm test) and ORT headers in .thirdparty/ort-include. Logs to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/opforge-gpu}
mkdir -p "$OUT"
P=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
F=$PWD/test/fixtures/adapters
status=0
cmake -S build/adapters-out/torch -B /tmp/ab -DCMAKE_PREFIX_PATH="$P" -DOPFORGE_PROJECT_ROOT="$F" > "$OUT/fixture-build.log" 2>&1 &&
  cmake --build /tmp/ab -j"$(nproc)" >> "$OUT/fixture-build.log" 2>&1 || status=1
rm -rf /tmp/am
PYTHONPATH=build/adapters-out/python python3 test/python/torch_ops_check.py --library /tmp/ab/libopforge_torch.so --dynamo --compile \
  --save-models /tmp/am > "$OUT/fixture-torch.log" 2>&1 || status=1
cmake -S build/adapters-out -B /tmp/ao -DWITH_ONNXRUNTIME=ON -DONNXRUNTIME_INCLUDE_DIR="$PWD/.thirdparty/ort-include" \
  -DOPFORGE_PROJECT_ROOT="$F" >> "$OUT/fixture-build.log" 2>&1 &&
  cmake --build /tmp/ao --target opforge_ort -j"$(nproc)" >> "$OUT/fixture-build.log" 2>&1 || status=1
python3 scripts/gpu/ort_check.py exported /tmp/ao/ort/libopforge_ort.so --exported /tmp/am > "$OUT/fixture-ort.log" 2>&1 || status=1
tail -n 1 "$OUT/fixture-torch.log" "$OUT/fixture-ort.log"
exit $status
