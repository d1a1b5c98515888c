# Builds the Paddle custom-op library and the examples, like Paddle-Inference-Demo's compile.sh.
# Set the knobs below (or in the environment) to match the paddle_inference build (its version.txt).
set -euo pipefail
work_path=$(dirname "$(readlink -f "$0")")

# WITH_MKL / WITH_GPU / USE_TENSORRT: as version.txt of the inference library says.
WITH_MKL=${WITH_MKL:-ON}
WITH_GPU=${WITH_GPU:-OFF}
USE_TENSORRT=${USE_TENSORRT:-OFF}

# Root of the inference library (paddle_inference/, holding paddle/include and paddle/lib).
LIB_DIR=${LIB_DIR:-${work_path}/../../paddle_inference}

# With WITH_GPU or USE_TENSORRT on: where CUDA, cuDNN and TensorRT are.
CUDNN_LIB=${CUDNN_LIB:-/usr/lib/x86_64-linux-gnu/}
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64}
TENSORRT_ROOT=${TENSORRT_ROOT:-/usr/local/TensorRT}

BUILD_DIR=${BUILD_DIR:-${work_path}/build}
cmake -S "${work_path}/.." -B "${BUILD_DIR}" \
  -DWITH_PADDLE=ON \
  -DLIB_DIR="${LIB_DIR}" \
  -DWITH_MKL="${WITH_MKL}" \
  -DWITH_GPU="${WITH_GPU}" \
  -DWITH_CUDA="${WITH_GPU}" \
  -DUSE_TENSORRT="${USE_TENSORRT}" \
  -DWITH_TENSORRT="${USE_TENSORRT}" \
  -DTENSORRT_ROOT="${TENSORRT_ROOT}" \
  -DCUDA_LIB="${CUDA_LIB}" \
  -DCUDNN_LIB="${CUDNN_LIB}"
cmake --build "${BUILD_DIR}" -j
