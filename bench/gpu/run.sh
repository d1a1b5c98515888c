#!/usr/bin/env bash
# GPU benchmark (device machine): opforge kernels vs torch and vs a device-to-device copy.
# Writes $OUT/bench-gpu.txt and prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
mkdir -p build/bench-gpu
nvcc -std=c++17 -O3 -arch=${CUDA_ARCH:-sm_90} -Iout/include bench/gpu/cuda_bench.cu ops/kernels/custom_relu.cu ops/kernels/leaky_relu.cu \
  ops/kernels/dynamic_trt_resize.cu ops/kernels/knn_query.cu -o build/bench-gpu/cuda_bench
build/bench-gpu/cuda_bench | tee "$out/bench-gpu.txt"
python3 bench/gpu/torch_bench.py | tee -a "$out/bench-gpu.txt"
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/bench-gpu.txt"
