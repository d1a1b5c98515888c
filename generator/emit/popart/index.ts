// PopART / PopRT backend: per op, a descriptor header adapting the op core to the shared CoreOp
// (popart::Op: setup() from the op core's inference; attributes read with their types), the
// OpCreator registration (<op>_op.cpp, PopART headers only), the opx that runs the op core's CPU
// kernel as a Poplar host function (<op>_opx.cpp, needs the Poplar SDK) and a README with the
// PopRT command line; for the project, the bases, the dtype mapping, custom_shape_inference.py
// (PopRT's --custom_shape_inference) and the CMake that builds custom_ops.so. The C++ files are
// templates in generator/static/cpp/opforge/popart/ (*.tmpl); this prints their slots.

import type { AttributeIR, OpIR, ProjectIR } from '../../model/ir.js';
import { allowedDtypes, cppParam } from '../../model/ir-helpers.js';
import { ATTR_INFO, type DType, DTYPE_INFO } from '../../model/type-table.js';
import {
  lines,
  opFile,
  projectFile,
  staticFile,
  staticFiles,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { cppString } from '../lang/literals.js';
import { braced, docComment, includeLines } from '../lang/cpp.js';
import { block, fillTemplate } from '../lang/template.js';
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

const TEMPLATES = 'generator/static/cpp/opforge/popart';

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

/** dtype.h (dtype.h.tmpl): the conversions and the Poplar types, from the type table. */
function emitDtypeHeader(): string {
  const poplar = (d: DType): string => {
    const t = DTYPE_INFO[d].popart;
    return t === null ? 'nullptr' : cppString(`poplar::${t}`);
  };
  return fillTemplate(`${TEMPLATES}/dtype.h.tmpl`, {
    conversions: dtypeMapFunctions({
      name: 'Popart',
      type: '::popart::DataType',
      of: popartType,
      unmatched: 'PopART dtypes opforge has no counterpart for',
      undefinedValue: '::popart::DataType::UNDEFINED',
    }),
    poplarCases: lines(dtypeSwitch(cppEnumOf, (d) => `return ${poplar(d)};`, [])),
  });
}

/** The descriptor header: CoreOp's Desc over the op core (desc.h.tmpl), with the op's identity and attributes. */
function emitHeader(op: OpIR): string {
  const nReq = op.inputs.filter((i) => !i.optional).length;
  const hasAttrs = op.attributes.length > 0;
  const reads = op.attributes.map((a) => {
    const call = `readAttr<::popart::Attributes::${POPART_ATTR[a.type]}>(a, ${cppString(a.name)}, &attrs->${a.name})`;
    return a.required
      ? `    if (!${call}) return Status::Error(std::string(kName) + ${cppString(`: attribute ${a.name} is required`)});`
      : `    ${call};`;
  });
  const tensor = (x: { name: string; type: OpIR['inputs'][number]['type'] }): string =>
    braced([cppString(x.name), braced(allowedDtypes(x.type).map(popartType))]);
  const anyValue = (a: AttributeIR): string => braced([cppString(a.name), braced([cppString('*')])]);
  const id = [
    cppString(popartDomain(op)),
    cppString(op.name),
    op.version,
    `::popart::NumInputs(${nReq}, ${op.inputs.length})`,
  ];
  return fillTemplate(`${TEMPLATES}/desc.h.tmpl`, {
    name: op.name,
    snake: op.ident.snake,
    idDoc: docComment(
      `The ONNX node PopART matches: ${popartDomain(op)}::${op.name} version ${op.version}, ${nReq}..${op.inputs.length} inputs, ${op.outputs.length} outputs.`,
      '  ',
    ),
    id: [...id, op.outputs.length].join(', '),
    inputs: braced(op.inputs.map(tensor)),
    outputs: braced(op.outputs.map(tensor)),
    attributes: braced(op.attributes.map(anyValue)),
    a: cppParam('a', hasAttrs),
    attrs: cppParam('attrs', hasAttrs),
    os: cppParam('os', hasAttrs),
    reads: block([hasAttrs && '    using ::opforge::popart_ext::readAttr;', ...reads]),
    appends: block(op.attributes.map((a) => `    os.appendAttribute(${cppString(a.name)}, attrs.${a.name});`)),
  });
}

/** The OpCreator registration (op.cpp.tmpl) and the opx (opx.cpp.tmpl): only the op's names differ. */
function emitUnit(op: OpIR, template: 'op' | 'opx'): string {
  const names = { name: op.name, snake: op.ident.snake };
  return fillTemplate(
    `${TEMPLATES}/${template}.cpp.tmpl`,
    template === 'op'
      ? { ...names, domain: popartDomain(op), version: String(op.version) }
      : {
          ...names,
          includes: lines(includeLines({ project: [popartPaths(op).include, 'opforge/popart/opx_base.h'] })),
        },
  );
}

/** PopART names the default ONNX domain ai.onnx (its Domain::ai_onnx), as its builtin ops' identifiers do. */
function popartDomain(op: OpIR): string {
  return op.domain || 'ai.onnx';
}

function emitReadme(op: OpIR): string {
  const p = popartPaths(op);
  const attrs = op.attributes.map((a) => [mdCode(a.name), ATTR_INFO[a.type].onnx.name, a.required ? 'yes' : 'no']);
  return mdTemplate('popart-op-readme.md', {
    name: op.name,
    domain: popartDomain(op),
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
      opFile(op, p.op, emitUnit(op, 'op')),
      opFile(op, p.opx, emitUnit(op, 'opx')),
      opFile(op, p.readme, emitReadme(op)),
    ];
  },
});
