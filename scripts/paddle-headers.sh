#!/usr/bin/env bash
# Makes a Paddle source tree usable as an include root for scripts/check-paddle.sh: runs Paddle's
# own API generators (what its CMake does at configure time) to write the generated headers
# paddle/extension.h includes (paddle/phi/api/include/{api,fused_api,sparse_api}.h).
#   scripts/paddle-headers.sh <Paddle source tree>     (needs python3 with PyYAML)
# Handles the 2.x layout (paddle/phi/api/yaml) and the 3.x one (paddle/phi/ops/yaml).
set -euo pipefail
src=${1:?usage: scripts/paddle-headers.sh <Paddle source tree>}
py=${PYTHON:-python3}
inc=$src/paddle/phi/api/include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -d "$src/paddle/phi/ops/yaml" ]; then
  y=$src/paddle/phi/ops/yaml; g=$src/paddle/phi/api/generator
  "$py" "$g/api_gen.py" --api_yaml_path "$y/ops.yaml" "$y/inconsistent/dygraph_ops.yaml" "$y/backward.yaml" "$y/inconsistent/dygraph_backward.yaml" \
    --api_header_path "$inc/api.h" --api_source_path "$tmp/api.cc"
  "$py" "$g/api_gen.py" --api_yaml_path "$y/fused_ops.yaml" "$y/fused_backward.yaml" --is_fused_ops_yaml \
    --api_header_path "$inc/fused_api.h" --api_source_path "$tmp/fused_api.cc"
  "$py" "$g/sparse_api_gen.py" --api_yaml_path "$y/sparse_ops.yaml" "$y/sparse_backward.yaml" \
    --api_header_path "$inc/sparse_api.h" --api_source_path "$tmp/sparse_api.cc"
else
  y=$src/paddle/phi/api/yaml; g=$y/generator
  "$py" "$g/api_gen.py" --api_yaml_path "$y/ops.yaml" "$y/legacy_ops.yaml" \
    --api_header_path "$inc/api.h" --api_source_path "$tmp/api.cc"
  "$py" "$g/api_gen.py" --api_yaml_path "$y/fused_ops.yaml" --is_fused_ops_yaml \
    --api_header_path "$inc/fused_api.h" --api_source_path "$tmp/fused_api.cc"
  "$py" "$g/sparse_api_gen.py" --api_yaml_path "$y/sparse_ops.yaml" \
    --api_header_path "$inc/sparse_api.h" --api_source_path "$tmp/sparse_api.cc"
fi
echo "paddle-headers: wrote $inc/{api,fused_api,sparse_api}.h"
