// out/ort/CMakeLists.txt: added by out/CMakeLists.txt when WITH_ONNXRUNTIME is on; the list of
// ops over generator/static/cmake/opforge_ort.cmake (copied to out/cmake/). Builds
//   opforge_ort_<op>  per-op OBJECT libraries (the op's OrtCustomOp instances),
//   opforge_ort       the custom-op library (RegisterCustomOps), which needs the ORT headers
//                     only: it calls the API the runtime hands it and links no libonnxruntime.

import type { ProjectIR } from '../../model/ir.js';
import { backendOpList } from '../cmake/op-list.js';
import type { EmitContext } from '../emitter.js';

export function emitCmake(project: ProjectIR, ctx: EmitContext): string {
  return backendOpList('ort', 'ONNX Runtime custom-op library', project, ctx);
}
