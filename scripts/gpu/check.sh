#!/usr/bin/env bash
# Everything the GPU machine verifies (CI has no GPU; docs/gpu.md). Run from the repo root after
# `source .carry/setup.sh` (Node on PATH, dist/ built). Each part writes $OUT/<part>-*.log; one
# line per command (exit status, seconds) goes to $OUT/check.log. Exits 1 when any command failed.
#   bash scripts/gpu/check.sh [part...]       (default: every part, in this order)
# Parts (later ones use the CUDA builds earlier ones leave; run `seed` and `fixtures` first):
#   seed       opforge test on the seed ops on the CPU (with torch 2.x's ort-dynamo column), then
#              --device cuda: node:cuda, torch:cuda, grad:cuda, ort, ort-legacy, ort-dynamo, serialize
#   fixtures   opforge test --device cuda on each project of $PROJECTS (ops without kernels.cuda:
#              their device columns skipped by name)
#   node       the Node addon beyond the spec cases (test/gpu/node-cuda.ts: KNN k = 1..1024 with
#              ties and NaN, a device-resident chain, async, freed and mixed tensors, out of memory)
#   torch      test/python/torch_ops_check.py with the CUDA extensions built above (on CUDA and on the
#              CPU) and without them: opcheck, torch.compile, both exporters (attributes, symbolic
#              dims, the full checker), the Python entry and its fallbacks
#   grad       test/python/grad_check.py and grad_compile_check.py: CUDA, CPU, no extension
#   device     test/python/torch_device_check.py: CUDA tensors to ops without kernels.cuda, and to
#              an extension built without CUDA: the named error
#   trt        per header dir of $TRT_INCLUDE: opforge test --backend trt --device cuda (the seed
#              ops and $PROJECTS), then every generated TensorRT unit under -Werror
#   specspace  the spec-space corpus, seeds 1..44, through opforge test --device cuda (long.js)
#   user-ops   test/fixtures/user-ops/gpu-check.sh (its CUDA kernels beyond the spec cases)
#   ort-cuda   opforge test --device cuda --backend ort,export on the seed ops and each project of
#              $PROJECTS with ONNXRUNTIME_ROOT an onnxruntime-gpu install: the ort:cuda, ort-legacy:cuda
#              and ort-dynamo:cuda columns (the CUDA-EP kernels under ORT's CUDA EP; docs/ort.md)
#              (ORT_CUDA_BACKENDS: the --backend list, default ort,export)
#   jax        scripts/gpu/jax-check.sh: the JAX library with the CUDA handlers, its API checks on
#              the GPU, opforge test --backend jax --device cuda, the relu bench at 2^28 floats
#   npm        scripts/gpu/npm-check.sh: opforge package npm --cuda, unpacked into a project, every
#              seed op with float32 inputs on CUDA against the CPU kernel, only node on PATH
#   wheel      scripts/gpu/wheel-check.sh: opforge package --cuda --jax, installed in a fresh venv,
#              every spec case on CUDA and the CPU with no compiler on PATH
# Environment: OUT (default /tmp/opforge-gpu); OPFORGE_PYTHON (default python3: torch with CUDA,
# onnx, onnxscript); PROJECTS (default: the user-ops, adapters and dtypes fixtures; any ops dirs);
# TRT_INCLUDE (default .thirdparty/trt-11.1/include:.thirdparty/trt-10.16/include:.thirdparty/trt-8.6.1/include);
# ORT_INCLUDE_DIR (default .thirdparty/ort-include).
set -uo pipefail
repo=$PWD
export OUT=${OUT:-/tmp/opforge-gpu}
export OPFORGE_PYTHON=${OPFORGE_PYTHON:-python3}
export ORT_INCLUDE_DIR=${ORT_INCLUDE_DIR:-$repo/.thirdparty/ort-include}
PY=$OPFORGE_PYTHON
PROJECTS=${PROJECTS:-test/fixtures/user-ops/ops test/fixtures/adapters/ops test/fixtures/dtypes/ops}
TRT_INCLUDE=${TRT_INCLUDE:-.thirdparty/trt-11.1/include:.thirdparty/trt-10.16/include:.thirdparty/trt-8.6.1/include}
opforge="node $repo/dist/cli/opforge.js"
mkdir -p "$OUT"
rc=0

