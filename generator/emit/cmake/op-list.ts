// The CMakeLists.txt of a backend directory (out/trt, out/ort, out/paddle, out/popart): the static module that
// builds the backend (out/cmake/opforge_<backend>.cmake, which says how to configure), then one
// `opforge_<backend>_add_op(<op> [CUDA])` per op and `opforge_<backend>_finish()`.

import type { ProjectIR } from '../../model/ir.js';
import { type EmitContext, lines } from '../emitter.js';
import { cmakeCommand } from '../lang/cmake.js';
import { fillTemplate } from '../lang/template.js';
import { hasCudaKernel } from '../../model/ir-helpers.js';

/** `cuda`: whether the backend builds the ops' CUDA kernels too (its add_op takes a CUDA flag). */
export function backendOpList(
  backend: string,
  what: string,
  project: ProjectIR,
  ctx: EmitContext,
  cuda = true,
): string {
  const ops = project.ops.map(
    ctx.perOp(`${backend}/CMakeLists.txt`, (op) =>
      cmakeCommand(`opforge_${backend}_add_op`, [op.ident.snake, cuda && hasCudaKernel(op) && 'CUDA'], op.name),
    ),
  );
  return fillTemplate('generator/static/cmake/backend-ops.cmake.tmpl', { what, backend, ops: lines(ops) });
}
