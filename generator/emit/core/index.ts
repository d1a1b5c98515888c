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
} from '../emitter.js';
import { braced, type Constant, constants, cppUnit, docComment, table, trailing } from '../lang/cpp.js';
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
    comment: [
      `${op.name} (${op.domain}::${op.name}, version ${op.version}): the op core every backend shares.`,
      ...(op.description ? [op.description] : []),
    ],
    header: true,
    includes: { system: ['cstdint', 'string', 'vector'], project: ['opforge/op_core.h'] },
    namespace: ['opforge', 'ops', op.ident.snake],
    body: [
      emitFacts(op),
      '',
      emitStructs(op),
      '',
      emitContract(op),
      '',
      docComment('This op core as a type: what every backend adapter is instantiated with.'),
      'struct Core : CoreOf<kInfo, Attrs, State> {};',
      '',
      emitValidate(op),
      '',
      emitSerialization(op),
      '',
      emitShapes(op),
      '',
      emitDispatch(op),
    ],
  });
}

const dtypeEnum = (d: DType): string => `DType::${DTYPE_INFO[d].cppEnum}`;

/** The opforge::AttrType enumerator of an attribute type (op_core.h). */
export const attrTypeEnum = (t: AttrType): string => `AttrType::k${t[0]!.toUpperCase()}${t.slice(1)}`;
const list = <T>(xs: readonly T[], f: (x: T) => string = String): string => braced(xs.map(f));

/** The op's facts: what op_core.h's templates and the backends (TensorRT, ONNX Runtime) read. */
function emitFacts(op: OpIR): string {
  const ports = [...op.inputs, ...op.outputs];
  const varOf = (t: TensorType): number => (t.kind === 'var' ? op.typeVars.findIndex((v) => v.name === t.name) : -1);
  const fixed = (t: TensorType): string => dtypeEnum(t.kind === 'fixed' ? t.dtype : t.dtypes[0]!);
  const hash = opHash(op).toString(16).padStart(8, '0');
  const facts: Constant[] = [
    { type: 'const char*', name: 'kName', value: cppString(op.name) },
    { type: 'const char*', name: 'kDomain', value: cppString(op.domain) },
    { type: 'int32_t', name: 'kVersion', value: String(op.version) },
    { type: 'uint32_t', name: 'kHash', value: `0x${hash}u`, comment: `fnv1a("${op.domain}::${op.name}")` },
    { type: 'int', name: 'kNumInputs', value: String(op.inputs.length) },
    { type: 'int', name: 'kNumOutputs', value: String(op.outputs.length) },
    { type: 'int', name: 'kNumBindings', value: String(op.bindings.length), comment: 'dtype combinations' },
  ];
  const io = (size: string, type: string, name: string, rows: string[], comment?: string): string =>
    `${table({ prefix: 'inline ', type, name, rows, size })}${trailing(comment)}`;
  const typeVars = op.typeVars.map((v) => {
    const binder = op.inputs.find((i) => !i.optional && i.type.kind === 'var' && i.type.name === v.name)!;
    const row = [cppString(v.name), binder.index, v.dtypes.length, list(v.dtypes, dtypeEnum)];
    return { value: list(row), comment: `${v.name}: ${v.dtypes.join(', ')}` };
  });
  const attrs = op.attributes.map((a) => {
    return list([cppString(a.name), attrTypeEnum(a.type), String(a.required)]);
  });
  const nPorts = 'kNumInputs + kNumOutputs';
  return lines(
    constants(facts, 'inline '),
    io(
      'kNumInputs',
      'const char*',
      'kInputNames',
      op.inputs.map((i) => cppString(i.name)),
    ),
    io(
      'kNumOutputs',
      'const char*',
      'kOutputNames',
      op.outputs.map((o) => cppString(o.name)),
    ),
    io(
      'kNumInputs',
      'bool',
      'kInputOptional',
      op.inputs.map((i) => String(i.optional)),
    ),
    io(
      'kNumInputs',
      'bool',
      'kInputShapeOnly',
      op.inputs.map((i) => String(i.shapeOnly)),
    ),
    io(
      'kNumInputs',
      'int32_t',
      'kInputRank',
      op.inputs.map((i) => String(i.rank ?? -1)),
      '-1: any',
    ),
    io(
      'kNumInputs',
      'int',
      'kInputLike',
      op.inputs.map((i) => String(i.constraint.kind === 'like' ? i.constraint.inputIndex : -1)),
      'shaped like; -1: no',
    ),
    io(
      'kNumOutputs',
      'int',
      'kOutputLike',
      op.outputs.map((o) => String(o.shape.kind === 'like' ? o.shape.inputIndex : -1)),
      'shaped like; -1: computed',
    ),
    io(
      nPorts,
      'int',
      'kPortVar',
      ports.map((p) => String(varOf(p.type))),
      'type variable; -1: fixed dtype',
    ),
    io(
      nPorts,
      'DType',
      'kPortDtype',
      ports.map((p) => fixed(p.type)),
      'the fixed dtype',
    ),
    table({ prefix: 'inline ', type: 'TypeVarInfo', name: 'kTypeVars', rows: typeVars }),
    io(
      'kNumBindings',
      'const char*',
      'kBindingNames',
      op.bindings.map((b) => cppString(b.suffix)),
    ),
    table({
      prefix: 'inline ',
      type: 'DType',
      name: 'kBindingDtypes',
      size: `kNumBindings * (${nPorts})`,
      rows: op.bindings.map((b) => ({
        value: ports.map((p) => dtypeEnum(dtypeUnder(p.type, b))).join(', '),
        comment: b.suffix || 'fixed dtypes',
      })),
    }),
    table({ prefix: 'inline ', type: 'AttrInfo', name: 'kAttributes', rows: attrs }),
    'inline constexpr OpInfo kInfo = {',
    `    kName, kDomain, kVersion, kHash, kNumInputs, kNumOutputs, kNumBindings, ${op.typeVars.length}, ${op.attributes.length},`,
    '    kInputNames, kOutputNames, kInputOptional, kInputShapeOnly, kInputRank, kInputLike, kOutputLike, kPortVar,',
    `    kPortDtype, kTypeVars, kBindingNames, kBindingDtypes, kAttributes, ${op.kernels.cuda !== undefined}, ${op.hasConfigure}};`,
  );
}

