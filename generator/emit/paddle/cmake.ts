// out/paddle/CMakeLists.txt: added by out/CMakeLists.txt when WITH_PADDLE is on; the list of ops
// over generator/static/cmake/opforge_paddle.cmake (filled in out/cmake/). Its knobs are
// Paddle-Inference-Demo's: WITH_MKL, WITH_GPU, USE_TENSORRT, LIB_DIR (the paddle_inference
// library), TENSORRT_ROOT, CUDA_LIB, CUDNN_LIB; without LIB_DIR, PADDLE_PYTHON. compile.sh is
// static (generator/static/cmake/paddle-compile.sh).

import type { ProjectIR } from '../../model/ir.js';
import { backendOpList } from '../cmake/op-list.js';
import { paddleLibrary } from './names.js';
import type { EmitContext } from '../emitter.js';

export function emitPaddleCmake(project: ProjectIR, ctx: EmitContext): string {
  return backendOpList(
    'paddle',
    `Paddle custom ops (PD_BUILD_OP; one library, ${paddleLibrary(project.names)})`,
    project,
    ctx,
  );
}
