// PopART / PopRT backend: per op, a descriptor header adapting the op core to the shared CoreOp
// (popart::Op: setup() from the op core's inference; attributes read with their types), the
// OpCreator registration (<op>_op.cpp, PopART headers only), the opx that runs the op core's CPU
// kernel as a Poplar host function (<op>_opx.cpp, needs the Poplar SDK) and a README with the
// PopRT command line; for the project, the bases, the dtype mapping, custom_shape_inference.py
// (PopRT's --custom_shape_inference) and the CMake that builds custom_ops.so.

import type { AttributeIR, OpIR, ProjectIR } from '../../model/ir.js';
import { allowedDtypes, coreHeaderPath, cppNamespace } from '../../model/ir-helpers.js';
import { ATTR_INFO, type DType, DTYPE_INFO } from '../../model/type-table.js';
import {
  opFile,
  paragraphs,
  projectFile,
  staticFile,
  staticFiles,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { cppString } from '../lang/literals.js';
import { braced, cppUnit, docComment } from '../lang/cpp.js';
import { dtypeMapFunctions, dtypeSwitch } from '../lang/dtype-map.js';
import { emitShapeInference } from './shape-inference.js';
import { backendOpList } from '../cmake/op-list.js';
import { mdCode, mdTable, mdTemplate, mdText } from '../lang/markdown.js';

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
const popartType = (d: DType): string => `::popart::DataType::${DTYPE_INFO[d].onnx.name}`;

/** popart::Attributes type each spec attribute type is stored as (ONNX bool is INT). */
const POPART_ATTR: Record<AttributeIR['type'], string> = {
  bool: 'Int',
  int: 'Int',
  float: 'Float',
  string: 'String',
  ints: 'Ints',
  floats: 'Floats',
};

const cppEnumOf = (d: DType): string => `DType::${DTYPE_INFO[d].cppEnum}`;

function emitDtypeHeader(): string {
  const poplar = (d: DType): string => {
    const t = DTYPE_INFO[d].popart;
    return t === null ? 'nullptr' : cppString(`poplar::${t}`);
  };
  return cppUnit({
    comment: "popart::DataType <-> opforge::DType, from the type table (PopART uses ONNX's type names).",
    header: true,
    includes: { external: ['popart/datatype.hpp'], project: ['opforge/core.h'] },
    namespace: 'opforge::popart_ext',
    body: paragraphs(
      dtypeMapFunctions({
        name: 'Popart',
        type: '::popart::DataType',
        of: popartType,
        unmatched: 'PopART dtypes opforge has no counterpart for',
        undefinedValue: '::popart::DataType::UNDEFINED',
      }),
      [
        docComment([
          'The Poplar type PopART lowers a dtype to; nullptr where it has none (float64 and bfloat16 do',
          'not lower; int64 is cast to int32 on lowering, which the host kernel would misread).',
        ]),
        'inline const char* poplarType(DType t) {',
        ...dtypeSwitch(cppEnumOf, (d) => `return ${poplar(d)};`, ['  }', '  return nullptr;']),
        '}',
      ],
    ),
  });
}

/** A name in a parameter list, commented out where the body does not read it (-Wunused-parameter). */
const param = (name: string, used: boolean): string => (used ? name : `/*${name}*/`);

function emitHeader(op: OpIR): string {
  const nReq = op.inputs.filter((i) => !i.optional).length;
  const hasAttrs = op.attributes.length > 0;
  const reads = op.attributes.map((a) => {
    const call = `readAttr<::popart::Attributes::${POPART_ATTR[a.type]}>(a, ${cppString(a.name)}, &attrs->${a.name})`;
    return a.required
      ? `    if (!${call}) return Status::Error(std::string(kName) + ${cppString(`: attribute ${a.name} is required`)});`
      : `    ${call};`;
  });
  const appends = op.attributes.map((a) => `    os.appendAttribute(${cppString(a.name)}, attrs.${a.name});`);
  const tensor = (x: { name: string; type: OpIR['inputs'][number]['type'] }): string =>
    braced([cppString(x.name), braced(allowedDtypes(x.type).map(popartType))]);
  const anyValue = (a: AttributeIR): string => braced([cppString(a.name), braced([cppString('*')])]);
  const id = [
    cppString(op.domain),
    cppString(op.name),
    op.version,
    `::popart::NumInputs(${nReq}, ${op.inputs.length})`,
    op.outputs.length,
  ];
  return cppUnit({
    comment: [
      `${op.name} for PopART: the op core as CoreOp's descriptor (identity, attribute reading and`,
      "serialisation, the core's functions). Needs PopART's headers only.",
    ],
    header: true,
    includes: {
      system: ['string'],
      external: [
        'popart/attributes.hpp',
        'popart/opmanager.hpp',
        'popart/operatoridentifier.hpp',
        'popart/opserialiser.hpp',
      ],
      project: [coreHeaderPath(op).include, 'opforge/popart/op_base.h'],
    },
    namespace: ['opforge', 'popart_ops', op.ident.snake],
    body: paragraphs(
      `namespace core = ::${cppNamespace(op)};`,
      [
        docComment('The op core (names, counts, functions) plus what PopART needs beyond it.'),
        'struct Desc : core::Core {',
        paragraphs(
          [
            docComment(
              `The ONNX node PopART matches: ${op.domain}::${op.name} version ${op.version}, ${nReq}..${op.inputs.length} inputs, ${op.outputs.length} outputs.`,
              '  ',
            ),
            '  static ::popart::OperatorIdentifier id() {',
            `    return ::popart::OperatorIdentifier(${id.join(', ')});`,
            '  }',
          ],
          [
            docComment(
              'Inputs and outputs with the dtypes their type constraints allow; any attribute value (the op core validates).',
              '  ',
            ),
            '  static ::popart::OpDefinition definition() {',
            '    return ::popart::OpDefinition(',
            `        ${braced(op.inputs.map(tensor))},`,
            `        ${braced(op.outputs.map(tensor))},`,
            `        ${braced(op.attributes.map(anyValue))});`,
            '  }',
          ],
          [
            docComment(
              "Attributes the node has, with their ONNX types; absent optional ones keep the spec's default.",
              '  ',
            ),
            `  static Status readAttrs(const ::popart::Attributes& ${param('a', hasAttrs)}, Attrs* ${param('attrs', hasAttrs)}) {`,
            hasAttrs && '    using ::opforge::popart_ext::readAttr;',
            ...reads,
            '    return Status::Ok();',
            '  }',
          ],
          [
            `  static void appendAttributes(const Attrs& ${param('attrs', hasAttrs)}, ::popart::OpSerialiserBase& ${param('os', hasAttrs)}) {`,
            ...appends,
            '  }',
          ],
        ),
        '};',
      ],
      'using Op = ::opforge::popart_ext::CoreOp<Desc>;',
    ),
  });
}

function emitOpUnit(op: OpIR): string {
  return cppUnit({
    comment: `${op.name}: registers the PopART op (OpCreator) under ${op.domain}::${op.name} version ${op.version}.`,
    includes: { project: [popartPaths(op).include] },
    namespace: [''],
    body: `const auto kCreator = ::opforge::popart_ext::makeCreator<::opforge::popart_ops::${op.ident.snake}::Desc>();`,
  });
}

function emitOpxUnit(op: OpIR): string {
  return cppUnit({
    comment: [
      `${op.name}: the opx (Poplar lowering) runs the op core's CPU kernel as a Poplar host function.`,
      'Needs the Poplar SDK.',
    ],
    includes: { project: [popartPaths(op).include, 'opforge/popart/opx_base.h'] },
    namespace: [''],
    body: [
      `using Desc = ::opforge::popart_ops::${op.ident.snake}::Desc;`,
      'const ::popart::popx::OpxCreator<::opforge::popart_ext::HostOpx<Desc>> kOpxCreator(Desc::id());',
    ],
  });
}

function emitReadme(op: OpIR): string {
  const p = popartPaths(op);
  const attrs = op.attributes.map((a) => [mdCode(a.name), ATTR_INFO[a.type].onnx.name, a.required ? 'yes' : 'no']);
  return mdTemplate('popart-op-readme.md', {
    name: op.name,
    domain: op.domain,
    version: String(op.version),
    description: mdText(op.description),
    header: p.header,
    opUnit: p.op,
    opxUnit: p.opx,
    attributes: attrs.length ? mdTable(['Name', 'ONNX type', 'Required'], attrs) : '_None._',
  });
}

export const popartEmitter: Emitter = defineEmitter({
  name: 'popart',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    return [
      ...staticFiles('popart/include/opforge/popart', 'generator/static/cpp/opforge/popart', '.h'),
      projectFile('popart/include/opforge/popart/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('popart/custom_shape_inference.py', emitShapeInference(project, ctx)),
      projectFile(
        'popart/CMakeLists.txt',
        backendOpList('popart', 'PopART / PopRT custom ops (custom_ops.so)', project, ctx, false),
      ),
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