function emitStructs(op: OpIR): string {
  const zero = (t: string): string => (t === 'bool' ? 'false' : ['int', 'float'].includes(t) ? '0' : '');
  const attrs = op.attributes.map((a) => {
    const init = a.default !== undefined ? cppAttrValue(a, a.default) : zero(a.type);
    const note = [a.required ? 'required' : '', a.description].filter(Boolean).join('; ');
    return `  ${ATTR_INFO[a.type].cpp} ${a.name}${init ? ` = ${init}` : ''};${trailing(note)}`;
  });
  const state = op.state.map((s) => {
    const init = zero(s.type);
    return `  ${ATTR_INFO[s.type].cpp} ${s.name}${init ? `{${init}}` : ''};${trailing(s.description)}`;
  });
  return lines(
    docComment("Attributes, initialized to the spec's defaults."),
    attrs.length ? lines('struct Attrs {', attrs, '};') : 'struct Attrs {};',
    '',
    docComment(
      state.length
        ? 'State that configure() computes; serialized with the attributes.'
        : 'No extra state: everything the kernel needs is in Attrs and the shapes.',
    ),
    state.length ? lines('struct State {', state, '};') : 'struct State {};',
  );
}

type Port = OpIR['inputs'][number] | OpIR['outputs'][number];
const cppType = (t: TensorType): string => (t.kind === 'fixed' ? DTYPE_INFO[t.dtype].cpp : t.name);

function emitContract(op: OpIR): string {
  const field = (p: Port, input: boolean): string => {
    const optional = input && 'optional' in p && p.optional ? 'optional: data is null when absent' : '';
    const note = [optional, p.description].filter(Boolean).join('; ');
    if (input && 'shapeOnly' in p && p.shapeOnly)
      return `  Shape ${p.name};  // shape only${note ? `; ${commentText(note)}` : ''}`;
    return `  TensorView<${input ? 'const ' : ''}${cppType(p.type)}> ${p.name};${trailing(note)}`;
  };
  const kernels = [{ fn: 'cpu', ctx: 'CpuContext', note: `CPU kernel, in ${op.kernels.cpu}` }];
  if (op.kernels.cuda)
    kernels.push({
      fn: 'cuda',
      ctx: 'CudaContext',
      note: `CUDA kernel, in ${op.kernels.cuda}: launch on ctx.stream, return without synchronizing`,
    });
  return lines(
    '// ---- Kernel contract ------------------------------------------------------------',
    '// The kernel files named by the spec define these functions, one overload per dtype',
    '// combination. Tensors are contiguous, row-major; shapes have been checked.',
    op.typeVars.length ? `template <${op.typeVars.map((t) => `typename ${t.name}`).join(', ')}>` : null,
    'struct Io {',
    op.inputs.map((i) => field(i, true)),
    op.outputs.map((o) => field(o, false)),
    '};',
    '',
    kernels.flatMap((k) => [
      `// ${commentText(k.note)}`,
      ...op.bindings.map(
        (b) =>
          `Status ${k.fn}(const Attrs& attrs, const State& state, const ${ioType(op, b)}& io, const ${k.ctx}& ctx);`,
      ),
    ]),
    op.hasConfigure
      ? [
          docComment(
            'Fills State from the attributes and input shapes (in the CPU kernel file); called before the first run.',
          ),
          'Status configure(const Attrs& attrs, const Shape* inputs, State* state);',
        ]
      : null,
  );
}

