// The op core: one C++ header per op that every backend adapter includes. It states the op's
// facts as constexpr tables (an OpInfo) and holds only what differs per op: the attributes and
// state structs, the kernel contract, attribute checks and the shape expressions compiled from
// the IR. Type inference, dispatch, serialization and input checks are templates over those
// tables in generator/static/cpp/opforge/op_core.h; the header's fixed text is op_header.h.tmpl
// beside it.

import type { DtypeChoice, Expr, OpIR, TensorType } from '../../model/ir.js';
import {
  binderOf,
  choiceConds,
  constraintInputs,
  constraintReads,
  coreHeaderPath,
  cppParam,
  dtypeUnder,
  exprAttrName,
  exprReads,
  minOutputs,
  ioType,
  opHash,
  readLabel,
  shapeReads,
  variadicInput,
} from '../../model/ir-helpers.js';
import { ATTR_INFO, type AttrType, DTYPE_INFO, type DType } from '../../model/type-table.js';
import { lengthText } from '../../model/build-attributes.js';
import { MAX_RANK } from '../../model/limits.js';
import {
  CACHE_FILE,
  defineEmitter,
  type Emitter,
  type GeneratedFile,
  lines,
  opFile,
  projectFile,
  STAMP_FILE,
  staticFiles,
} from '../emitter.js';
import {
  braced,
  type Constant,
  constants,
  docComment,
  initializer,
  type TableRow,
  table,
  trailing,
} from '../lang/cpp.js';
import { cppExpr } from '../lang/cpp-expr.js';
import { commentText, cppAttrValue, cppFloat, cppInt, cppString } from '../lang/literals.js';
import { block, fillTemplate, type SlotValue } from '../lang/template.js';
import { hasCudaKernel } from '../../model/ir-helpers.js';

