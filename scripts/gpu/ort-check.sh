#!/usr/bin/env bash
# On the GPU machine (onnxruntime 1.30 for Python, CPU build; nvcc; cmake): builds the ONNX
# Runtime custom-op library twice (CPU only, and WITH_CUDA so the CUDA-EP kernels compile with
# nvcc and link), then runs every op's spec test cases as ONNX models through Python
# onnxruntime with SessionOptions.register_custom_ops_library against numpy references (seed ops)
# or the spec's PyTorch reference (other ops; needs torch), with both libraries.
#   scripts/gpu/ort-check.sh [--ops DIR] [--out DIR]   (default: the seed ops; scripts/gpu/ops-args.sh)
# Run from the repo root after `source .carry/setup.sh` (dist/ carried).
# ORT headers: $ORT_INCLUDE_DIR, default .thirdparty/ort-include, else the com.github.asus4.onnxruntime
# package's headers if node_modules has it. Writes $OUT/ort-check.log (<project>-ort-check.log for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
out=${OUT:-/tmp}
mkdir -p "$out"
p=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
b=$([ "$SEED" = 1 ] && echo build || echo "build/gpu/$(basename "$PROJECT")")
log="$out/${p}ort-check.log"
: > "$log"
say() { echo "$*" | tee -a "$log"; }
py=${PYTHON:-python3}
inc=${ORT_INCLUDE_DIR:-}
if [ -z "$inc" ]; then
  for d in .thirdparty/ort-include .thirdparty/ort-include/include "node_modules/com.github.asus4.onnxruntime/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers"; do
    if [ -f "$d/onnxruntime_cxx_api.h" ]; then inc=$d; break; fi
  done
fi
if [ -z "$inc" ] || [ ! -f "$inc/onnxruntime_cxx_api.h" ]; then say "no ORT headers: set ORT_INCLUDE_DIR"; exit 2; fi
inc=$(cd "$inc" && pwd)
say "headers: $inc ($(grep -m1 '#define ORT_API_VERSION' "$inc/onnxruntime_c_api.h"))"
say "ops: $OPS -> $GEN_OUT"
status=0
build() {  # build <dir> <extra cmake args...>
  local dir=$1; shift
  cmake -S "$GEN_OUT" -B "$dir" -DWITH_ONNXRUNTIME=ON -DONNXRUNTIME_INCLUDE_DIR="$inc" -DOPFORGE_PROJECT_ROOT="$PROJECT" \
    -DCMAKE_BUILD_TYPE=Release "$@" >>"$log" 2>&1 &&
    cmake --build "$dir" --target opforge_ort -j "$(nproc)" >>"$log" 2>&1
}
if build $b/ort-gpu; then say "built $b/ort-gpu/ort/libopforge_ort.so (CPU kernels)"; else say "FAIL: CPU build"; status=1; fi
if build $b/ort-gpu-cuda -DWITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90; then
  say "built $b/ort-gpu-cuda/ort/libopforge_ort.so (CPU + CUDA EP kernels, nvcc $(nvcc --version | grep -o 'release [0-9.]*'))"
  nm -D --defined-only $b/ort-gpu-cuda/ort/libopforge_ort.so | grep ' T ' | tee -a "$log"
else
  say "FAIL: WITH_CUDA build"; status=1
fi
node dist/test/gpu/ort-cases.js $b/ort-cases --ops "$OPS" --out "$GEN_OUT" 2>&1 | tee -a "$log" || status=1
libs=()
for l in $b/ort-gpu/ort/libopforge_ort.so $b/ort-gpu-cuda/ort/libopforge_ort.so; do [ -f "$l" ] && libs+=("$PWD/$l"); done
if [ ${#libs[@]} -gt 0 ]; then
  "$py" scripts/gpu/ort_check.py cases "${libs[@]}" --cases $b/ort-cases --python "$GEN_OUT/python" --log "$log" || status=1
else
  status=1
fi
say "ort-check exit $status"
exit $status