function emitValidate(op: OpIR): string {
  const checks: string[] = [];
  for (const a of op.attributes) {
    const isFloat = a.type === 'float' || a.type === 'floats';
    const isList = a.type === 'ints' || a.type === 'floats';
    const v = isList ? 'v' : `attrs.${a.name}`;
    const bound = (x: number): string => (isFloat ? cppFloat(x) : cppInt(x));
    const conds = [
      a.min !== undefined ? `!(${v} >= ${bound(a.min)})` : null,
      a.max !== undefined ? `!(${v} <= ${bound(a.max)})` : null,
      isFloat ? `!std::isfinite(${v})` : null,
    ].filter((c): c is string => c !== null);
    const range = [a.min !== undefined ? `>= ${a.min}` : '', a.max !== undefined ? `<= ${a.max}` : ''];
    const what = [isFloat ? 'finite' : '', ...range].filter(Boolean).join(' and ');
    const fail = `return failGot(kName, ${cppString(`: attribute ${a.name} must be ${what}, got `)}, ${v});`;
    if (conds.length) {
      const check = `if (${conds.join(' || ')}) ${fail}`;
      checks.push(isList ? `  for (const auto v : attrs.${a.name}) ${check}` : `  ${check}`);
    }
    if (a.enum) {
      const values = a.enum.map((e) => (a.type === 'string' ? cppString(String(e)) : cppInt(Number(e))));
      const message = cppString(`: attribute ${a.name} must be one of ${a.enum.map(String).join(', ')}`);
      checks.push(`  if (!oneOf(attrs.${a.name}, ${list(values)})) return fail(kName, ${message});`);
    }
  }
  return lines(
    docComment("Checks attribute values against the spec's enums and ranges."),
    `inline Status validate(const Attrs& ${cppParam('attrs', checks.length > 0)}) {`,
    checks,
    '  return Status::Ok();',
    '}',
  );
}

function emitSerialization(op: OpIR): string {
  const fields = [
    ...op.attributes.map((a) => `  f(attrs.${a.name}, ${cppString(a.name)});`),
    ...op.state.map((s) => `  f(state.${s.name}, ${cppString(s.name)});`),
  ];
  const a = cppParam('attrs', op.attributes.length > 0);
  const s = cppParam('state', op.state.length > 0);
  return lines(
    docComment('Attributes, then state: the fields serialize() writes and deserialize() reads, in order.'),
    'template <class A, class S, class F>',
    `void visitFields(A& ${a}, S& ${s}, F&& ${cppParam('f', fields.length > 0)}) {`,
    fields,
    '}',
    docComment('Serialization and type inference: the templates of opforge/op_core.h over this op.'),
    'inline size_t serializedSize(const Attrs& a, const State& s) { return serializedSizeOf<Core>(a, s); }',
    'inline void serialize(const Attrs& a, const State& s, void* buffer) { serializeTo<Core>(a, s, buffer); }',
    'inline Status deserialize(const void* data, size_t size, Attrs* a, State* s) { return deserializeFrom<Core>(data, size, a, s); }',
    'inline Status inferTypes(const DType* in, const bool* present, DType* out, int* binding) { return inferTypesOf<kInfo>(in, present, out, binding); }',
  );
}

const shapeEnv = {
  dim: (i: number, axis: number) => `inputs[${i}].dims[${axis}]`,
  attr: (name: string) => `static_cast<int64_t>(attrs.${name})`,
  okVar: 'ok',
};

/** `bool ok = true;` and its check, where a compiled expression divides. */
const division = (divides: boolean, where: string): [string | null, string | null] =>
  divides ? ['  bool ok = true;', `  if (!ok) return divisionByZero(kName, ${cppString(where)});`] : [null, null];

