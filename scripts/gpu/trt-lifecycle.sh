#!/usr/bin/env bash
# On the GPU machine (no TensorRT library there): `opforge test --backend trt --device cuda` per
# TensorRT header set: every generated plugin driven through its lifecycle without libnvinfer
# (runtime/testing/trt.ts), enqueue on device buffers compared with the CPU kernel, for each spec
# `tests:` case; per op, the dtypes this TensorRT cannot carry are refused. Then every generated
# TensorRT unit under -Wall -Wextra -Werror (scripts/check-trt.sh).
# TRT_INCLUDE is one include dir or a colon-separated list (e.g.
# .thirdparty/trt-10.16/include:.thirdparty/trt-8.6.1/include); IPluginV3 runs with 10+ headers,
# IPluginV2DynamicExt / IPluginV2Ext with all.
#   scripts/gpu/trt-lifecycle.sh [--ops DIR] [--out DIR]     (default: the seed ops; scripts/gpu/ops-args.sh)
# Run from the repo root after `source .carry/setup.sh`; writes $OUT/trt-lifecycle-<tag>.log
# (<tag>: the include dir's parent, prefixed with the project name for other ops).
set -uo pipefail
source "$(dirname "$0")/ops-args.sh"
out=${OUT:-/tmp}
mkdir -p "$out"
repo=$PWD
: "${TRT_INCLUDE:=.thirdparty/trt-10.16/include}"
prefix=$([ "$SEED" = 1 ] && echo "" || echo "$(basename "$PROJECT")-")
rc=0
IFS=: read -ra dirs <<<"$TRT_INCLUDE"
for inc in "${dirs[@]}"; do
  [ -f "$inc/NvInferRuntime.h" ] || { echo "trt-lifecycle: no NvInferRuntime.h in $inc" | tee -a "$out/trt-lifecycle.log"; rc=1; continue; }
  inc=$(cd "$inc" && pwd)
  tag=$prefix$(basename "$(dirname "$inc")")
  log="$out/trt-lifecycle-$tag.log"
  (cd "$PROJECT" && TENSORRT_INCLUDE_DIR=$inc node "$repo/dist/cli/opforge.js" test --ops "$OPS" --out "$GEN_OUT" --backend trt --device cuda) > "$log" 2>&1 || rc=1
  cat "$PROJECT/build/test/trt/driver.log" >> "$log"
  tail -n 3 "$log"
  # The same headers, every generated unit under -Wall -Wextra -Werror with the machine's g++.
  OPFORGE_OUT=$GEN_OUT scripts/check-trt.sh "$inc" "build/check-trt/$tag" 2>&1 | tail -3 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
done
exit $rc
