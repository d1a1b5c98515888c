// out/paddle/CMakeLists.txt (added by out/CMakeLists.txt when WITH_PADDLE is on: the list of ops
// over generator/static/cmake/opforge_paddle.cmake, copied to out/cmake/) and out/paddle/compile.sh. The
// knobs are Paddle-Inference-Demo's: WITH_MKL, WITH_GPU, USE_TENSORRT, LIB_DIR (the
// paddle_inference library), TENSORRT_ROOT, CUDA_LIB, CUDNN_LIB; without LIB_DIR, PADDLE_PYTHON.

import type { ProjectIR } from '../../model/ir.js';
import { lines, type EmitContext } from '../emitter.js';

export function emitPaddleCmake(project: ProjectIR, ctx: EmitContext): string {
  return lines(
    '# Paddle custom ops (PD_BUILD_OP) for every op in one library, opforge_paddle_ops. Configure from out/',
    '# against the paddlepaddle wheel (the library that paddle.utils.cpp_extension would build):',
    '#   cmake -S out -B build -DWITH_PADDLE=ON [-DPADDLE_PYTHON=/path/to/venv/bin/python]',
    "# or against a Paddle Inference library, which adds per op an example like Paddle-Inference-Demo's",
    '# custom_op_test (compile.sh sets this up):',
    '#   cmake -S out -B build -DWITH_PADDLE=ON -DLIB_DIR=/path/to/paddle_inference \\',
    '#         [-DWITH_GPU=ON -DWITH_CUDA=ON] [-DUSE_TENSORRT=ON -DWITH_TENSORRT=ON -DTENSORRT_ROOT=...]',
    '# Python loads a library built either way with opforge_paddle.load() (opforge_paddle.py here).',
    'include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_paddle.cmake")',
    '',
    project.ops.map(
      ctx.perOp(
        'paddle/CMakeLists.txt',
        (op) => `opforge_paddle_add_op(${op.ident.snake}${op.kernels.cuda ? ' CUDA' : ''})  # ${op.name}`,
      ),
    ),
    'opforge_paddle_finish()',
  );
}

export function emitCompileSh(): string {
  return lines(
    "# Builds the Paddle custom-op library and the examples, like Paddle-Inference-Demo's compile.sh.",
    '# Set the knobs below (or in the environment) to match the paddle_inference build (its version.txt).',
    'set -euo pipefail',
    'work_path=$(dirname "$(readlink -f "$0")")',
    '',
    '# WITH_MKL / WITH_GPU / USE_TENSORRT: as version.txt of the inference library says.',
    'WITH_MKL=${WITH_MKL:-ON}',
    'WITH_GPU=${WITH_GPU:-OFF}',
    'USE_TENSORRT=${USE_TENSORRT:-OFF}',
    '',
    '# Root of the inference library (paddle_inference/, holding paddle/include and paddle/lib).',
    'LIB_DIR=${LIB_DIR:-${work_path}/../../paddle_inference}',
    '',
    '# With WITH_GPU or USE_TENSORRT on: where CUDA, cuDNN and TensorRT are.',
    'CUDNN_LIB=${CUDNN_LIB:-/usr/lib/x86_64-linux-gnu/}',
    'CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64}',
    'TENSORRT_ROOT=${TENSORRT_ROOT:-/usr/local/TensorRT}',
    '',
    'BUILD_DIR=${BUILD_DIR:-${work_path}/build}',
    'cmake -S "${work_path}/.." -B "${BUILD_DIR}" \\',
    '  -DWITH_PADDLE=ON \\',
    '  -DLIB_DIR="${LIB_DIR}" \\',
    '  -DWITH_MKL="${WITH_MKL}" \\',
    '  -DWITH_GPU="${WITH_GPU}" \\',
    '  -DWITH_CUDA="${WITH_GPU}" \\',
    '  -DUSE_TENSORRT="${USE_TENSORRT}" \\',
    '  -DWITH_TENSORRT="${USE_TENSORRT}" \\',
    '  -DTENSORRT_ROOT="${TENSORRT_ROOT}" \\',
    '  -DCUDA_LIB="${CUDA_LIB}" \\',
    '  -DCUDNN_LIB="${CUDNN_LIB}"',
    'cmake --build "${BUILD_DIR}" -j',
  );
}