# onnxruntime-node's library may travel xz-compressed next to where it belongs.
lib=node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
[ -f "$lib" ] || [ ! -f "$lib.xz" ] || "$PY" -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1] + '.xz'), open(sys.argv[1], 'wb'))" "$lib"

run() {  # run <log name> <command...>: the command's output to $OUT/<log name>.log
  local name=$1; shift
  local t0=$SECONDS
  "$@" > "$OUT/$name.log" 2>&1
  local s=$?
  echo "$name: exit $s, $((SECONDS - t0)) s" | tee -a "$OUT/check.log"
  [ $s = 0 ] || rc=1
}

# A project of $PROJECTS: its name, root (kernel paths are relative to it) and generated out/.
project() {  # project <ops dir>: sets P_NAME P_ROOT P_OPS P_OUT
  P_OPS=$(cd "$1" && pwd)
  P_ROOT=$(dirname "$P_OPS")
  P_NAME=$(basename "$P_ROOT")
  P_OUT=$repo/build/gpu/$P_NAME/out
}

in_project() {  # in_project <command...>: run in the project's root
  (cd "$P_ROOT" && "$@")
}

part_seed() {
  run seed-cpu $opforge test
  run seed-cuda $opforge test --device cuda
}

part_fixtures() {
  for ops in $PROJECTS; do
    project "$ops"
    run "fixture-$P_NAME-cuda" in_project $opforge test --ops "$P_OPS" --out "$P_OUT" --device cuda
  done
}

part_node() {
  run node-extras node dist/test/gpu/node-cuda.js
}

part_torch() {
  local flags=(--dynamo --compile)
  run torch-seed-cuda env PYTHONPATH=out/python "$PY" test/python/torch_ops_check.py --library build/torch/libopforge_torch.so --device cuda "${flags[@]}"
  run torch-seed-cpu env PYTHONPATH=out/python "$PY" test/python/torch_ops_check.py --library build/torch/libopforge_torch.so --device cpu "${flags[@]}"
  run torch-seed-reference env PYTHONPATH=out/python "$PY" test/python/torch_ops_check.py "${flags[@]}"
  for ops in $PROJECTS; do
    project "$ops"
    run "torch-$P_NAME-cuda" "$PY" test/python/torch_ops_check.py --ops "$P_OPS" --out "$P_OUT" \
      --library "$P_ROOT/build/torch/libopforge_torch.so" --device cuda "${flags[@]}"
    run "torch-$P_NAME-reference" "$PY" test/python/torch_ops_check.py --ops "$P_OPS" --out "$P_OUT" "${flags[@]}"
  done
}

part_grad() {
  local lib=build/torch/libopforge_torch.so  # the CUDA build `seed` left
  for a in "--library $lib --device cuda" "--library $lib --device cpu" "--device cpu"; do
    local tag
    tag=$(echo "$a" | sed 's|build/torch/libopforge_torch.so|ext|; s/--library //; s/--device //; s/ /-/g')
    # shellcheck disable=SC2086 # $a is an argument list
    run "grad-check-$tag" env PYTHONPATH=out/python "$PY" test/python/grad_check.py $a
    # shellcheck disable=SC2086
    run "grad-compile-$tag" env PYTHONPATH=out/python "$PY" test/python/grad_compile_check.py $a
  done
}

