// Paddle backend: per op, a PD_BUILD_OP custom op over the op core (<op>_op.cc), its
// framework-free glue (<op>_paddle.h), an example like Paddle-Inference-Demo's custom_op_test and a
// README; for the project, the shared bases (bridge.h without Paddle, op_base.h with it), the
// dtype mapping from the type table, the CMake and compile.sh. Paddle-TRT runs the ops through the
// Paddle-named plugins the TensorRT backend registers.

import type { OpIR, ProjectIR } from '../../model/ir.js';
import { paddleOpType } from '../../model/ir-helpers.js';
import { DTYPES, DTYPE_INFO } from '../../model/type-table.js';
import {
  lines,
  opFile,
  projectFile,
  staticFile,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { commentText } from '../lang/literals.js';
import { pluginNames, trtPaths } from '../trt/names.js';
import { emitPaddleCmake } from './cmake.js';
import { emitExample, exampleCase } from './example.js';
import { paddlePaths } from './names.js';
import { emitPaddleHeader, emitPaddleOp, paddleAttrString } from './op.js';

export { paddlePaths } from './names.js';

const SHARED = ['bridge.h', 'inference_example.h', 'op_base.h'];

function emitDtypeHeader(): string {
  const from = DTYPES.map(
    (d) => `    case ::${DTYPE_INFO[d].paddle}: *out = DType::${DTYPE_INFO[d].cppEnum}; return true;`,
  );
  const to = DTYPES.map((d) => `    case DType::${DTYPE_INFO[d].cppEnum}: return ::${DTYPE_INFO[d].paddle};`);
  return lines(
    '// paddle::DataType <-> opforge::DType, from the type table.',
    '#pragma once',
    '',
    '#include "paddle/extension.h"',
    '',
    '#include "opforge/core.h"',
    '',
    'namespace opforge {',
    'namespace paddle_bridge {',
    '',
    '/** false for Paddle dtypes opforge has no counterpart for (complex, float8, ...). */',
    'inline bool fromPaddle(::paddle::DataType t, DType* out) {',
    '  switch (t) {',
    from,
    '    default: return false;',
    '  }',
    '}',
    '',
    'inline ::paddle::DataType toPaddle(DType t) {',
    '  switch (t) {',
    to,
    '  }',
    '  return ::paddle::DataType::UNDEFINED;',
    '}',
    '',
    '}  // namespace paddle_bridge',
    '}  // namespace opforge',
  );
}

function emitReadme(op: OpIR): string {
  const type = paddleOpType(op);
  const n = pluginNames(op);
  const md = (s: string): string => commentText(s).replace(/([\\`*_[\]<>|])/g, '\\$1');
  const t = exampleCase(op);
  const args = [...op.inputs.map((i) => i.name), ...op.attributes.map((a) => a.name)].join(', ');
  return lines(
    `# ${op.name}: Paddle custom op \`${type}\``,
    '',
    md(op.description),
    '',
    '```cpp',
    `PD_BUILD_OP(${type})`,
    `    .Inputs({${op.inputs.map((i) => (i.optional ? `paddle::Optional("${i.name}")` : `"${i.name}"`)).join(', ')}})`,
    `    .Outputs({${op.outputs.map((o) => `"${o.name}"`).join(', ')}})`,
    op.attributes.length ? `    .Attrs({${op.attributes.map((a) => `"${paddleAttrString(a)}"`).join(', ')}})` : null,
    '```',
    '',
    `The kernel, shape and dtype functions call the op core (\`out/include/opforge/ops/${op.ident.snake}.h`,
    '`): the same checks, inference and kernels as every other backend. Paddle custom ops have no attribute',
    "defaults: a model must carry every attribute (the spec's defaults are for the other backends).",
    '',
    '## Build',
    '',
    'Against the `paddlepaddle` wheel (the Python that has it, or `-DPADDLE_PYTHON=...`):',
    '',
    '```sh',
    'cmake -S out -B build -DWITH_PADDLE=ON && cmake --build build --target opforge_paddle_ops',
    '```',
    '',
    '```python',
    'import opforge_paddle  # out/paddle/opforge_paddle.py',
    '',
    'ops = opforge_paddle.load("build/paddle/libopforge_paddle_ops.so")',
    `# outs = ops.${type}(${args})   # dygraph, paddle.jit.to_static, paddle.static; every attribute given`,
    '```',
    '',
    `Paddle's JIT loader builds the same unit: \`paddle.utils.cpp_extension.load(name=..., sources=["out/paddle/${op.ident.snake}/${op.ident.snake}_op.cc", "${op.kernels.cpu}"],`,
    'extra_include_paths=["out/include", "out/paddle/include", "out/paddle"])`.',
    '',
    'Against a Paddle Inference library, with the example:',
    '',
    '```sh',
    'LIB_DIR=/path/to/paddle_inference bash out/paddle/compile.sh          # CPU',
    'WITH_GPU=ON LIB_DIR=... bash out/paddle/compile.sh                      # + CUDA kernels',
    'WITH_GPU=ON USE_TENSORRT=ON TENSORRT_ROOT=/opt/TensorRT LIB_DIR=... bash out/paddle/compile.sh',
    '```',
    '',
    `This builds \`libopforge_paddle_ops.so\` (every op) and \`${op.ident.snake}_custom_op_test\`, which runs a model`,
    `holding the op (saved with \`paddle.jit.save\` or \`paddle.static.save_inference_model\`):`,
    '',
    '## Run',
    '',
    '```sh',
    `build/paddle/${op.ident.snake}_custom_op_test ${op.ident.snake}.pdmodel ${op.ident.snake}.pdiparams`,
    '```',
    '',
    t
      ? `It feeds spec test case ${t.index} and checks every output's shape against the op core.`
      : 'No spec test case has only host-copyable dtypes: the example only says so.',
    '',
    '## Paddle Inference with TensorRT',
    '',
    `Paddle's TensorRT subgraph converts \`${type}\` by looking up the plugin creator \`${n.paddleDynamic}\``,
    `(dynamic shape) or \`${n.paddleStatic}\` (static shape), version \`1\`, and passes the op's attributes as`,
    `fields. The TensorRT backend (\`${trtPaths(op).dir}\`) registers both; \`USE_TENSORRT=ON\` links`,
    '`libopforge_trt_plugins_autoreg.so` into the example so the whole graph can run as one engine.',
  );
}

export const paddleEmitter: Emitter = defineEmitter({
  name: 'paddle',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    return [
      ...SHARED.map((h) =>
        staticFile(`paddle/include/opforge/paddle/${h}`, `generator/static/cpp/opforge/paddle/${h}`),
      ),
      projectFile('paddle/include/opforge/paddle/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('paddle/CMakeLists.txt', emitPaddleCmake(project, ctx)),
      staticFile('cmake/opforge_paddle.cmake', 'generator/static/cmake/opforge_paddle.cmake'),
      staticFile('paddle/compile.sh', 'generator/static/cmake/paddle-compile.sh'),
      staticFile('paddle/opforge_paddle.py', 'generator/static/python/opforge_paddle.py'),
    ];
  },
  op(op: OpIR, project: ProjectIR): GeneratedFile[] {
    const p = paddlePaths(op);
    return [
      opFile(op, p.header, emitPaddleHeader(op)),
      opFile(op, p.op, emitPaddleOp(op, project.ops)),
      opFile(op, p.example, emitExample(op)),
      opFile(op, p.readme, emitReadme(op)),
    ];
  },
});
