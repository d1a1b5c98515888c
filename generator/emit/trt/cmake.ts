// out/trt/CMakeLists.txt: added by out/CMakeLists.txt when WITH_TENSORRT is on; the list of ops
// over generator/static/cmake/opforge_trt.cmake (copied to out/cmake/), which builds the per-op OBJECT
// libraries and the two plugin libraries.

import type { ProjectIR } from '../../model/ir.js';
import { backendOpList } from '../cmake/op-list.js';
import type { EmitContext } from '../emitter.js';

export function emitCmake(project: ProjectIR, ctx: EmitContext): string {
  return backendOpList('trt', 'TensorRT plugins', project, ctx);
}
