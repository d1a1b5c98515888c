// Paddle backend: per op, a PD_BUILD_OP custom op over the op core (<op>_op.cc), its
// framework-free glue (<op>_paddle.h), an example like Paddle-Inference-Demo's custom_op_test and a
// README; for the project, the shared bases (bridge.h without Paddle, op_base.h with it), the
// dtype mapping from the type table, the CMake and compile.sh; and the opforge_paddle package
// (load, wrap, one module of checked functions per op). Paddle-TRT runs the ops through the
// Paddle-named plugins the TensorRT backend registers.

import type { OpIR, ProjectIR, ProjectNames } from '../../model/ir.js';
import { paddleOpType } from '../../model/ir-helpers.js';
import { DTYPE_INFO } from '../../model/type-table.js';
import { dtypeMapFunctions } from '../lang/dtype-map.js';
import { cppUnit } from '../lang/cpp.js';
import {
  opFile,
  projectFile,
  staticFile,
  staticFiles,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { mdTemplate, mdText } from '../lang/markdown.js';
import { pluginNames, trtPaths } from '../trt/names.js';
import { emitPaddleCmake } from './cmake.js';
import { emitExample, exampleCase } from './example.js';
import { paddleLibrary, paddlePaths } from './names.js';
import { fillTemplate } from '../lang/template.js';
import { emitPaddleHeader, emitPaddleOp, pdBuildOp } from './op.js';
import { emitPaddleInit, emitPaddleModule, emitPaddleRuntime } from './python.js';
import { sharedPythonFiles } from '../lang/py-shared.js';

export { paddleLibrary, paddlePaths } from './names.js';

function emitDtypeHeader(): string {
  return cppUnit({
    comment: 'paddle::DataType <-> opforge::DType, from the type table.',
    header: true,
    includes: { external: ['"paddle/extension.h"'], project: ['opforge/core.h'] },
    namespace: 'opforge::paddle_bridge',
    body: dtypeMapFunctions({
      name: 'Paddle',
      type: '::paddle::DataType',
      of: (d) => `::${DTYPE_INFO[d].paddle}`,
      unmatched: 'Paddle dtypes opforge has no counterpart for (complex, float8, ...)',
      undefinedValue: '::paddle::DataType::UNDEFINED',
    }),
  });
}

/** out/paddle/<op>/README.md: generator/static/md/paddle-op-readme.md with the op's names. */
function emitReadme(op: OpIR, names: ProjectNames): string {
  const n = pluginNames(op);
  const t = exampleCase(op);
  return mdTemplate('paddle-op-readme.md', {
    package: names.paddlePackage,
    library: paddleLibrary(names),
    name: op.name,
    type: paddleOpType(op),
    snake: op.ident.snake,
    description: mdText(op.description),
    buildOp: pdBuildOp(op),
    args: [...op.inputs, ...op.attributes].map((x) => x.name).join(', '),
    cpuKernel: op.kernels.cpu,
    exampleCase: t
      ? `It feeds spec test case ${t.index} and checks every output's shape against the op core.`
      : 'No spec test case has only host-copyable dtypes: the example only says so.',
    paddleDynamic: n.paddleDynamic,
    paddleStatic: n.paddleStatic,
    trtDir: trtPaths(op).dir,
  });
}

export const paddleEmitter: Emitter = defineEmitter({
  name: 'paddle',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    const { names } = project;
    const pkg = `paddle/${names.paddlePackage}`;
    const cmake = 'generator/static/cmake/opforge_paddle.cmake';
    return [
      ...staticFiles('paddle/include/opforge/paddle', 'generator/static/cpp/opforge/paddle', '.h'),
      projectFile('paddle/include/opforge/paddle/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('paddle/CMakeLists.txt', emitPaddleCmake(project, ctx)),
      // The library's and package's names are the project's (slots): two projects' builds coexist.
      projectFile(
        'cmake/opforge_paddle.cmake',
        fillTemplate(cmake, { library: paddleLibrary(names), package: names.paddlePackage }),
        cmake,
      ),
      staticFile('paddle/compile.sh', 'generator/static/cmake/paddle-compile.sh'),
      projectFile(`${pkg}/_runtime.py`, emitPaddleRuntime(names), 'generator/model/type-table.ts'),
      ...sharedPythonFiles(pkg),
      projectFile(`${pkg}/__init__.py`, emitPaddleInit(project.ops, names)),
      projectFile(`${pkg}/ops/__init__.py`, '"""One module per op (generated from the specs)."""'),
    ];
  },
  op(op: OpIR, project: ProjectIR): GeneratedFile[] {
    const p = paddlePaths(op, project.names);
    return [
      opFile(op, p.header, emitPaddleHeader(op)),
      opFile(op, p.op, emitPaddleOp(op, project.ops)),
      opFile(op, p.example, emitExample(op)),
      opFile(op, p.readme, emitReadme(op, project.names)),
      opFile(op, p.module, emitPaddleModule(op)),
    ];
  },
});
