// The CMakeLists.txt of a backend directory (out/trt, out/ort, out/paddle, out/popart): the static module that
// builds the backend (out/cmake/opforge_<backend>.cmake, which says how to configure), then one
// `opforge_<backend>_add_op(<op> [CUDA])` per op and `opforge_<backend>_finish()`.

import type { ProjectIR } from '../../model/ir.js';
import { type EmitContext, lines, paragraphs } from '../emitter.js';
import { cmakeCommand, cmakeComment, cmakeInclude } from '../lang/cmake.js';

/** `cuda`: whether the backend builds the ops' CUDA kernels too (its add_op takes a CUDA flag). */
export function backendOpList(
  backend: string,
  what: string,
  project: ProjectIR,
  ctx: EmitContext,
  cuda = true,
): string {
  const prefix = `opforge_${backend}`;
  return paragraphs(
    [
      cmakeComment(`${what} for every op, built by out/cmake/${prefix}.cmake (its header says how to configure).`),
      cmakeInclude(`../cmake/${prefix}.cmake`),
    ],
    lines(
      project.ops.map(
        ctx.perOp(`${backend}/CMakeLists.txt`, (op) =>
          cmakeCommand(`${prefix}_add_op`, [op.ident.snake, cuda && op.kernels.cuda && 'CUDA'], op.name),
        ),
      ),
      cmakeCommand(`${prefix}_finish`),
    ),
  );
}
