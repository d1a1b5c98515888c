// out/ort/CMakeLists.txt: added by out/CMakeLists.txt when WITH_ONNXRUNTIME is on; the list of
// ops over generator/static/cmake/opforge_ort.cmake (copied to out/cmake/). Builds
//   opforge_ort_<op>  per-op OBJECT libraries (the op's OrtCustomOp instances),
//   opforge_ort       the custom-op library (RegisterCustomOps), which needs the ORT headers
//                     only: it calls the API the runtime hands it and links no libonnxruntime.

import type { ProjectIR } from '../../model/ir.js';
import { lines, type EmitContext } from '../emitter.js';

export function emitCmake(project: ProjectIR, ctx: EmitContext): string {
  return lines(
    '# ONNX Runtime custom-op library for every op. Configure from out/ with',
    '#   cmake -S out -B build -DWITH_ONNXRUNTIME=ON -DONNXRUNTIME_ROOT=/path/to/onnxruntime [-DWITH_CUDA=ON]',
    '# ONNXRUNTIME_ROOT holds include/ (or include/onnxruntime/) with onnxruntime_cxx_api.h; or set',
    '# ONNXRUNTIME_INCLUDE_DIR to the directory holding the headers. The library links no libonnxruntime.',
    'include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_ort.cmake")',
    '',
    project.ops.map(
      ctx.perOp(
        'ort/CMakeLists.txt',
        (op) => `opforge_ort_add_op(${op.ident.snake}${op.kernels.cuda ? ' CUDA' : ''})  # ${op.name}`,
      ),
    ),
    'opforge_ort_finish()',
  );
}
