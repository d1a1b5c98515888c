// out/trt/CMakeLists.txt: added by out/CMakeLists.txt when WITH_TENSORRT is on; the list of ops
// over generator/static/cmake/opforge_trt.cmake (copied to out/cmake/), which builds the per-op OBJECT
// libraries and the two plugin libraries.

import type { ProjectIR } from '../../model/ir.js';
import { lines, type EmitContext } from '../emitter.js';

export function emitCmake(project: ProjectIR, ctx: EmitContext): string {
  return lines(
    '# TensorRT plugins for every op. Configure from out/ with',
    '#   cmake -S out -B build -DWITH_CUDA=ON -DWITH_TENSORRT=ON -DTENSORRT_ROOT=/path/to/TensorRT \\',
    '#         -DCMAKE_CUDA_ARCHITECTURES="80;90"',
    'include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_trt.cmake")',
    '',
    project.ops.map(
      ctx.perOp(
        'trt/CMakeLists.txt',
        (op) => `opforge_trt_add_op(${op.ident.snake}${op.kernels.cuda ? ' CUDA' : ''})  # ${op.name}`,
      ),
    ),
    'opforge_trt_finish()',
  );
}
