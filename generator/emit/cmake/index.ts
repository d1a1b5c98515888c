// The project CMake: a list of the ops over generator/static/cmake/opforge.cmake (copied to out/cmake/),
// whose opforge_add_op() makes each op's kernels object libraries that every backend links, so
// one kernel build serves all backends. The backends' options and directories are the same for every
// project: generator/static/cmake/opforge_backends.cmake.

import type { ProjectIR } from '../../model/ir.js';
import { rootFromOut } from '../../model/ir-helpers.js';
import {
  paragraphs,
  projectFile,
  staticFile,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { cmakeCommand, cmakeComment, cmakeInclude, quoted, varPath } from '../lang/cmake.js';

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
          ],
          op.name,
        ),
      ),
    );
    // Kernel paths are relative to the project root; the root is found relative to this file,
    // wherever `opforge gen --out` put it (out/ beside ops/, inside it, or anywhere else).
    const root = varPath('CMAKE_CURRENT_SOURCE_DIR', rootFromOut(project));
    const body = paragraphs(
      [
        cmakeCommand('cmake_minimum_required', ['VERSION', '3.18']),
        cmakeCommand('project', ['opforge_ops', 'LANGUAGES', 'CXX']),
      ],
      [
        cmakeCommand('set', ['OPFORGE_PROJECT_ROOT', root, 'CACHE', 'PATH', quoted(ROOT_DOC)]),
        cmakeComment(
          'Options (WITH_CUDA, OPFORGE_WERROR, OPFORGE_CCACHE), flags, the opforge_core target, opforge_add_op().',
        ),
        cmakeInclude('cmake/opforge.cmake'),
      ],
      [
        cmakeComment("Every op's kernels, as object libraries the backends link: opforge_<op>_cpu, opforge_<op>_cuda."),
        ...opLines,
        cmakeCommand('opforge_publish_ops'),
      ],
      [
        cmakeComment('The backends: an option each (WITH_TENSORRT, WITH_PADDLE, ...) and its directory.'),
        cmakeInclude('cmake/opforge_backends.cmake'),
      ],
    );
    return [
      projectFile('CMakeLists.txt', body),
      staticFile('cmake/opforge.cmake', 'generator/static/cmake/opforge.cmake'),
      staticFile('cmake/opforge_backends.cmake', 'generator/static/cmake/opforge_backends.cmake'),
    ];
  },
});
