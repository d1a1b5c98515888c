// The project CMake: a list of the ops over generator/static/cmake/opforge.cmake (copied to out/cmake/),
// whose opforge_add_op() makes each op's kernels object libraries that every backend links, so
// one kernel build serves all backends. The backends' options and directories are the same for every
// project: generator/static/cmake/opforge_backends.cmake.

import type { ProjectIR } from '../../model/ir.js';
import { rootFromOut } from '../../model/ir-helpers.js';
import {
  lines,
  projectFile,
  staticFile,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { cmakeCommand, quoted, varPath } from '../lang/cmake.js';
import { fillTemplate } from '../lang/template.js';

const ROOT_DOC = 'Project root, the directory holding the ops dir (kernel paths are relative to it)';

export const cmakeEmitter: Emitter = defineEmitter({
  name: 'cmake',
  op: () => [],
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    // One line per op: its snake name and kernel paths (relative to the project root).
    const opLines = project.ops.map(
      ctx.perOp('CMakeLists.txt', (op) =>
        cmakeCommand(
          'opforge_add_op',
          [
            op.ident.snake,
            'CPU',
            quoted(op.kernels.cpu),
            ...(op.kernels.cuda ? ['CUDA', quoted(op.kernels.cuda)] : []),
            ...(op.kernels.triton ? ['TRITON', quoted(op.kernels.triton.source)] : []),
          ],
          op.name,
        ),
      ),
    );
    // Kernel paths are relative to the project root; the root is found relative to this file,
    // wherever `opforge gen --out` put it (out/ beside ops/, inside it, or anywhere else).
    const root = varPath('CMAKE_CURRENT_SOURCE_DIR', rootFromOut(project));
    const body = fillTemplate('generator/static/cmake/CMakeLists.txt.tmpl', {
      setRoot: cmakeCommand('set', ['OPFORGE_PROJECT_ROOT', root, 'CACHE', 'PATH', quoted(ROOT_DOC)]),
      ops: lines(opLines),
    });
    return [
      projectFile('CMakeLists.txt', body),
      staticFile('cmake/opforge.cmake', 'generator/static/cmake/opforge.cmake'),
      staticFile('cmake/opforge_backends.cmake', 'generator/static/cmake/opforge_backends.cmake'),
    ];
  },
});
