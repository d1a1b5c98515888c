#!/usr/bin/env bash
# GPU machine (jax with the CUDA 13 plugin, torch+cu130, nvcc 13): the JAX backend's CUDA path.
#  1. builds libopforge_jax_ops with the CUDA handlers (WITH_JAX=ON WITH_CUDA=ON) against python3's jaxlib;
#  2. test/python/jax_api_check.py on the GPU (JAX's default device there): jit, vmap, grad,
#     export and the error paths through the CUDA handlers (PlatformStream, the scratch allocator);
#  3. `opforge test --backend jax --device cuda` (Node from .carry/setup.sh): every seed case under
#     jit and vmap on the GPU (jax:cuda) and jax.vjp through the backward (jax-grad:cuda) against
#     the reference;
#  4. the CUDA relu at 2^28 float32 through JAX, through the PyTorch extension and jax.nn.relu
#     (bench/python/jax_call.py), and the 1000-float call overhead on cpu and cuda.
# Run from the repo root (or as `bash scripts/gpu/check.sh jax`); logs to $OUT/jax-*.log. The
# Python: $OPFORGE_PYTHON (default python3).
set -uo pipefail
out=${OUT:-/tmp}
mkdir -p "$out"
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # JAX and torch share the GPU in one process (the bench)
export TF_CPP_MIN_LOG_LEVEL=2
rc=0
py=$(command -v "${OPFORGE_PYTHON:-python3}")
"$py" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__, jax.devices())' > "$out/jax-env.log" 2>&1 || { cat "$out/jax-env.log"; exit 1; }
b=build/jax-gpu
{ cmake -S out -B "$b" -DCMAKE_BUILD_TYPE=Release -DWITH_JAX=ON -DWITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DJAX_PYTHON="$py" -DOPFORGE_PROJECT_ROOT="$PWD" \
    && cmake --build "$b" --target opforge_jax_ops -j "$(nproc)"; } > "$out/jax-build.log" 2>&1 || { tail -n 30 "$out/jax-build.log"; exit 1; }
lib=$b/jax/libopforge_jax_ops.so

# 2. the API checks on the GPU, with a library recording a newer jaxlib for the mismatch error
mkdir -p "$b/fake-newer"
inc=$("$py" -c 'import jax.ffi; print(jax.ffi.include_dir())')
g++ -std=c++17 -shared -fPIC -Wall -Wextra -Werror -isystem "$inc" -DOPFORGE_JAX_JAXLIB_VERSION='"99.0.0"' out/jax/build_info.cc -o "$b/fake-newer/libopforge_jax_ops.so" || rc=1
"$py" test/python/jax_api_check.py out/jax "$lib" "$b/fake-newer/libopforge_jax_ops.so" > "$out/jax-api-gpu.log" 2>&1 || rc=1

# 3. opforge test's JAX columns on CUDA (builds build/jax with WITH_CUDA itself)
# shellcheck disable=SC1091
[ -f .carry/setup.sh ] && ! command -v node > /dev/null && source .carry/setup.sh
if command -v node > /dev/null; then
  OPFORGE_PYTHON="$py" node dist/cli/opforge.js test --backend jax --device cuda > "$out/jax-opforge-test-cuda.log" 2>&1 || rc=1
else
  echo "no node (source .carry/setup.sh): opforge test skipped" > "$out/jax-opforge-test-cuda.log"; rc=1
fi

# 4. the bench: the torch extension with CUDA for the torch comparison, then 2^28 floats and the call overhead
tb=build/torch-jax-bench
prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')
{ cmake -S out/torch -B "$tb" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DPython3_EXECUTABLE="$py" \
    -DOPFORGE_PROJECT_ROOT="$PWD" -DWITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build "$tb" -j "$(nproc)"; } > "$out/jax-torch-build.log" 2>&1 || rc=1
"$py" bench/python/jax_call.py --package out/jax --library "$lib" --device cuda --n 268435456 --calls 20 --repeat 7 --torch-library "$tb/libopforge_torch.so" > "$out/jax-bench-cuda-2e28.log" 2>&1 || rc=1
for d in cpu cuda; do
  "$py" bench/python/jax_call.py --package out/jax --library "$lib" --device "$d" > "$out/jax-bench-$d-1000.log" 2>&1 || rc=1
done
tail -n 12 "$out"/jax-*.log
exit $rc