export const coreEmitter: Emitter = defineEmitter({
  name: 'core',
  project(): GeneratedFile[] {
    return [
      ...staticFiles('include/opforge', 'generator/static/cpp/opforge', '.h'),
      // gen's bookkeeping (the no-op stamp, the incremental cache) stays out of a repository that commits out/.
      projectFile('.gitignore', lines("# gen's bookkeeping, not output:", STAMP_FILE, CACHE_FILE)),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    return [opFile(op, coreHeaderPath(op).path, emitCore(op))];
  },
});

/** The op core header (op_header.h.tmpl): the op's facts, structs, kernel contract and shape functions. */
function emitCore(op: OpIR): string {
  return fillTemplate('generator/static/cpp/opforge/op_header.h.tmpl', {
    name: op.name,
    domain: op.domain,
    version: String(op.version),
    snake: op.ident.snake,
    description: op.description ? `// ${commentText(op.description)}\n` : null,
    facts: emitFacts(op),
    ...emitStructs(op),
    ...emitContract(op),
    ...emitValidate(op),
    ...emitSerialization(op),
    ...emitCheckShapes(op),
    ...emitShapes(op),
    ...emitDispatch(op),
    ...emitChoices(op),
  });
}

/** inferTypes' choices: the dtype of each type variable the attributes choose, as nested conditionals. */
function emitChoices(op: OpIR): Slots {
  const chosen = op.typeVars.flatMap((v, k) => (v.choice ? [{ k, choice: v.choice }] : []));
  const reads = exprReads(chosen.flatMap((c) => choiceConds(c.choice)));
  const pick = (c: DtypeChoice): string =>
    c.kind === 'dtype' ? dtypeEnum(c.dtype) : `(${cppExpr(c.cond, shapeEnv)} ? ${pick(c.yes)} : ${pick(c.no)})`;
  const set = chosen.map((c) => `  chosen[${c.k}] = ${pick(c.choice)};  // ${op.typeVars[c.k]!.name}`);
  return {
    chooseAttrs: cppParam('attrs', reads.attrs),
    choose: divisionGuarded(reads.division, 'a dtype choice', set),
  };
}

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
  const each = op.inputs.some((i) => i.type.kind === 'each');
  const follows = op.outputs.some((o) => o.member?.follows !== undefined);
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
    ...(op.dataDims.length
      ? [{ type: INT, name: 'kNumDataDims', value: String(op.dataDims.length), comment: 'dims the kernel decides' }]
      : []),
  ];
  const typeVars = op.typeVars.map((v) => {
    // A variable the attributes choose has no binder (-1): the op's inferTypes sets it from them.
    const row = [
      cppString(v.name),
      v.choice ? -1 : binderOf(op, v.name)!.index,
      v.dtypes.length,
      list(v.dtypes, dtypeEnum),
    ];
    return { value: list(row), comment: `${v.name}: ${v.dtypes.join(', ')}` };
  });
  const bindings = op.bindings.map((b) => ({
    value: ports.map((p) => dtypeEnum(p.type.kind === 'each' ? p.type.dtypes[0]! : dtypeUnder(p.type, b))).join(', '),
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
    ['kInputRanks', 'uint32_t', IN, op.inputs.map((i) => rankMask(i.ranks)), 'bit r: rank r; 0: kInputRank'],
    ['kInputLike', INT, IN, op.inputs.map((i) => like(i.constraint)), 'shaped like; -1: no'],
    ['kOutputLike', INT, OUT, op.outputs.map((o) => like(o.shape)), 'shaped like; -1: computed'],
    ['kPortVar', INT, PORTS, ports.map((p) => String(varOf(p.type))), 'type variable; -1: fixed dtype'],
    ['kPortDtype', 'DType', PORTS, ports.map((p) => fixed(p.type)), 'the fixed dtype'],
    ['kTypeVars', 'TypeVarInfo', undefined, typeVars],
    ['kBindingNames', CHARS, BINDINGS, op.bindings.map((b) => cppString(b.suffix))],
    ['kBindingDtypes', 'DType', `${BINDINGS} * (${PORTS})`, bindings, 'each binding: every port'],
    ['kAttributes', 'AttrInfo', undefined, attrs],
    ...dataDimTables(op),
    ...(each
      ? [
          [
            'kPortEach',
            'uint32_t',
            PORTS,
            ports.map((p) => dtypeMask(p.type)),
            'bit t: each member may be DType t; 0: kPortVar',
          ] as [string, string, string, string[], string],
        ]
      : []),
    ...(follows
      ? [
          [
            'kOutputFollows',
            INT,
            OUT,
            op.outputs.map((o) => String(o.member?.follows !== undefined ? o.member.follows + o.member.index : -1)),
            'the input tensor whose dtype it has; -1: none',
          ] as [string, string, string, string[], string],
        ]
      : []),
  ];
  const printed = tables.map(([name, type, size, rows, comment]) => {
    const t = table({ prefix: 'inline ', type, name, rows, ...(size ? { size } : {}) });
    return comment && !t.includes('\n') ? `${t}${trailing(comment)}` : t;
  });
  // The data dims' facts come last in OpInfo (below), after what every op has.
  // A Triton kernel's configurations beyond the first: TensorRT's tactics.
  const configs = op.kernels.triton?.configs.length ?? 1;
  const tactics = configs > 1 ? configs : 0;
  const dataFacts = new Set(['kNumDataDims', 'kDataDimNames', 'kOutputDataDims', 'kPortEach', 'kOutputFollows']);
  const info = [
    ...scalars.map((c) => c.name).filter((n) => !dataFacts.has(n)),
    ...[op.typeVars.length, op.attributes.length].map(String),
    ...tables.map(([name]) => name).filter((n) => !dataFacts.has(n)),
    ...[hasCudaKernel(op), op.hasConfigure].map(String),
    String(minOutputs(op)),
    String(variadicInput(op)?.variadic?.min ?? 0),
    ...(op.dataDims.length ? ['kNumDataDims', 'kDataDimNames', 'kOutputDataDims'] : ['0', 'nullptr', 'nullptr']),
    // OpInfo's trailing fields have defaults: given up to the last one this op sets.
    ...(each || follows || tactics ? [each ? 'kPortEach' : 'nullptr'] : []),
    ...(follows || tactics ? [follows ? 'kOutputFollows' : 'nullptr'] : []),
    ...(tactics ? [String(tactics)] : []),
  ];
  return lines(constants(scalars, 'inline '), printed, initializer('inline constexpr OpInfo kInfo', info));
}

/** The data dims' names and, per output and axis (kMaxRank a row), the data dim there or -1. */
function dataDimTables(op: OpIR): [string, string, string | undefined, readonly (string | TableRow)[], string?][] {
  if (!op.dataDims.length) return [];
  const rows = op.outputs.map((o) => {
    const row = Array.from({ length: MAX_RANK }, (_, axis) =>
      String(o.dataDims.find((d) => d.axis === axis)?.dim ?? -1),
    );
    return { value: row.join(', '), comment: o.name };
  });
  return [
    ['kDataDimNames', CHARS, 'kNumDataDims', op.dataDims.map((d) => cppString(d.name))],
    ['kOutputDataDims', 'int8_t', `${OUT} * kMaxRank`, rows, 'each output: the data dim at each axis; -1: none'],
  ];
}

type Slots = Record<string, SlotValue>;

function emitStructs(op: OpIR): Slots {
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
  return {
    attrs: struct('Attrs', attrs),
    stateDoc: state.length ? STATE_DOC : NO_STATE_DOC,
    state: struct('State', state),
  };
}

const STATE_DOC = 'State that configure() computes; serialized with the attributes.';
const NO_STATE_DOC = 'No extra state: everything the kernel needs is in Attrs and the shapes.';

type Port = OpIR['inputs'][number] | OpIR['outputs'][number];
const cppType = (t: TensorType): string =>
  t.kind === 'fixed' ? DTYPE_INFO[t.dtype].cpp : t.kind === 'var' ? t.name : 'AnyTensorView';

/** The kernel contract: Io (one field per port) and one cpu / cuda overload per dtype binding. */
function emitContract(op: OpIR): Slots {
  const field = (p: Port, input: boolean): string => {
    const optional = input && 'optional' in p && p.optional ? 'optional: data is null when absent' : '';
    const note = [optional, p.description].filter(Boolean).join('; ');
    if (input && 'shapeOnly' in p && p.shapeOnly)
      return `  Shape ${p.name};  // shape only${note ? `; ${commentText(note)}` : ''}`;
    if (input && 'variadic' in p && p.variadic && p.type.kind === 'each')
      return `  AnyTensorList ${p.name};${trailing([`variadic: its members, in order, each of its own dtype (${p.type.dtypes.join(', ')})`, note].filter(Boolean).join('; '))}`;
    if (input && 'variadic' in p && p.variadic)
      return `  TensorList<const ${cppType(p.type)}> ${p.name};${trailing(['variadic: its members, in order', note].filter(Boolean).join('; '))}`;
    return `  TensorView<${input ? 'const ' : ''}${cppType(p.type)}> ${p.name};${trailing(note)}`;
  };
  const overloads = (fn: string, ctx: string, note: string): string[] => [
    `// ${commentText(note)}`,
    ...op.bindings.map(
      (b) => `Status ${fn}(const Attrs& attrs, const State& state, const ${ioType(op, b)}& io, const ${ctx}& ctx);`,
    ),
  ];
  const cuda =
    op.kernels.cuda ??
    (op.kernels.triton &&
      `the Triton kernel ${op.kernels.triton.kernel} of ${op.kernels.triton.source}, compiled ahead of time (its launcher is generated)`);
  return {
    typeVars: op.typeVars.length ? `template <${op.typeVars.map((t) => `typename ${t.name}`).join(', ')}>` : null,
    ioFields: block([
      ...op.inputs.map((i) => field(i, true)),
      ...op.outputs.flatMap((o) =>
        !o.member
          ? [field(o, false)]
          : o.member.index > 0
            ? []
            : o.type.kind === 'each'
              ? [
                  `  AnyOutputList ${o.member.of};${trailing(
                    [
                      `variadic: its ${o.member.countSource} members, in order, member m of the dtype of member m of ${op.inputs[o.member.follows!]!.name}`,
                      o.description,
                    ]
                      .filter(Boolean)
                      .join('; '),
                  )}`,
                ]
              : [
                  `  TensorList<${cppType(o.type)}> ${o.member.of};${trailing(
                    [`variadic: its ${o.member.countSource} members, in order`, o.description]
                      .filter(Boolean)
                      .join('; '),
                  )}`,
                ],
      ),
      ...op.dataDims.map(
        (d) =>
          `  DataDim ${d.name};${trailing(`decided by the kernel, at most ${d.source}: set it (on the kernel's device)`)}`,
      ),
    ]),
    kernels: lines(
      op.inputs.flatMap((i) =>
        i.type.kind === 'each' ? [memberVisitor(i.ident.pascal, i.name, i.type.dtypes, true)] : [],
      ),
      op.outputs.flatMap((o) =>
        o.member?.index === 0 && o.type.kind === 'each'
          ? [memberVisitor(o.member.ofIdent.pascal, o.member.of, o.type.dtypes, false)]
          : [],
      ),
      overloads('cpu', 'CpuContext', `CPU kernel, in ${op.kernels.cpu}`),
      cuda ? overloads('cuda', 'CudaContext', `CUDA kernel, in ${cuda}: ${CUDA_NOTE}`) : [],
      op.hasConfigure ? [docComment(CONFIGURE_DOC), CONFIGURE] : null,
    ),
  };
}

const CUDA_NOTE = 'launch on ctx.stream, return without synchronizing';
const CONFIGURE_DOC =
  'Fills State from the attributes and input shapes (in the CPU kernel file); called before the first run.';
const CONFIGURE = 'Status configure(const Attrs& attrs, const Shape* inputs, State* state);';

/** validate(): each attribute's range and enum, in spec order; the messages name the bounds as the spec wrote them. */
function emitValidate(op: OpIR): Slots {
  const checks = op.attributes.flatMap((a) => {
    const isFloat = a.type === 'float' || a.type === 'floats';
    const isList = ATTR_INFO[a.type].isList;
    const v = isList ? 'v' : `attrs.${a.name}`;
    const bound = isFloat ? cppFloat : cppInt;
    const bounds = [
      [a.minExclusive ? '>' : '>=', a.min],
      [a.maxExclusive ? '<' : '<=', a.max],
    ].filter((b): b is [string, number] => b[1] !== undefined);
    const conds = [
      ...bounds.map(([op, x]) => `!(${v} ${op} ${bound(x)})`),
      ...(isFloat ? [`!std::isfinite(${v})`] : []),
    ];
    const what = [...(isFloat ? ['finite'] : []), ...bounds.map(([op, x]) => `${op} ${x}`)].join(' and ');
    const check = `if (${conds.join(' || ')}) return failGot(kName, ${cppString(`: attribute ${a.name} must be ${what}, got `)}, ${v});`;
    const values = (a.enum ?? []).map((e) => (a.type === 'string' ? cppString(String(e)) : cppInt(Number(e))));
    const oneOf = cppString(`: attribute ${a.name} must be one of ${(a.enum ?? []).join(', ')}`);
    const size = `attrs.${a.name}.size()`;
    const length =
      a.length === undefined
        ? null
        : `  if (${a.length.map((n) => `${size} != ${n}u`).join(' && ')}) return failGot(kName, ${cppString(`: attribute ${a.name} must have ${lengthText(a.length)} elements, got `)}, ${size});`;
    return [
      length,
      conds.length ? `  ${isList ? `for (const auto v : attrs.${a.name}) ` : ''}${check}` : null,
      a.enum ? `  if (!oneOf(attrs.${a.name}, ${braced(values)})) return fail(kName, ${oneOf});` : null,
    ];
  });
  return { validateAttrs: cppParam('attrs', checks.some(Boolean)), attrChecks: block(checks) };
}

/** visitFields: what serialization reads and writes. */
function emitSerialization(op: OpIR): Slots {
  const fields = [
    ...op.attributes.map((a) => `  f(attrs.${a.name}, ${cppString(a.name)});`),
    ...op.state.map((f) => `  f(state.${f.name}, ${cppString(f.name)});`),
  ];
  return {
    fieldsAttrs: cppParam('attrs', op.attributes.length > 0),
    fieldsState: cppParam('state', op.state.length > 0),
    fieldsF: cppParam('f', fields.length > 0),
    fields: block(fields),
  };
}

const shapeEnv = {
  dim: (i: number, axis: number) =>
    axis < 0 ? `inputs[${i}].dims[inputs[${i}].rank - ${-axis}]` : `inputs[${i}].dims[${axis}]`,
  rank: (i: number) => `int64_t{inputs[${i}].rank}`,
  count: (i: number) => `int64_t{numIn - ${i}}`,
  shape: (i: number) => `inputs[${i}]`,
  attr: (name: string) => `static_cast<int64_t>(attrs.${name})`,
  attrList: (name: string) => `attrs.${name}`,
  okVar: 'ok',
};

/** A function body whose compiled expressions may divide: `bool ok` first, its check after `body`. */
function divisionGuarded(divides: boolean, where: string, body: readonly string[]): SlotValue {
  if (!divides) return block(body);
  return block(['  bool ok = true;', ...body, `  if (!ok) return divisionByZero(kName, ${cppString(where)});`]);
}

/** checkShapes: the generic input checks, with each input's dim expressions after its own checks. */
function emitCheckShapes(op: OpIR): Slots {
  const body: string[] = [];
  let from = 0;
  const variadic = variadicInput(op);
  const generic = (to: number): void => {
    const end = to === op.inputs.length ? (variadic ? 'numIn' : 'kNumInputs') : to;
    if (to > from) body.push(`  OPFORGE_RETURN_IF_ERROR(checkInputShapes<Core>(${from}, ${end}, inputs, present));`);
    from = to;
  };
  for (const i of op.inputs) {
    if (i.constraint.kind !== 'dims') continue;
    // The inputs the constraint reads (a later one too) pass their own checks (rank) first.
    generic(Math.max(from, i.index + 1, ...constraintInputs(i.constraint).map((j) => j + 1)));
    const guard = i.optional ? `present[${i.index}] && ` : '';
    // A variadic input's members are each held to the constraint (tensor m; the expressions read others).
    const t = i.variadic ? 'm' : String(i.index);
    const checks = i.constraint.dims.flatMap((d, axis) => {
      if (d.kind !== 'expr') return [];
      const got = `inputs[${t}].dims[${axis}]`;
      const what = `: dim ${axis} of input ${i.name} must equal ${commentText(d.source).replace(/["\\]/g, '')}, got `;
      return [`if (${guard}${got} != ${cppExpr(d.expr, shapeEnv)}) return failGot(kName, ${cppString(what)}, ${got});`];
    });
    if (i.variadic && checks.length)
      body.push(`  for (int m = ${i.index}; m < numIn; ++m) {`, ...checks.map((c) => `    ${c}`), '  }');
    else body.push(...checks.map((c) => `  ${c}`));
  }
  generic(op.inputs.length);
  const reads = constraintReads(op.inputs.map((i) => i.constraint));
  const checks = exprReads(op.checks.map((c) => c.expr));
  // The spec's checks, after every input's own; one reading an optional input applies when it is present.
  for (const c of op.checks) {
    const when = c.optional.map((i) => `present[${i}] && `).join('');
    const values = c.reads.map((x) => `{${cppString(readLabel(op, x))}, shownField(${readValue(x)})}`);
    const failed = `checkFailed(kName, ${cppString(c.source)}, {${values.join(', ')}}, ${cppString(c.message ?? '')})`;
    const divides = exprReads([c.expr]).division;
    body.push(
      `  if (${when}!(${cppExpr(c.expr, shapeEnv)})) return ${divides ? `ok ? ${failed} : divisionByZero(kName, ${cppString(`check '${c.source}'`)})` : failed};`,
    );
  }
  return {
    checkAttrs: cppParam('attrs', reads.attrs || checks.attrs),
    checkCount: cppParam('numIn', !!variadic),
    shapeChecks: divisionGuarded(reads.division || checks.division, 'an input shape constraint', body),
  };
}

/** The C++ value a check's message shows for a read: the dim, or the whole attribute as stored. */
function readValue(e: Expr): string {
  if (e.kind === 'dim') return shapeEnv.dim(e.inputIndex, e.axis);
  if (e.kind === 'rank' || e.kind === 'slice' || e.kind === 'count') return cppExpr(e, shapeEnv);
  return `attrs.${exprAttrName(e)}`;
}

/** inferShapes and workspaceSize: the spec's shape expressions compiled to C++. */
function emitShapes(op: OpIR): Slots {
  const presence = op.outputs.flatMap((o) => (o.present ? [o.present.expr] : []));
  const out = shapeReads(op.outputs.map((o) => o.shape));
  const cond = exprReads(presence);
  out.attrs ||= cond.attrs;
  out.division ||= cond.division;
  // An absent output has no shape: its expressions are not evaluated (they may not hold then).
  const inferOne = (o: OpIR['outputs'][number]): string => {
    const line = inferLine(o);
    return o.present ? `  if (${cppExpr(o.present.expr, shapeEnv)}) ${line.trimStart()}` : line;
  };
  const inferLine = (o: OpIR['outputs'][number]): string => {
    if (o.shape.kind === 'like')
      return `  outputs[${o.index}] = inputs[${o.shape.inputIndex}];  // shape of ${o.shape.input}`;
    if (o.shape.kind === 'splice') {
      const { parts, source } = o.shape;
      const printed = parts.map((x, k) => {
        if (x.kind === 'dim') return `dimPart(${cppExpr(x.expr, shapeEnv)})`;
        const bound = (b: Expr | null): string => (b === null ? 'kNoBound' : cppExpr(b, shapeEnv));
        return `slicePart(inputs[${x.inputIndex}], ${bound(x.start)}, ${bound(x.end)}, ${cppString(source[k]!.trim())})`;
      });
      return `  OPFORGE_RETURN_IF_ERROR(splicedOutput<Core>(outputs, ${o.index}, ${braced(printed)}));${trailing(source.join(', '))}`;
    }
    const dims = list(o.shape.dims, (e) => cppExpr(e, shapeEnv));
    return `  OPFORGE_RETURN_IF_ERROR(computedOutput<Core>(outputs, ${o.index}, ${dims}));${trailing(o.shape.source.join(', '))}`;
  };
  const infer = op.outputs.map(inferOne);
  const ws = exprReads([op.workspace]);
  const params = (r: { attrs: boolean; dims: boolean; counts: boolean }, types: string): string =>
    `const Attrs& ${cppParam('attrs', r.attrs)}, const Shape* ${cppParam('inputs', r.dims)}${types}, int ${cppParam('numIn', r.counts)}`;
  const n = `  const int64_t n = ${cppExpr(op.workspace, { ...shapeEnv, dtype: (i) => `types[${i}]` })};`;
  const present = op.outputs.flatMap((o) =>
    o.present
      ? [`  present[${o.index}] = ${cppExpr(o.present.expr, shapeEnv)};  // ${commentText(o.present.source)}`]
      : [],
  );
  return {
    presentAttrs: cppParam('attrs', cond.attrs),
    presentBuffer: cppParam('present', presence.length > 0),
    presence: divisionGuarded(cond.division, "an output's presence", present),
    inferParams: params(out, ''),
    infer: divisionGuarded(out.division, 'an output shape', infer),
    workspaceParams: params(ws, `, const DType* ${cppParam('types', ws.types)}`),
    workspace: divisionGuarded(ws.division, 'the workspace size', [n]),
  };
}

/** withIo's cases: the one switch over dtype bindings that types raw tensors into each kernel overload's Io. */
function emitDispatch(op: OpIR): Slots {
  const cases = op.bindings.map((b, k) => {
    const cpp = (t: TensorType): string => DTYPE_INFO[dtypeUnder(t, b)].cpp;
    const views = [
      ...op.inputs.map((i) =>
        i.shapeOnly
          ? `in[${i.index}].shape`
          : i.type.kind === 'each'
            ? `anyMembers(in + ${i.index}, numIn - ${i.index})`
            : i.variadic
              ? `members.of(in + ${i.index}, numIn - ${i.index})`
              : `view<const ${cpp(i.type)}>(in[${i.index}])`,
      ),
      ...op.outputs.flatMap((o) =>
        !o.member
          ? [`view<${cpp(o.type)}>(out[${o.index}])`]
          : o.member.index > 0
            ? []
            : o.type.kind === 'each'
              ? [`presentAnyMembers(out + ${o.index}, ${o.member.max})`]
              : [`presentMembers<${cpp(o.type)}>(out + ${o.index}, ${o.member.max})`],
      ),
      ...op.dataDims.map((d) => `dataDim<Core>(out, ${d.index})`),
    ];
    const call = `return fn(${ioType(op, b)}${braced(views)});`;
    // A variadic input's views live in `members` while the kernel runs.
    const v = variadicInput(op);
    if (v && v.type.kind !== 'each')
      return `    case ${k}: {\n      Members<const ${cpp(v.type)}> members;\n      ${call}\n    }`;
    return `    case ${k}: ${call}`;
  });
  return {
    cases: lines(cases),
    cuda: hasCudaKernel(op) ? RUN_CUDA : `// No CUDA kernel in the spec: backends run ${op.name} on the CPU only.`,
  };
}

const RUN_CUDA = lines(
  docComment('Types raw tensors by dtype and calls the CUDA kernel.'),
  'inline Status runCuda(const Attrs& attrs, const State& state, const RawTensor* in, int numIn, const RawTensor* out, const CudaContext& ctx) {',
  '  return withIo(attrs, in, numIn, out, [&](const auto& io) { return cuda(attrs, state, io, ctx); });',
  '}',
);

/** The ranks an input may have when the spec lists several, as a mask (bit r: rank r); 0u otherwise. */
function rankMask(ranks: readonly number[] | null): string {
  return `${(ranks ?? []).reduce((m, r) => m | (1 << r), 0)}u`;
}

/** A heterogeneous variadic input's dtypes as DType bits (`dtypeBit(DType::kFloat32) | ...`); 0u for any other port. */
function dtypeMask(t: TensorType): string {
  return t.kind === 'each' ? t.dtypes.map((d) => `dtypeBit(${dtypeEnum(d)})`).join(' | ') : '0u';
}

/**
 * `visit<Input>(member, f)` of a heterogeneous variadic input: f of the member's view typed by its
 * own dtype, for the dtypes the spec allows only (so f is instantiated for those alone).
 */
function memberVisitor(pascal: string, name: string, dtypes: readonly DType[], input: boolean): string {
  const cpp = (d: DType): string => DTYPE_INFO[d].cpp;
  const [first, ...rest] = dtypes;
  return [
    docComment(
      `Calls f with a member of \`${name}\` typed by its own dtype: f(TensorView<${input ? 'const ' : ''}T>) for T of ${dtypes.map(cpp).join(', ')} (the op core has checked it is one of them).`,
    ),
    'template <class F>',
    `decltype(auto) visit${pascal}(const ${input ? 'AnyTensorView' : 'AnyOutputView'}& member, F&& f) {`,
    '  switch (member.dtype) {',
    ...rest.map((d) => `    case ${dtypeEnum(d)}: return f(member.as<${cpp(d)}>());`),
    `    default: return f(member.as<${cpp(first!)}>());  // ${first}`,
    '  }',
    '}',
    '',
  ].join('\n');
}