/** checkShapes: the generic input checks, with each input's dim expressions after its own checks. */
function emitCheckShapes(op: OpIR): string {
  const body: string[] = [];
  let from = 0;
  const generic = (to: number): void => {
    const end = to === op.inputs.length ? 'kNumInputs' : to;
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
  const [ok, okCheck] = division(reads.division, 'an input shape constraint');
  return lines(
    docComment(
      'Checks input ranks and every dim the spec constrains. present[i] is false for an absent optional input.',
    ),
    `inline Status checkShapes(const Attrs& ${cppParam('attrs', reads.attrs)}, const Shape* inputs, const bool* present) {`,
    ok,
    body,
    okCheck,
    '  return Status::Ok();',
    '}',
  );
}

function emitShapes(op: OpIR): string {
  const out = shapeReads(op.outputs.map((o) => o.shape));
  const infer = op.outputs.map((o) => {
    if (o.shape.kind === 'like')
      return `  outputs[${o.index}] = inputs[${o.shape.inputIndex}];  // shape of ${o.shape.input}`;
    const dims = o.shape.dims.map((e) => cppExpr(e, shapeEnv));
    const src = o.shape.kind === 'dims' ? o.shape.source.join(', ') : '';
    return `  OPFORGE_RETURN_IF_ERROR(computedOutput<Core>(outputs, ${o.index}, ${list(dims)}));${trailing(src)}`;
  });
  const ws = exprReads([op.workspace]);
  const [ok, okCheck] = division(out.division, 'an output shape');
  const [wsOk, wsOkCheck] = division(ws.division, 'the workspace size');
  return lines(
    emitCheckShapes(op),
    '',
    docComment("Output shapes from the spec's shape expressions. Call after checkShapes()."),
    `inline Status inferShapes(const Attrs& ${cppParam('attrs', out.attrs)}, const Shape* ${cppParam('inputs', out.dims)}, Shape* outputs) {`,
    ok,
    infer,
    okCheck,
    '  return Status::Ok();',
    '}',
    '',
    docComment('Scratch bytes the kernel needs for these input shapes.'),
    `inline Status workspaceSize(const Attrs& ${cppParam('attrs', ws.attrs)}, const Shape* ${cppParam('inputs', ws.dims)}, size_t* bytes) {`,
    wsOk,
    `  const int64_t n = ${cppExpr(op.workspace, shapeEnv)};`,
    wsOkCheck,
    '  return workspaceBytes(kName, n, bytes);',
    '}',
  );
}

/** withIo: the one switch over dtype bindings that types raw tensors into each kernel overload's Io. */
function emitDispatch(op: OpIR): string {
  const cases = op.bindings.map((b, k) => {
    const views = [
      ...op.inputs.map((i) =>
        i.shapeOnly ? `in[${i.index}].shape` : `view<const ${DTYPE_INFO[dtypeUnder(i.type, b)].cpp}>(in[${i.index}])`,
      ),
      ...op.outputs.map((o) => `view<${DTYPE_INFO[dtypeUnder(o.type, b)].cpp}>(out[${o.index}])`),
    ];
    return `    case ${k}: return fn(${ioType(op, b)}${list(views)});`;
  });
  const run = (name: string, fn: string, ctx: string): string[] => [
    `inline Status ${name}(const Attrs& attrs, const State& state, const RawTensor* in, const RawTensor* out, const ${ctx}& ctx) {`,
    `  return withIo(in, out, [&](const auto& io) { return ${fn}(attrs, state, io, ctx); });`,
    '}',
  ];
  return lines(
    docComment(
      'Checks dtypes (shapes must have been checked) and calls fn with the Io of the matching kernel overload.',
    ),
    'template <class Fn>',
    'Status withIo(const RawTensor* in, const RawTensor* out, Fn&& fn) {',
    '  int binding = -1;',
    '  OPFORGE_RETURN_IF_ERROR(bindingOf<Core>(in, out, &binding));',
    '  switch (binding) {',
    cases,
    '    default: return noKernel<Core>();',
    '  }',
    '}',
    '',
    docComment('Types raw tensors by dtype and calls the CPU kernel.'),
    run('runCpu', 'cpu', 'CpuContext'),
    op.kernels.cuda
      ? [
          '',
          docComment('Types raw tensors by dtype and calls the CUDA kernel.'),
          ...run('runCuda', 'cuda', 'CudaContext'),
        ]
      : `// No CUDA kernel in the spec: backends run ${op.name} on the CPU only.`,
  );
}
