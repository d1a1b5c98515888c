// PopART / PopRT backend: per op, a descriptor header adapting the op core to the shared CoreOp
// (popart::Op: setup() from the op core's inference; attributes read with their types), the
// OpCreator registration (<op>_op.cpp, PopART headers only), the opx that runs the op core's CPU
// kernel as a Poplar host function (<op>_opx.cpp, needs the Poplar SDK) and a README with the
// PopRT command line; for the project, the bases, the dtype mapping, custom_shape_inference.py
// (PopRT's --custom_shape_inference) and the CMake that builds custom_ops.so.

import type { AttributeIR, OpIR, ProjectIR } from '../../model/ir.js';
import { allowedDtypes, coreHeaderPath, cppNamespace } from '../../model/ir-helpers.js';
import { ATTR_INFO, DTYPES, DTYPE_INFO } from '../../model/type-table.js';
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
import { commentText, cppString } from '../lang/literals.js';
import { emitShapeInference } from './shape-inference.js';

/** Where the PopART files of an op live under out/. */
export function popartPaths(op: OpIR): {
  dir: string;
  header: string;
  include: string;
  op: string;
  opx: string;
  readme: string;
} {
  const s = op.ident.snake;
  return {
    dir: `popart/${s}`,
    header: `popart/${s}/${s}_popart.h`,
    include: `${s}/${s}_popart.h`,
    op: `popart/${s}/${s}_op.cpp`,
    opx: `popart/${s}/${s}_opx.cpp`,
    readme: `popart/${s}/README.md`,
  };
}

/** popart::DataType enumerators are ONNX's TensorProto names (FLOAT, FLOAT16, DOUBLE, ...). */
const popartType = (d: (typeof DTYPES)[number]): string => `::popart::DataType::${DTYPE_INFO[d].onnx.name}`;

/** popart::Attributes type each spec attribute type is stored as (ONNX bool is INT). */
const POPART_ATTR: Record<AttributeIR['type'], string> = {
  bool: 'Int',
  int: 'Int',
  float: 'Float',
  string: 'String',
  ints: 'Ints',
  floats: 'Floats',
};

const SHARED = ['op_base.h', 'opx_base.h'];

function emitDtypeHeader(): string {
  return lines(
    "// popart::DataType <-> opforge::DType, from the type table (PopART uses ONNX's type names).",
    '#pragma once',
    '',
    '#include <popart/datatype.hpp>',
    '',
    '#include "opforge/core.h"',
    '',
    'namespace opforge {',
    'namespace popart_ext {',
    '',
    '/** false for PopART dtypes opforge has no counterpart for. */',
    'inline bool fromPopart(::popart::DataType t, DType* out) {',
    '  switch (t) {',
    DTYPES.map((d) => `    case ${popartType(d)}: *out = DType::${DTYPE_INFO[d].cppEnum}; return true;`),
    '    default: return false;',
    '  }',
    '}',
    '',
    'inline ::popart::DataType toPopart(DType t) {',
    '  switch (t) {',
    DTYPES.map((d) => `    case DType::${DTYPE_INFO[d].cppEnum}: return ${popartType(d)};`),
    '  }',
    '  return ::popart::DataType::UNDEFINED;',
    '}',
    '',
    '/**',
    ' * The Poplar type PopART lowers a dtype to; nullptr where it has none (float64 and bfloat16 do',
    ' * not lower; int64 is cast to int32 on lowering, which the host kernel would misread).',
    ' */',
    'inline const char* poplarType(DType t) {',
    '  switch (t) {',
    DTYPES.map(
      (d) =>
        `    case DType::${DTYPE_INFO[d].cppEnum}: return ${DTYPE_INFO[d].popart === null ? 'nullptr' : cppString(`poplar::${DTYPE_INFO[d].popart}`)};`,
    ),
    '  }',
    '  return nullptr;',
    '}',
    '',
    '}  // namespace popart_ext',
    '}  // namespace opforge',
  );
}

