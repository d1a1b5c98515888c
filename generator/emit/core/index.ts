// The op core: one C++ header per op that every backend adapter includes. It states the op's
// facts as constexpr tables (an OpInfo) and holds only what differs per op: the attributes and
// state structs, the kernel contract, attribute checks and the shape expressions compiled from
// the IR. Type inference, dispatch, serialization and input checks are templates over those
// tables in generator/static/cpp/opforge/op_core.h.

import type { OpIR, TensorType } from '../../model/ir.js';
import {
  constraintReads,
  coreHeaderPath,
  cppParam,
  dtypeUnder,
  exprReads,
  ioType,
  opHash,
  shapeReads,
} from '../../model/ir-helpers.js';
import { ATTR_INFO, type AttrType, DTYPE_INFO, type DType } from '../../model/type-table.js';
import {
  CACHE_FILE,
  defineEmitter,
  type Emitter,
  type GeneratedFile,
  lines,
  opFile,
  projectFile,
  STAMP_FILE,
  staticFile,
  paragraphs,
} from '../emitter.js';
import {
  braced,
  type Constant,
  constants,
  cppUnit,
  docComment,
  initializer,
  type TableRow,
  table,
  trailing,
} from '../lang/cpp.js';
import { cppExpr } from '../lang/cpp-expr.js';
import { commentText, cppAttrValue, cppFloat, cppInt, cppString } from '../lang/literals.js';

const SHARED_HEADERS = ['core.h', 'op_core.h', 'serialize.h', 'cuda_launch.h'];

