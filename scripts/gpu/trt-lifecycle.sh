#!/usr/bin/env bash
# On the GPU machine (no TensorRT library there): drive every generated TensorRT plugin through
# its lifecycle without libnvinfer and compare enqueue on device buffers with the CPU kernel, for
# each spec `tests:` case; per op, check that the dtypes this TensorRT cannot carry are refused.
# Needs TensorRT headers: TRT_INCLUDE is one include dir or a colon-separated list (e.g.
# .thirdparty/trt-10.16/include:.thirdparty/trt-8.6.1/include); IPluginV3 runs with 10+ headers,
# IPluginV2DynamicExt / IPluginV2Ext with all.
#   scripts/gpu/trt-lifecycle.sh [--ops DIR] [--out DIR]     (default: the seed ops; scripts/gpu/ops-args.sh)
# Run from the repo root after `source .carry/setup.sh`; writes $OUT/trt-lifecycle-<tag>.log
# (<tag>: the include dir's parent, prefixed with the project name for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
out=${OUT:-/tmp}
mkdir -p "$out"
: "${TRT_INCLUDE:=.thirdparty/trt-10.16/include}"
prefix=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
rc=0
IFS=: read -ra dirs <<<"$TRT_INCLUDE"
for inc in "${dirs[@]}"; do
  [ -f "$inc/NvInferRuntime.h" ] || { echo "trt-lifecycle: no NvInferRuntime.h in $inc" | tee -a "$out/trt-lifecycle.log"; rc=1; continue; }
  tag=$prefix$(basename "$(dirname "$inc")")
  node dist/test/gpu/trt-lifecycle.js "$inc" "build/trt-lifecycle/$tag" --ops "$OPS" --out "$GEN_OUT" 2>&1 | tee "$out/trt-lifecycle-$tag.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  # The same headers, every generated unit under -Wall -Wextra -Werror with the machine's g++.
  OPFORGE_OUT=$GEN_OUT scripts/check-trt.sh "$inc" "build/check-trt/$tag" 2>&1 | tail -3 | tee -a "$out/trt-lifecycle-$tag.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
exit $rc