function emitHeader(op: OpIR): string {
  const nReq = op.inputs.filter((i) => !i.optional).length;
  const reads = op.attributes.map((a) => {
    const call = `readAttr<::popart::Attributes::${POPART_ATTR[a.type]}>(a, ${cppString(a.name)}, &attrs->${a.name})`;
    return a.required
      ? `    if (!${call}) return Status::Error(std::string(kName) + ": attribute ${a.name} is required");`
      : `    ${call};`;
  });
  const appends = op.attributes.map((a) => `    os.appendAttribute(${cppString(a.name)}, attrs.${a.name});`);
  const tensor = (x: { name: string; type: OpIR['inputs'][number]['type'] }): string =>
    `{${cppString(x.name)}, {${allowedDtypes(x.type).map(popartType).join(', ')}}}`;
  return lines(
    `// ${op.name} for PopART: the op core as CoreOp's descriptor (identity, attribute reading and`,
    "// serialisation, the core's functions). Needs PopART's headers only.",
    '#pragma once',
    '',
    '#include <string>',
    '',
    '#include <popart/attributes.hpp>',
    '#include <popart/opmanager.hpp>',
    '#include <popart/operatoridentifier.hpp>',
    '#include <popart/opserialiser.hpp>',
    '',
    `#include "${coreHeaderPath(op).include}"`,
    '#include "opforge/popart/op_base.h"',
    '',
    'namespace opforge {',
    'namespace popart_ops {',
    `namespace ${op.ident.snake} {`,
    '',
    `namespace core = ::${cppNamespace(op)};`,
    '',
    '/** The op core (names, counts, functions) plus what PopART needs beyond it. */',
    'struct Desc : core::Core {',
    `  /** The ONNX node PopART matches: ${commentText(`${op.domain}::${op.name}`)} version ${op.version}, ${nReq}..${op.inputs.length} inputs, ${op.outputs.length} outputs. */`,
    '  static ::popart::OperatorIdentifier id() {',
    `    return ::popart::OperatorIdentifier(${cppString(op.domain)}, ${cppString(op.name)}, ${op.version}, ::popart::NumInputs(${nReq}, ${op.inputs.length}), ${op.outputs.length});`,
    '  }',
    '',
    '  /** Inputs and outputs with the dtypes their type constraints allow; any attribute value (the op core validates). */',
    '  static ::popart::OpDefinition definition() {',
    '    return ::popart::OpDefinition(',
    `        {${op.inputs.map(tensor).join(', ')}},`,
    `        {${op.outputs.map(tensor).join(', ')}},`,
    `        {${op.attributes.map((a) => `{${cppString(a.name)}, {"*"}}`).join(', ')}});`,
    '  }',
    '',
    "  /** Attributes the node has, with their ONNX types; absent optional ones keep the spec's default. */",
    `  static Status readAttrs(const ::popart::Attributes& ${op.attributes.length ? 'a' : '/*a*/'}, Attrs* ${op.attributes.length ? 'attrs' : '/*attrs*/'}) {`,
    op.attributes.length ? '    using ::opforge::popart_ext::readAttr;' : null,
    reads,
    '    return Status::Ok();',
    '  }',
    '',
    `  static void appendAttributes(const Attrs& ${op.attributes.length ? 'attrs' : '/*attrs*/'}, ::popart::OpSerialiserBase& ${op.attributes.length ? 'os' : '/*os*/'}) {`,
    appends,
    '  }',
    '};',
    '',
    'using Op = ::opforge::popart_ext::CoreOp<Desc>;',
    '',
    `}  // namespace ${op.ident.snake}`,
    '}  // namespace popart_ops',
    '}  // namespace opforge',
  );
}

function emitOpUnit(op: OpIR): string {
  return lines(
    `// ${op.name}: registers the PopART op (OpCreator) under ${commentText(`${op.domain}::${op.name}`)} version ${op.version}.`,
    `#include "${popartPaths(op).include}"`,
    '',
    'namespace {',
    `const auto kCreator = ::opforge::popart_ext::makeCreator<::opforge::popart_ops::${op.ident.snake}::Desc>();`,
    '}  // namespace',
  );
}

function emitOpxUnit(op: OpIR): string {
  return lines(
    `// ${op.name}: the opx (Poplar lowering) runs the op core's CPU kernel as a Poplar host function.`,
    '// Needs the Poplar SDK.',
    `#include "${popartPaths(op).include}"`,
    '#include "opforge/popart/opx_base.h"',
    '',
    'namespace {',
    `using Desc = ::opforge::popart_ops::${op.ident.snake}::Desc;`,
    'const ::popart::popx::OpxCreator<::opforge::popart_ext::HostOpx<Desc>> kOpxCreator(Desc::id());',
    '}  // namespace',
  );
}