export const coreEmitter: Emitter = defineEmitter({
  name: 'core',
  project(): GeneratedFile[] {
    return [
      ...SHARED_HEADERS.map((h) => staticFile(`include/opforge/${h}`, `generator/static/cpp/opforge/${h}`)),
      // gen's bookkeeping (the no-op stamp, the incremental cache) stays out of a repository that commits out/.
      projectFile('.gitignore', lines("# gen's bookkeeping, not output:", STAMP_FILE, CACHE_FILE)),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    return [opFile(op, coreHeaderPath(op).path, emitCore(op))];
  },
});

function emitCore(op: OpIR): string {
  return cppUnit({
    comment: [`${op.name} (${op.domain}::${op.name}, version ${op.version}): the op core every backend shares.`],
    header: true,
    includes: { system: ['cstdint', 'string', 'vector'], project: ['opforge/op_core.h'] },
    namespace: ['opforge', 'ops', op.ident.snake],
    body: paragraphs(
      op.description ? `// ${commentText(op.description)}` : null,
      emitFacts(op),
      emitStructs(op),
      emitContract(op),
      [docComment('This op core as a type: what every backend adapter is instantiated with.'), CORE],
      emitValidate(op),
      emitSerialization(op),
      emitCheckShapes(op),
      emitShapes(op),
      emitDispatch(op),
    ),
  });
}

const CORE = 'struct Core : CoreOf<kInfo, Attrs, State> {};';
const dtypeEnum = (d: DType): string => `DType::${DTYPE_INFO[d].cppEnum}`;

/** The opforge::AttrType enumerator of an attribute type (op_core.h). */
export const attrTypeEnum = (t: AttrType): string => `AttrType::k${t[0]!.toUpperCase()}${t.slice(1)}`;

const list = <T>(xs: readonly T[], f: (x: T) => string = String): string => braced(xs.map(f));
const [IN, OUT, PORTS, BINDINGS] = ['kNumInputs', 'kNumOutputs', 'kNumInputs + kNumOutputs', 'kNumBindings'];
const [CHARS, INT] = ['const char*', 'int'];

/**
 * The op's facts, in OpInfo's order (op_core.h): what its templates and the backends (TensorRT,
 * ONNX Runtime) read. kInfo gathers them.
 */
function emitFacts(op: OpIR): string {
  const ports = [...op.inputs, ...op.outputs];
  const varOf = (t: TensorType): number => (t.kind === 'var' ? op.typeVars.findIndex((v) => v.name === t.name) : -1);
  const like = (c: { kind: string; inputIndex?: number }): string => String(c.kind === 'like' ? c.inputIndex : -1);
  const hash = opHash(op).toString(16).padStart(8, '0');
  const scalars: Constant[] = [
    { type: CHARS, name: 'kName', value: cppString(op.name) },
    { type: CHARS, name: 'kDomain', value: cppString(op.domain) },
    { type: 'int32_t', name: 'kVersion', value: String(op.version) },
    { type: 'uint32_t', name: 'kHash', value: `0x${hash}u`, comment: `fnv1a of ${op.domain}::${op.name}` },
    { type: INT, name: IN, value: String(op.inputs.length) },
    { type: INT, name: OUT, value: String(op.outputs.length) },
    { type: INT, name: BINDINGS, value: String(op.bindings.length), comment: 'dtype combinations' },
  ];
  const typeVars = op.typeVars.map((v) => {
    const binder = op.inputs.find((i) => !i.optional && i.type.kind === 'var' && i.type.name === v.name)!;
    const row = [cppString(v.name), binder.index, v.dtypes.length, list(v.dtypes, dtypeEnum)];
    return { value: list(row), comment: `${v.name}: ${v.dtypes.join(', ')}` };
  });
  const bindings = op.bindings.map((b) => ({
    value: ports.map((p) => dtypeEnum(dtypeUnder(p.type, b))).join(', '),
    comment: b.suffix || 'fixed dtypes',
  }));
  const attrs = op.attributes.map((a) => list([cppString(a.name), attrTypeEnum(a.type), String(a.required)]));
  const fixed = (t: TensorType): string => dtypeEnum(t.kind === 'fixed' ? t.dtype : t.dtypes[0]!);
  const tables: [string, string, string | undefined, readonly (string | TableRow)[], string?][] = [
    ['kInputNames', CHARS, IN, op.inputs.map((i) => cppString(i.name))],
    ['kOutputNames', CHARS, OUT, op.outputs.map((o) => cppString(o.name))],
    ['kInputOptional', 'bool', IN, op.inputs.map((i) => String(i.optional))],
    ['kInputShapeOnly', 'bool', IN, op.inputs.map((i) => String(i.shapeOnly))],
    ['kInputRank', 'int32_t', IN, op.inputs.map((i) => String(i.rank ?? -1)), '-1: any'],
    ['kInputLike', INT, IN, op.inputs.map((i) => like(i.constraint)), 'shaped like; -1: no'],
    ['kOutputLike', INT, OUT, op.outputs.map((o) => like(o.shape)), 'shaped like; -1: computed'],
    ['kPortVar', INT, PORTS, ports.map((p) => String(varOf(p.type))), 'type variable; -1: fixed dtype'],
    ['kPortDtype', 'DType', PORTS, ports.map((p) => fixed(p.type)), 'the fixed dtype'],
    ['kTypeVars', 'TypeVarInfo', undefined, typeVars],
    ['kBindingNames', CHARS, BINDINGS, op.bindings.map((b) => cppString(b.suffix))],
    ['kBindingDtypes', 'DType', `${BINDINGS} * (${PORTS})`, bindings, 'each binding: every port'],
    ['kAttributes', 'AttrInfo', undefined, attrs],
  ];
  const printed = tables.map(([name, type, size, rows, comment]) => {
    const t = table({ prefix: 'inline ', type, name, rows, ...(size ? { size } : {}) });
    return comment && !t.includes('\n') ? `${t}${trailing(comment)}` : t;
  });
  const info = [
    ...scalars.map((c) => c.name),
    ...[op.typeVars.length, op.attributes.length].map(String),
    ...tables.map(([name]) => name),
    ...[op.kernels.cuda !== undefined, op.hasConfigure].map(String),
  ];
  return lines(constants(scalars, 'inline '), printed, initializer('inline constexpr OpInfo kInfo', info));
}

function emitStructs(op: OpIR): string {
  const zero = (t: string): string => ({ bool: 'false', int: '0', float: '0' })[t] ?? '';
  const attrs = op.attributes.map((a) => {
    const init = a.default !== undefined ? cppAttrValue(a, a.default) : zero(a.type);
    const note = [a.required ? 'required' : '', a.description].filter(Boolean).join('; ');
    return `  ${ATTR_INFO[a.type].cpp} ${a.name}${init ? ` = ${init}` : ''};${trailing(note)}`;
  });
  const state = op.state.map((f) => {
    const init = zero(f.type);
    return `  ${ATTR_INFO[f.type].cpp} ${f.name}${init ? `{${init}}` : ''};${trailing(f.description)}`;
  });
  const struct = (name: string, fields: string[]): string =>
    lines(`struct ${name} {`, fields, '};').replace('{\n};', '{};');
  return paragraphs(
    [docComment("Attributes, initialized to the spec's defaults."), struct('Attrs', attrs)],
    [docComment(state.length ? STATE_DOC : NO_STATE_DOC), struct('State', state)],
  );
}

const STATE_DOC = 'State that configure() computes; serialized with the attributes.';
const NO_STATE_DOC = 'No extra state: everything the kernel needs is in Attrs and the shapes.';

type Port = OpIR['inputs'][number] | OpIR['outputs'][number];
const cppType = (t: TensorType): string => (t.kind === 'fixed' ? DTYPE_INFO[t.dtype].cpp : t.name);

/** The kernel contract: Io (one field per port) and one cpu / cuda overload per dtype binding. */
function emitContract(op: OpIR): string {
  const field = (p: Port, input: boolean): string => {
    const optional = input && 'optional' in p && p.optional ? 'optional: data is null when absent' : '';
    const note = [optional, p.description].filter(Boolean).join('; ');
    if (input && 'shapeOnly' in p && p.shapeOnly)
      return `  Shape ${p.name};  // shape only${note ? `; ${commentText(note)}` : ''}`;
    return `  TensorView<${input ? 'const ' : ''}${cppType(p.type)}> ${p.name};${trailing(note)}`;
  };
  const overloads = (fn: string, ctx: string, note: string): string[] => [
    `// ${commentText(note)}`,
    ...op.bindings.map(
      (b) => `Status ${fn}(const Attrs& attrs, const State& state, const ${ioType(op, b)}& io, const ${ctx}& ctx);`,
    ),
  ];
  const cuda = op.kernels.cuda;
  return paragraphs(
    [
      CONTRACT_DOC,
      op.typeVars.length ? `template <${op.typeVars.map((t) => `typename ${t.name}`).join(', ')}>` : null,
      lines(
        'struct Io {',
        op.inputs.map((i) => field(i, true)),
        op.outputs.map((o) => field(o, false)),
        '};',
      ),
    ],
    [
      overloads('cpu', 'CpuContext', `CPU kernel, in ${op.kernels.cpu}`),
      cuda
        ? overloads(
            'cuda',
            'CudaContext',
            `CUDA kernel, in ${cuda}: launch on ctx.stream, return without synchronizing`,
          )
        : [],
      op.hasConfigure ? [docComment(CONFIGURE_DOC), CONFIGURE] : null,
    ],
  );
}

const CONTRACT_DOC = lines(
  '// ---- Kernel contract ------------------------------------------------------------',
  '// The kernel files named by the spec define these functions, one overload per dtype',
  '// combination. Tensors are contiguous, row-major; shapes have been checked.',
);
const CONFIGURE_DOC =
  'Fills State from the attributes and input shapes (in the CPU kernel file); called before the first run.';
const CONFIGURE = 'Status configure(const Attrs& attrs, const Shape* inputs, State* state);';

/** validate(): each attribute's range and enum, in spec order; the messages name the bounds as the spec wrote them. */
function emitValidate(op: OpIR): string {
  const checks = op.attributes.flatMap((a) => {
    const isFloat = a.type === 'float' || a.type === 'floats';
    const isList = ATTR_INFO[a.type].isList;
    const v = isList ? 'v' : `attrs.${a.name}`;
    const bound = isFloat ? cppFloat : cppInt;
    const bounds = [
      ['>=', a.min],
      ['<=', a.max],
    ].filter((b): b is [string, number] => b[1] !== undefined);
    const conds = [
      ...bounds.map(([op, x]) => `!(${v} ${op} ${bound(x)})`),
      ...(isFloat ? [`!std::isfinite(${v})`] : []),
    ];
    const what = [...(isFloat ? ['finite'] : []), ...bounds.map(([op, x]) => `${op} ${x}`)].join(' and ');
    const check = `if (${conds.join(' || ')}) return failGot(kName, ${cppString(`: attribute ${a.name} must be ${what}, got `)}, ${v});`;
    const values = (a.enum ?? []).map((e) => (a.type === 'string' ? cppString(String(e)) : cppInt(Number(e))));
    const oneOf = cppString(`: attribute ${a.name} must be one of ${(a.enum ?? []).join(', ')}`);
    return [
      conds.length ? `  ${isList ? `for (const auto v : attrs.${a.name}) ` : ''}${check}` : null,
      a.enum ? `  if (!oneOf(attrs.${a.name}, ${braced(values)})) return fail(kName, ${oneOf});` : null,
    ].filter((c): c is string => c !== null);
  });
  return lines(
    docComment("Checks attribute values against the spec's enums and ranges."),
    `inline Status validate(const Attrs& ${cppParam('attrs', checks.length > 0)}) {`,
    checks,
    OK_END,
  );
}

const OK_END = lines('  return Status::Ok();', '}');

/** visitFields (what serialization reads and writes) and the generic functions over this op's tables. */
function emitSerialization(op: OpIR): string {
  const fields = [
    ...op.attributes.map((a) => `  f(attrs.${a.name}, ${cppString(a.name)});`),
    ...op.state.map((f) => `  f(state.${f.name}, ${cppString(f.name)});`),
  ];
  const [a, s, f] = [
    cppParam('attrs', op.attributes.length > 0),
    cppParam('state', op.state.length > 0),
    cppParam('f', fields.length > 0),
  ];
  return paragraphs(
    [FIELDS_DOC, 'template <class A, class S, class F>', `void visitFields(A& ${a}, S& ${s}, F&& ${f}) {`, fields, '}'],
    GENERIC_FUNCTIONS,
  );
}

const FIELDS_DOC = docComment(
  'Attributes, then state: the fields serialize() writes and deserialize() reads, in order.',
);
const GENERIC_FUNCTIONS = lines(
  docComment('Serialization and type inference: the templates of opforge/op_core.h over this op.'),
  'inline size_t serializedSize(const Attrs& a, const State& s) { return serializedSizeOf<Core>(a, s); }',
  'inline void serialize(const Attrs& a, const State& s, void* buffer) { serializeTo<Core>(a, s, buffer); }',
  'inline Status deserialize(const void* data, size_t size, Attrs* a, State* s) { return deserializeFrom<Core>(data, size, a, s); }',
  'inline Status inferTypes(const DType* in, const bool* present, DType* out, int* binding) { return inferTypesOf<kInfo>(in, present, out, binding); }',
);

const shapeEnv = {
  dim: (i: number, axis: number) => `inputs[${i}].dims[${axis}]`,
  attr: (name: string) => `static_cast<int64_t>(attrs.${name})`,
  okVar: 'ok',
};

/** A function body whose compiled expressions may divide: `bool ok` first, its check after `body`. */
function divisionGuarded(divides: boolean, where: string, body: readonly string[]): string[] {
  if (!divides) return [...body];
  return ['  bool ok = true;', ...body, `  if (!ok) return divisionByZero(kName, ${cppString(where)});`];
}

/** A function of the shape phase: its doc, signature (parameters named only where read) and body. */
function shapeFunction(doc: string, head: string, body: readonly string[], end = OK_END): string {
  return lines(docComment(doc), `inline Status ${head} {`, [...body], end);
}

/** checkShapes: the generic input checks, with each input's dim expressions after its own checks. */
function emitCheckShapes(op: OpIR): string {
  const body: string[] = [];
  let from = 0;
  const generic = (to: number): void => {
    const end = to === op.inputs.length ? IN : to;
    if (to > from) body.push(`  OPFORGE_RETURN_IF_ERROR(checkInputShapes<Core>(${from}, ${end}, inputs, present));`);
    from = to;
  };
  for (const i of op.inputs) {
    if (i.constraint.kind !== 'dims') continue;
    generic(i.index + 1);
    const guard = i.optional ? `present[${i.index}] && ` : '';
    i.constraint.dims.forEach((d, axis) => {
      if (d.kind !== 'expr') return;
      const got = `inputs[${i.index}].dims[${axis}]`;
      const what = `: dim ${axis} of input ${i.name} must equal ${commentText(d.source).replace(/["\\]/g, '')}, got `;
      body.push(
        `  if (${guard}${got} != ${cppExpr(d.expr, shapeEnv)}) return failGot(kName, ${cppString(what)}, ${got});`,
      );
    });
  }
  generic(op.inputs.length);
  const reads = constraintReads(op.inputs.map((i) => i.constraint));
  return shapeFunction(
    'Checks input ranks and every dim the spec constrains. present[i] is false for an absent optional input.',
    `checkShapes(const Attrs& ${cppParam('attrs', reads.attrs)}, const Shape* inputs, const bool* present)`,
    divisionGuarded(reads.division, 'an input shape constraint', body),
  );
}

function emitShapes(op: OpIR): string {
  const out = shapeReads(op.outputs.map((o) => o.shape));
  const infer = op.outputs.map((o) => {
    if (o.shape.kind === 'like')
      return `  outputs[${o.index}] = inputs[${o.shape.inputIndex}];  // shape of ${o.shape.input}`;
    const dims = list(o.shape.dims, (e) => cppExpr(e, shapeEnv));
    return `  OPFORGE_RETURN_IF_ERROR(computedOutput<Core>(outputs, ${o.index}, ${dims}));${trailing(o.shape.source.join(', '))}`;
  });
  const ws = exprReads([op.workspace]);
  const params = (r: { attrs: boolean; dims: boolean }): string =>
    `const Attrs& ${cppParam('attrs', r.attrs)}, const Shape* ${cppParam('inputs', r.dims)}`;
  return paragraphs(
    shapeFunction(
      "Output shapes from the spec's shape expressions. Call after checkShapes().",
      `inferShapes(${params(out)}, Shape* outputs)`,
      divisionGuarded(out.division, 'an output shape', infer),
    ),
    shapeFunction(
      'Scratch bytes the kernel needs for these input shapes.',
      `workspaceSize(${params(ws)}, size_t* bytes)`,
      divisionGuarded(ws.division, 'the workspace size', [`  const int64_t n = ${cppExpr(op.workspace, shapeEnv)};`]),
      lines('  return workspaceBytes(kName, n, bytes);', '}'),
    ),
  );
}

/** withIo: the one switch over dtype bindings that types raw tensors into each kernel overload's Io. */
function emitDispatch(op: OpIR): string {
  const cases = op.bindings.map((b, k) => {
    const cpp = (t: TensorType): string => DTYPE_INFO[dtypeUnder(t, b)].cpp;
    const views = [
      ...op.inputs.map((i) => (i.shapeOnly ? `in[${i.index}].shape` : `view<const ${cpp(i.type)}>(in[${i.index}])`)),
      ...op.outputs.map((o) => `view<${cpp(o.type)}>(out[${o.index}])`),
    ];
    return `    case ${k}: return fn(${ioType(op, b)}${braced(views)});`;
  });
  const run = (device: string, fn: string, ctx: string): string =>
    lines(
      docComment(`Types raw tensors by dtype and calls the ${device} kernel.`),
      `inline Status run${device[0]}${device.slice(1).toLowerCase()}(${RUN_PARAMS}const ${ctx}& ctx) {`,
      `  return withIo(in, out, [&](const auto& io) { return ${fn}(attrs, state, io, ctx); });`,
      '}',
    );
  return paragraphs(
    lines(WITH_IO_HEAD, cases, WITH_IO_END),
    run('CPU', 'cpu', 'CpuContext'),
    op.kernels.cuda
      ? run('CUDA', 'cuda', 'CudaContext')
      : `// No CUDA kernel in the spec: backends run ${op.name} on the CPU only.`,
  );
}

const RUN_PARAMS = 'const Attrs& attrs, const State& state, const RawTensor* in, const RawTensor* out, ';
const WITH_IO_HEAD = lines(
  docComment('Checks dtypes (shapes must have been checked) and calls fn with the Io of the matching kernel overload.'),
  'template <class Fn>',
  'Status withIo(const RawTensor* in, const RawTensor* out, Fn&& fn) {',
  '  int binding = -1;',
  '  OPFORGE_RETURN_IF_ERROR(bindingOf<Core>(in, out, &binding));',
  '  switch (binding) {',
);
const WITH_IO_END = lines('    default: return noKernel<Core>();', '  }', '}');