part_device() {
  local prefix b=build/gpu/device
  prefix=$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
  # test/fixtures/edges: no op has kernels.cuda; the extension built with CUDA all the same.
  run device-gen node dist/cli/opforge.js gen --quiet --ops test/fixtures/edges/ops --out $b/edges-out
  run device-build-edges-cuda bash -c "cmake -S $b/edges-out/torch -B $b/edges-cuda -DCMAKE_PREFIX_PATH='$prefix' -DOPFORGE_PROJECT_ROOT=$repo/test/fixtures/edges -DWITH_CUDA=ON && cmake --build $b/edges-cuda -j$(nproc)"
  run device-no-kernel env PYTHONPATH=$b/edges-out/python "$PY" test/python/torch_device_check.py no-kernel $b/edges-cuda/libopforge_torch.so const_fill segment_sum list_scale
  # The seed ops (all have kernels.cuda) in an extension built without CUDA.
  run device-build-seed-cpu bash -c "cmake -S out/torch -B $b/seed-cpu -DCMAKE_PREFIX_PATH='$prefix' -DOPFORGE_PROJECT_ROOT=$repo -DWITH_CUDA=OFF && cmake --build $b/seed-cpu -j$(nproc)"
  run device-no-cuda-build env PYTHONPATH=out/python "$PY" test/python/torch_device_check.py no-cuda-build $b/seed-cpu/libopforge_torch.so custom_relu my_add
}

part_trt() {
  local inc tag dirs
  IFS=: read -ra dirs <<<"$TRT_INCLUDE"
  for inc in "${dirs[@]}"; do
    if [ ! -f "$inc/NvInferRuntime.h" ]; then
      echo "trt: no NvInferRuntime.h in $inc" | tee -a "$OUT/check.log"; rc=1; continue
    fi
    inc=$(cd "$inc" && pwd)
    tag=$(basename "$(dirname "$inc")")
    run "trt-seed-$tag" env TENSORRT_INCLUDE_DIR="$inc" $opforge test --backend trt --device cuda
    cat build/test/trt/driver.log >> "$OUT/trt-seed-$tag.log"
    run "trt-seed-$tag-werror" scripts/check-trt.sh "$inc" "build/check-trt/$tag"
    for ops in $PROJECTS; do
      project "$ops"
      run "trt-$P_NAME-$tag" in_project env TENSORRT_INCLUDE_DIR="$inc" $opforge test --ops "$P_OPS" --out "$P_OUT" --backend trt --device cuda
      cat "$P_ROOT/build/test/trt/driver.log" >> "$OUT/trt-$P_NAME-$tag.log"
      run "trt-$P_NAME-$tag-werror" env OPFORGE_OUT="$P_OUT" scripts/check-trt.sh "$inc" "build/check-trt/$P_NAME-$tag"
    done
  done
}

part_specspace() {
  run specspace node dist/test/specspace/long.js --from 1 --count 44 --batch 44 --backends node,torch,jax --cuda --dir build/specspace-gpu --keep
}

part_user_ops() {
  run user-ops bash test/fixtures/user-ops/gpu-check.sh
}

part_ort_cuda() {
  local lib
  lib=$(node -e "import('$repo/dist/runtime/ort.js').then((m) => console.log(m.cudaProviderOf(m.onnxruntimeLibrary()) ?? ''))" 2>&1)
  if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    echo "ort-cuda: no CUDA execution provider: ONNXRUNTIME_ROOT must name an onnxruntime-gpu install ($lib)" | tee -a "$OUT/check.log"; rc=1; return
  fi
  local backends=${ORT_CUDA_BACKENDS:-ort,export}
  run ort-cuda-seed $opforge test --device cuda --backend "$backends"
  for ops in $PROJECTS; do
    project "$ops"
    run "ort-cuda-$P_NAME" in_project $opforge test --ops "$P_OPS" --out "$P_OUT" --device cuda --backend "$backends"
  done
}

part_jax() {
  run jax bash scripts/gpu/jax-check.sh
}

part_npm() {
  run npm bash scripts/gpu/npm-check.sh
}

part_wheel() {
  run wheel bash scripts/gpu/wheel-check.sh
}

parts=("$@")
# ort-cuda is asked for by name: it needs an onnxruntime-gpu install (ONNXRUNTIME_ROOT).
[ ${#parts[@]} -gt 0 ] || parts=(seed fixtures node torch grad device trt specspace user-ops jax wheel npm)
for p in "${parts[@]}"; do
  if ! declare -F "part_${p//-/_}" > /dev/null; then echo "check.sh: no part $p" >&2; exit 2; fi
  "part_${p//-/_}"
done
echo "check.sh ${parts[*]}: $([ $rc = 0 ] && echo 'every command passed' || echo 'FAILED (see check.log)')" | tee -a "$OUT/check.log"
exit $rc