/** out/popart/CMakeLists.txt: the list of ops over generator/static/cmake/opforge_popart.cmake. */
function emitCmake(project: ProjectIR, ctx: EmitContext): string {
  return lines(
    '# PopART / PopRT custom ops: custom_ops.so with every op (Op, OpCreator, host-function opx).',
    '# Needs the Poplar SDK (PopART, Poplar): source its enable scripts, then configure from out/ with',
    '#   cmake -S out -B build -DWITH_POPART=ON && cmake --build build --target custom_ops',
    'include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_popart.cmake")',
    '',
    project.ops.map(
      ctx.perOp('popart/CMakeLists.txt', (op) => `opforge_popart_add_op(${op.ident.snake})  # ${op.name}`),
    ),
    'opforge_popart_finish()',
  );
}

function emitReadme(op: OpIR): string {
  const p = popartPaths(op);
  const md = (s: string): string => commentText(s).replace(/([\\`*_[\]<>|])/g, '\\$1');
  return lines(
    `# ${op.name}: PopART / PopRT custom op`,
    '',
    md(op.description),
    '',
    `PopART op \`${op.domain}::${op.name}\` version ${op.version}: an ONNX node with \`domain="${op.domain}"\`,`,
    `\`op_type="${op.name}"\` and the model importing opset \`${op.domain}\` ${op.version} becomes this op.`,
    '',
    '| Part | File | Needs |',
    '|---|---|---|',
    `| \`popart::Op\` (setup from the op core), \`OpCreator\` reading the attributes | \`${p.header}\`, \`${p.op}\` | PopART headers (+ poprithms) |`,
    `| opx: the op core's CPU kernel as a Poplar host function | \`${p.opx}\` | Poplar SDK |`,
    '| shape inference for PopRT | `out/popart/custom_shape_inference.py` | PopRT (poprt.passes) |',
    '',
    "Attributes (ONNX types; an absent optional one keeps the spec's default):",
    '',
    op.attributes.length
      ? lines(
          '| Name | ONNX type | Required |',
          '|---|---|---|',
          ...op.attributes.map(
            (a) => `| \`${a.name}\` | ${ATTR_INFO[a.type].onnx.name} | ${a.required ? 'yes' : 'no'} |`,
          ),
        )
      : '_None._',
    '',
    '## Build (Poplar SDK)',
    '',
    '```sh',
    'source <poplar_sdk>/enable.sh && source <poplar_sdk>/popart/enable.sh',
    'cmake -S out -B build -DWITH_POPART=ON && cmake --build build --target custom_ops',
    '```',
    '',
    '## PopRT',
    '',
    '```sh',
    'python -m poprt.cli \\',
    '    --input_model model.onnx \\',
    '    --custom_library_so_paths build/popart/custom_ops.so \\',
    '    --custom_shape_inference out/popart/custom_shape_inference.py \\',
    '    --run',
    '```',
    '',
    'The opx runs the kernel on the host through a Poplar host function. A PopART application connects',
    'it after `session->prepareDevice()` with `opforge::popart_ext::connectHostFunctions(*session)`',
    "(`opforge/popart/opx_base.h`); whether PopRT's own runtime connects host functions is not known to",
    'opforge: with PopRT `--run` this path is unverified (docs/paddle-popart.md).',
  );
}

export const popartEmitter: Emitter = defineEmitter({
  name: 'popart',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    return [
      ...SHARED.map((h) =>
        staticFile(`popart/include/opforge/popart/${h}`, `generator/static/cpp/opforge/popart/${h}`),
      ),
      projectFile('popart/include/opforge/popart/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('popart/custom_shape_inference.py', emitShapeInference(project, ctx)),
      projectFile('popart/CMakeLists.txt', emitCmake(project, ctx)),
      staticFile('cmake/opforge_popart.cmake', 'generator/static/cmake/opforge_popart.cmake'),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    const p = popartPaths(op);
    return [
      opFile(op, p.header, emitHeader(op)),
      opFile(op, p.op, emitOpUnit(op)),
      opFile(op, p.opx, emitOpxUnit(op)),
      opFile(op, p.readme, emitReadme(op)),
    ];
  },
});
