#!/usr/bin/env bash
# GPU machine: the PyTorch and ONNX Runtime backends over one ops dir, by default
# test/fixtures/adapters (an optional input, all six attribute types incl. empty lists, a shape
# expression over an attribute): extension vs reference, legacy and dynamo export checks, opcheck
# and torch.compile, then the exported models in onnxruntime vs PyTorch.
#   scripts/gpu/torch-fixture-check.sh [--ops DIR] [--out DIR]   (scripts/gpu/ops-args.sh)
# Needs ORT headers in .thirdparty/ort-include (or ORT_INCLUDE_DIR); CHECK_FLAGS as torch-check.sh.
# Logs to $OUT as <project>-fixture-*.log.
set -uo pipefail
source "$(dirname "$0")/ops-args.sh" --ops test/fixtures/adapters/ops "$@"
OUT=${OUT:-/tmp/opforge-gpu}
PY=${PYTHON:-python3}
CHECK_FLAGS=${CHECK_FLAGS---dynamo --compile}
mkdir -p "$OUT"
n=$(basename "$PROJECT")
b=build/gpu/$n
inc=$(cd "${ORT_INCLUDE_DIR:-.thirdparty/ort-include}" && pwd)
P=$($PY -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
status=0
echo "ops: $OPS -> $GEN_OUT" > "$OUT/$n-fixture-build.log"
cmake -S "$GEN_OUT/torch" -B "$b/torch-cpu" -DCMAKE_PREFIX_PATH="$P" -DOPFORGE_PROJECT_ROOT="$PROJECT" >> "$OUT/$n-fixture-build.log" 2>&1 &&
  cmake --build "$b/torch-cpu" -j"$(nproc)" >> "$OUT/$n-fixture-build.log" 2>&1 || status=1
rm -rf "$b/models"
# shellcheck disable=SC2086 # CHECK_FLAGS is a flag list
$PY test/python/torch_ops_check.py --ops "$OPS" --out "$GEN_OUT" --library "$b/torch-cpu/libopforge_torch.so" $CHECK_FLAGS \
  --save-models "$b/models" > "$OUT/$n-fixture-torch.log" 2>&1 || status=1
cmake -S "$GEN_OUT" -B "$b/ort-cpu" -DWITH_ONNXRUNTIME=ON -DONNXRUNTIME_INCLUDE_DIR="$inc" \
  -DOPFORGE_PROJECT_ROOT="$PROJECT" >> "$OUT/$n-fixture-build.log" 2>&1 &&
  cmake --build "$b/ort-cpu" --target opforge_ort -j"$(nproc)" >> "$OUT/$n-fixture-build.log" 2>&1 || status=1
$PY scripts/gpu/ort_check.py exported "$PWD/$b/ort-cpu/ort/libopforge_ort.so" --exported "$b/models" > "$OUT/$n-fixture-ort.log" 2>&1 || status=1
tail -n 1 "$OUT/$n-fixture-torch.log" "$OUT/$n-fixture-ort.log"
exit $status
