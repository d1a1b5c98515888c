// Semantic validation (what the JSON Schema cannot express) and normalization into the IR.
// Runs after the schema check, so the raw value has the schema's shape.

import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic, KeyPath } from './diagnostics.js';
import { didYouMean, shown } from './diagnostics.js';
import { ExprSyntaxError, formatExpr, parseExpr, visitExpr } from './expr.js';
import { ExprTyper, MEMBER, type SizeReading, type TypingContext } from './expr-typing.js';
import { DEFAULT_MAX_OUTPUT_MEMBERS } from './limits.js';
import { choiceDtypes, compileChoice } from './dtype-choice.js';
import { allowedDtypes, exprAttrName } from './ir-helpers.js';
import type {
  AttributeIR,
  CheckIR,
  DataDimIR,
  Expr,
  InputIR,
  OpIR,
  OutputIR,
  ShapeIR,
  StateFieldIR,
  TensorType,
  TypeBinding,
  TypeVarIR,
} from './ir.js';
import { diagAt, quoteOffset, type LoadedSpec } from './load.js';
import { identProblem, idents, opIdents, snakeProblem } from './names.js';
import { DTYPES, DTYPE_INFO, type AttrType, type DType } from './type-table.js';
import { buildAttribute } from './build-attributes.js';
import { type AttrReading, type ExprAttrs, exprAttrs as attrsOfExprs } from './expr-attrs.js';
import { buildTest } from './build-tests.js';
import {
  type LetDef,
  type LetScope,
  MAX_INLINED_NODES,
  inlinedSize,
  letScope,
  pendingLetErrors,
  readLet,
  scopeOfLet,
} from './lets.js';
import { buildInputs } from './build-inputs.js';
import { buildTriton, type RawTriton } from './build-triton.js';
import { buildOutputDims } from './build-splice.js';
import { AI_ONNX_OPS, defaultDomain } from './onnx-std-ops.js';

export type DimSpec = number | string;
export interface RawInput {
  name: string;
  dtype: string;
  rank?: number | number[];
  shape?: string | DimSpec[];
  optional?: boolean;
  shape_only?: boolean;
  variadic?: boolean;
  min_count?: number;
  homogeneous?: boolean;
  differentiable?: boolean;
  description?: string;
}
interface RawOutput {
  name: string;
  dtype: string;
  shape: string | DimSpec[];
  differentiable?: boolean;
  present?: string;
  variadic?: string;
  min_count?: number;
  max_count?: number;
  description?: string;
}
/** One `backward` entry as written: names, resolved against the gradient op by generator/model/backward.ts. */
export interface RawGradient {
  op: string;
  inputs: Record<string, string>;
  attributes?: Record<string, string>;
  outputs: Record<string, string>;
}
export interface RawAttr {
  name: string;
  type: AttrType;
  default?: unknown;
  required?: boolean;
  enum?: (string | number)[];
  min?: number;
  max?: number;
  exclusive_min?: number;
  exclusive_max?: number;
  length?: number | number[];
  description?: string;
}
interface RawState {
  name: string;
  type: AttrType;
  description?: string;
}
export type RawTestInput = number[] | { shape: number[]; values?: number[]; range?: [number, number]; dtype?: DType };
export interface RawTest {
  /** A variadic input: its members' list. */
  inputs: Record<string, RawTestInput | RawTestInput[]>;
  attributes?: Record<string, unknown>;
  types?: Record<string, DType>;
  rtol?: number;
  atol?: number;
  seed?: number;
}
export interface RawSpec {
  name: string;
  snake?: string;
  domain?: string;
  version: number;
  description?: string;
  types?: Record<string, DType[] | string>;
  inputs: RawInput[];
  outputs: RawOutput[];
  attributes?: RawAttr[];
  state?: RawState[];
  workspace?: DimSpec;
  let?: Record<string, DimSpec>;
  data_dims?: Record<string, DimSpec>;
  checks?: (string | { check: string; message?: string })[];
  kernels: { cpu: string; cuda?: string; reference?: string; triton?: RawTriton };
  tests?: RawTest[];
  backward?: RawGradient[];
}

const MAX_BINDINGS = 64;

export interface BuildContext {
  /** Absolute project root: kernel files must lie inside it. */
  root: string;
  /** The ONNX domain of a spec that names none (ProjectNames.defaultDomain); default `custom`. */
  defaultDomain?: string;
}

export function buildOp(
  spec: LoadedSpec,
  ctx: BuildContext,
): { op?: OpIR; errors: Diagnostic[]; backward?: RawGradient[] } {
  const raw = spec.value as RawSpec;
  const errors: Diagnostic[] = [];
  const err: ErrFn = (p, message, opts = {}) => {
    errors.push(diagAt(spec, p, message, opts));
  };
  const checkIdent = (p: KeyPath, name: string): void => {
    const problem = identProblem(name);
    if (problem) err(p, `\`${name}\` ${problem}`);
  };

  const domain = checkOpNames(raw, ctx.defaultDomain ?? 'custom', checkIdent, err);
  const types = typeVariables(raw.types, checkIdent, err, (p) => quoteOffset(spec, p));
  const claim = nameClaims(err);

  // Attributes first: shape expressions refer to them.
  const attributes: AttributeIR[] = (raw.attributes ?? []).map((a, i) => {
    const p: KeyPath = ['attributes', i];
    checkIdent([...p, 'name'], a.name);
    claim([...p, 'name'], a.name, 'attribute');
    return buildAttribute(a, p, err);
  });
  const exprAttrs = attrsOfExprs(attributes);
  const lets = letScope(raw.let);
  for (const tv of types.vars)
    if (typeof raw.types?.[tv.name] === 'string' && tv.dtypes.length)
      tv.choice = compileChoice(raw.types[tv.name] as string, ['types', tv.name], exprAttrs, spec, errors);

  const scope: Scope = { spec, errors, err, checkIdent, claim, resolveType: types.resolve, exprAttrs, lets };
  const inputs = buildInputs(raw.inputs, scope);
  checkOptionalInputsLast(inputs, err);
  // Shape expressions may not read dims of optional inputs (they may be absent).
  const readable = inputs.filter((x) => !x.optional);

  const dataDims = buildDataDims(raw.data_dims, readable, scope);
  const memberChecks: CheckIR[] = [];
  const outputs = buildOutputs(raw.outputs, inputs, readable, scope, dataDims, memberChecks);
  dataDims.forEach((d) => {
    if (!outputs.some((o) => o.dataDims.some((x) => x.dim === d.index)))
      err(['data_dims', d.name], `data dim \`${d.name}\` is named by no output's dims`, {
        at: 'key',
        hint: `name it as an entry of an output's shape, e.g. [${d.name}]`,
      });
  });
  // A heterogeneous variadic input's variable binds nothing: out of the bindings, on no other tensor.
  const perMember = perMemberVars(inputs, outputs, memberChecks, err);
  const typeVars = types.vars.filter((v) => !perMember.has(v.name));
  checkTypeVarsInferable(typeVars, types.used, types.chosen, inputs, err);
  if (types.chosen.size && inputs.filter((x) => x.optional).length > 1)
    err(
      ['types', [...types.chosen][0]!],
      `a type variable the attributes choose needs an op with at most one optional input: ONNX Runtime types such an output in the op's shape inference, which it cannot run on a node that leaves out an optional input before a present one`,
      { at: 'key' },
    );

  const state: StateFieldIR[] = (raw.state ?? []).map((s, i) => {
    checkIdent(['state', i, 'name'], s.name);
    claim(['state', i, 'name'], s.name, 'state field');
    return { name: s.name, ident: idents(s.name), type: s.type, description: s.description ?? '' };
  });

  const sizes = typeSizes(typeVars, readable);
  const workspace: Expr =
    raw.workspace === undefined
      ? { kind: 'int', value: 0 }
      : (compileDim(raw.workspace, ['workspace'], readable, exprAttrs, spec, errors, lets, 'int', 0, sizes) ?? {
          kind: 'int',
          value: 0,
        });

  // Each let on its own, over what any expression may read; then the uses that failed where they were.
  // Claimed after the other names, so a let shadowing an input or attribute is the one reported.
  for (const l of lets.all.values()) {
    const problem = identProblem(l.name);
    if (problem) err(['let', l.name], `\`${l.name}\` ${problem}`, { at: 'key' });
    claim(['let', l.name], l.name, 'let', 'key');
  }
  for (const l of lets.all.values())
    l.ok =
      compileDim(l.source, ['let', l.name], readable, exprAttrs, spec, errors, scopeOfLet(lets, l), 'any', 0, sizes) !==
      undefined;
  errors.push(...pendingLetErrors(lets));

  // Checks read optional inputs too: a check holds vacuously while one it reads is absent.
  const checks = [...buildChecks(raw.checks ?? [], inputs, exprAttrs, spec, errors, lets), ...memberChecks];

  const kernels = buildKernels(raw.kernels, spec, ctx, err);
  const triton = raw.kernels.triton && buildTritonKernel(raw, scope, ctx, { inputs, outputs, attributes, readable });
  if (triton) kernels.triton = triton;

  const bindings = enumerateBindings(typeVars);
  if (bindings.length > MAX_BINDINGS)
    err(
      ['types'],
      `the type variables allow ${bindings.length} dtype combinations; at most ${MAX_BINDINGS} are supported`,
    );

  const tests = (raw.tests ?? []).map((t, i) => buildTest(t, i, inputs, attributes, typeVars, err));

  if (errors.length) return { errors };
  const rel = path.relative(ctx.root, spec.file).split(path.sep).join('/');
  return {
    errors,
    op: {
      name: raw.name,
      ident: opIdents(raw.name, raw.snake),
      domain,
      version: raw.version,
      description: raw.description ?? '',
      source: { file: spec.file, relFile: rel },
      typeVars,
      bindings,
      inputs,
      outputs,
      attributes,
      state,
      workspace,
      checks,
      dataDims,
      kernels,
      tests,
      hasConfigure: state.length > 0,
      backward: undefined,
    },
    ...(raw.backward ? { backward: raw.backward } : {}),
  };
}

/** The op's name, its `snake:` override and its domain's segments must be identifiers; returns the domain. */
function checkOpNames(
  raw: RawSpec,
  projectDomain: string,
  checkIdent: (p: KeyPath, name: string) => void,
  err: ErrFn,
): string {
  checkIdent(['name'], raw.name);
  // `snake:` overrides the derived snake_case form (RoIAlign -> roi_align, not ro_i_align).
  if (raw.snake !== undefined) {
    const problem = snakeProblem(raw.snake);
    if (problem) err(['snake'], `snake name \`${raw.snake}\` ${problem}`);
  }
  const domain = defaultDomain(raw.domain ?? projectDomain) ? '' : (raw.domain ?? projectDomain);
  if (domain === '') {
    // The default domain holds the standard ops: an op there replaces one (ScatterND), and an
    // unknown type in it is an invalid model (onnx.checker, the exporters and ONNX Runtime refuse it).
    if (!AI_ONNX_OPS.has(raw.name))
      err(
        ['domain'],
        `the default ONNX domain holds only the standard ops, and \`${raw.name}\` is not one; an op of its own needs a domain of its own`,
        { hint: didYouMean(raw.name, [...AI_ONNX_OPS]) ?? 'e.g. domain: custom' },
      );
    return domain;
  }
  domain.split('.').forEach((seg) => {
    const pr = identProblem(seg);
    if (pr) err(['domain'], `domain segment \`${seg}\` ${pr}`);
  });
  return domain;
}

/**
 * The `types:` section's variables and how a port's `dtype` resolves against them; `used` collects
 * the variables some port names (checkTypeVarsInferable reports the others).
 */
function typeVariables(
  raw: RawSpec['types'],
  checkIdent: (p: KeyPath, name: string) => void,
  err: ErrFn,
  /** 1 where the YAML scalar at p is quoted: columns inside it start one later. */
  quoted: (p: KeyPath) => number,
): {
  vars: TypeVarIR[];
  used: ReadonlySet<string>;
  chosen: ReadonlySet<string>;
  resolve: (p: KeyPath, s: string) => TensorType;
} {
  const chosen = new Set(Object.keys(raw ?? {}).filter((k) => typeof raw?.[k] === 'string'));
  const vars: TypeVarIR[] = Object.entries(raw ?? {}).map(([name, dtypes]) => {
    checkIdent(['types', name], name);
    if ((DTYPES as readonly string[]).includes(name))
      err(['types', name], `type variable \`${name}\` shadows a dtype`, { at: 'key' });
    if (typeof dtypes !== 'string') return { name, dtypes: [...dtypes] };
    // Chosen by attributes: the dtypes now, the conditions once the attributes are built.
    const leaves = choiceDtypes(dtypes);
    if ('error' in leaves)
      err(['types', name], `${leaves.error} in \`${dtypes}\``, { colOffset: leaves.pos + quoted(['types', name]) });
    return { name, dtypes: 'error' in leaves ? [] : leaves.dtypes };
  });
  const names = vars.map((t) => t.name);
  const used = new Set<string>();
  const resolve = (p: KeyPath, s: string): TensorType => {
    if ((DTYPES as readonly string[]).includes(s)) return { kind: 'fixed', dtype: s as DType };
    const tv = vars.find((t) => t.name === s);
    if (tv) {
      used.add(s);
      if (p[0] === 'inputs' && chosen.has(s))
        err(
          p,
          `type variable \`${s}\` is chosen by attributes, so it is an output's dtype only; an input names a dtype or a variable of dtypes`,
        );
      return { kind: 'var', name: s, dtypes: tv.dtypes };
    }
    err(p, `unknown dtype or type variable \`${s}\`; expected one of ${[...DTYPES, ...names].join(', ')}`, {
      hint: didYouMean(s, [...DTYPES, ...names]),
    });
    return { kind: 'fixed', dtype: 'float32' };
  };
  return { vars, used, chosen, resolve };
}

/**
 * `sizeof(X)` in the workspace: a dtype's element bytes, or a type variable's, read from the first
 * always-present input of that type (every type variable has one: checkTypeVarsInferable).
 */
function typeSizes(vars: readonly TypeVarIR[], readable: readonly InputIR[]): (name: string) => SizeReading {
  return (name) => {
    if ((DTYPES as readonly string[]).includes(name)) return { kind: 'int', value: DTYPE_INFO[name as DType].bytes };
    const tv = vars.find((t) => t.name === name);
    const from = readable.find((x) => x.type.kind === 'var' && x.type.name === name);
    if (tv && from) return { kind: 'sizeof', typeVar: name, inputIndex: from.index };
    const known = [...vars.map((t) => t.name), ...DTYPES];
    return {
      error: `\`${name}\` is not a type variable or dtype; expected one of ${known.join(', ')}`,
      hint: didYouMean(name, known),
    };
  };
}

/** Unique names across inputs, outputs, attributes and state: they share scopes in generated code. */
function nameClaims(err: ErrFn): (p: KeyPath, name: string, what: string, at?: 'key') => void {
  const seen = new Map<string, string>();
  return (p, name, what, at) => {
    const key = idents(name).snake;
    const prev = seen.get(key);
    if (prev) err(p, `${what} name \`${name}\` is already used by ${prev}`, at ? { at } : {});
    else seen.set(key, `${what} \`${name}\``);
  };
}

/** Optional inputs must trail: ONNX and TensorRT address inputs by position. */
function checkOptionalInputsLast(inputs: readonly InputIR[], err: ErrFn): void {
  const firstOptional = inputs.findIndex((x) => x.optional);
  if (firstOptional >= 0)
    inputs.slice(firstOptional).forEach((x) => {
      if (!x.optional)
        err(
          ['inputs', x.index, 'name'],
          `required input \`${x.name}\` follows an optional input; optional inputs must come last`,
        );
    });
}

/**
 * Every type variable must be used, and be the dtype of a required input: backends infer output
 * dtypes from input dtypes.
 */
/**
 * The type variables of heterogeneous variadic inputs (`homogeneous: false`): each member takes
 * any of their dtypes on its own, so no other input or single output may have them (which member
 * would it follow?). A variadic output may: its member m has the dtype of the input's member m
 * (torch._foreach_add's list), and a check makes sure the input has that many members.
 */
function perMemberVars(
  inputs: readonly InputIR[],
  outputs: readonly OutputIR[],
  memberChecks: CheckIR[],
  err: ErrFn,
): Set<string> {
  const owner = new Map(inputs.flatMap((x) => (x.type.kind === 'each' ? [[x.type.typeVar, x] as const] : [])));
  const refuse = (p: KeyPath, what: string, t: TensorType, by: InputIR): void =>
    err(
      p,
      `${what} has type variable \`${t.kind === 'var' ? t.name : ''}\`, which the heterogeneous variadic input \`${by.name}\` (\`homogeneous: false\`) gives each of its members on its own: give ${what} a type variable of its own${what.startsWith('output') ? ', or make it variadic (member m then has the dtype of member m)' : ''}`,
    );
  for (const x of inputs) {
    const by = x.type.kind === 'var' ? owner.get(x.type.name) : undefined;
    if (by) refuse(['inputs', x.index, 'dtype'], `input \`${x.name}\``, x.type, by);
  }
  const followed = new Set<string>();
  outputs
    .filter((o) => !o.member || o.member.index === 0)
    .forEach((first, k) => {
      const by = first.type.kind === 'var' ? owner.get(first.type.name) : undefined;
      if (!by) return;
      if (!first.member) return refuse(['outputs', k, 'dtype'], `output \`${first.name}\``, first.type, by);
      const of = first.member.of;
      const each: TensorType = {
        kind: 'each',
        typeVar: by.type.kind === 'each' ? by.type.typeVar : '',
        dtypes: allowedDtypes(by.type),
      };
      for (const o of outputs.filter((x) => x.member?.of === of)) {
        o.type = each;
        o.member!.follows = by.index;
      }
      if (followed.has(of)) return;
      followed.add(of);
      // Member m follows member m of the input: the input has at least as many members.
      const expr: Expr = {
        kind: 'cmp',
        op: '>=',
        left: { kind: 'count', input: by.name, inputIndex: by.index },
        right: first.member.count,
      };
      memberChecks.push({
        expr,
        source: `count(${by.name}) >= ${first.member.countSource}`,
        message: `each member of output ${of} has the dtype of the same member of input ${by.name}`,
        reads: exprLeaves(expr),
        optional: [],
      });
    });
  return new Set(owner.keys());
}

function checkTypeVarsInferable(
  vars: readonly TypeVarIR[],
  used: ReadonlySet<string>,
  /** Variables the attributes choose (outputs' only). */
  chosen: ReadonlySet<string>,
  inputs: readonly InputIR[],
  err: ErrFn,
): void {
  vars.forEach((t) => {
    if (!used.has(t.name))
      err(['types', t.name], `type variable \`${t.name}\` is not used by any input or output`, { at: 'key' });
    else if (
      !chosen.has(t.name) &&
      !inputs.some((x) => !x.optional && x.type.kind === 'var' && x.type.name === t.name)
    ) {
      err(
        ['types', t.name],
        `type variable \`${t.name}\` must be the dtype of at least one required input, so backends can infer it`,
        { at: 'key' },
      );
    }
  });
}

/** `kernels.triton`, checked (build-triton.ts) over the op's ports, with numel() in its expressions. */
function buildTritonKernel(
  raw: RawSpec,
  { spec, err, errors, exprAttrs, lets }: Scope,
  ctx: BuildContext,
  {
    inputs,
    outputs,
    attributes,
    readable,
  }: { inputs: InputIR[]; outputs: OutputIR[]; attributes: AttributeIR[]; readable: InputIR[] },
): OpIR['kernels']['triton'] {
  const t = raw.kernels.triton!;
  if (raw.kernels.cuda !== undefined)
    err(['kernels', 'triton'], 'an op has one CUDA kernel: `cuda` (C++) or `triton`, not both', { at: 'key' });
  const source = checkKernel(t.source, ['kernels', 'triton', 'source'], spec, ctx, err);
  const triton = buildTriton(t, {
    err,
    inputs,
    outputs,
    attributes,
    source,
    sourceFile: path.resolve(path.dirname(spec.file), t.source),
    hasWorkspace: raw.workspace !== undefined,
    typeVars: Object.keys(raw.types ?? {}),
    compileDim: (d, p) =>
      compileDim(d, p, readable, exprAttrs, spec, errors, lets, 'int', 0, undefined, undefined, true),
  });
  return triton;
}

/** The kernel files as paths from the project root, each checked to be a regular file inside it. */
function buildKernels(raw: RawSpec['kernels'], spec: LoadedSpec, ctx: BuildContext, err: ErrFn): OpIR['kernels'] {
  return {
    cpu: checkKernel(raw.cpu, ['kernels', 'cpu'], spec, ctx, err) ?? raw.cpu,
    cuda: raw.cuda === undefined ? undefined : (checkKernel(raw.cuda, ['kernels', 'cuda'], spec, ctx, err) ?? raw.cuda),
    reference:
      raw.reference === undefined
        ? undefined
        : (checkKernel(raw.reference, ['kernels', 'reference'], spec, ctx, err) ?? raw.reference),
  };
}

/** What lowering one spec's inputs and outputs shares: its errors, names in use, dtypes, int attributes. */
export interface Scope {
  spec: LoadedSpec;
  errors: Diagnostic[];
  err: ErrFn;
  checkIdent(p: KeyPath, name: string): void;
  claim(p: KeyPath, name: string, what: string, at?: 'key'): void;
  resolveType(p: KeyPath, s: string): TensorType;
  exprAttrs: ExprAttrs;
  lets: LetScope;
}

/**
 * `data_dims:`: each name's bound, a dim expression over the inputs every expression may read,
 * attributes and lets. Claimed before the lets, whose clashes are reported at the let.
 */
function buildDataDims(
  raw: RawSpec['data_dims'],
  readable: readonly InputIR[],
  { spec, errors, checkIdent, claim, exprAttrs, lets }: Scope,
): DataDimIR[] {
  return Object.entries(raw ?? {}).map(([name, source], index) => {
    const p: KeyPath = ['data_dims', name];
    checkIdent(p, name);
    claim(p, name, 'data dim', 'key');
    const bound = compileDim(source, p, readable, exprAttrs, spec, errors, lets) ?? { kind: 'int', value: 0 };
    return { name, ident: idents(name), index, bound, source: String(source) };
  });
}

function buildOutputs(
  raws: readonly RawOutput[],
  inputs: readonly InputIR[],
  readable: readonly InputIR[],
  scope: Scope,
  dataDims: readonly DataDimIR[],
  memberChecks: CheckIR[],
): OutputIR[] {
  const { err } = scope;
  return raws
    .flatMap((o, i): OutputIR[] => {
      if (o.variadic !== undefined)
        return buildVariadicOutput(o, i, raws, inputs, readable, scope, dataDims, memberChecks);
      if (o.min_count !== undefined || o.max_count !== undefined)
        err(
          ['outputs', i, o.min_count !== undefined ? 'min_count' : 'max_count'],
          `\`${o.min_count !== undefined ? 'min_count' : 'max_count'}\`, but output \`${o.name}\` is not variadic (\`variadic: <count>\`)`,
          { at: 'key' },
        );
      return [buildOutput(o, i, raws, inputs, readable, scope, dataDims)];
    })
    .map((o, index) => ({ ...o, index }));
}

function buildOutput(
  o: RawOutput,
  i: number,
  raws: readonly RawOutput[],
  inputs: readonly InputIR[],
  readable: readonly InputIR[],
  { spec, errors, err, checkIdent, claim, resolveType, exprAttrs, lets }: Scope,
  dataDims: readonly DataDimIR[],
  member?: { index: number; guards: { cond: Expr; what: string }[] },
): OutputIR {
  const p: KeyPath = ['outputs', i];
  checkIdent([...p, 'name'], o.name);
  claim([...p, 'name'], o.name, 'output');
  const type = resolveType([...p, 'dtype'], o.dtype);
  let shape: ShapeIR = { kind: 'dims', dims: [], source: [] };
  let rank: number | null = 0;
  let data: OutputIR['dataDims'] = [];
  if (typeof o.shape === 'string') {
    const j = inputs.findIndex((x) => x.name === o.shape);
    if (j < 0)
      err([...p, 'shape'], `\`${o.shape}\` is not an input; use an input name or a list of dim expressions`, {
        hint: didYouMean(
          o.shape,
          inputs.map((x) => x.name),
        ),
      });
    else if (inputs[j]!.optional) err([...p, 'shape'], `output cannot take the shape of optional input \`${o.shape}\``);
    else {
      shape = { kind: 'like', input: o.shape, inputIndex: j };
      rank = inputs[j]!.rank;
    }
  } else {
    const built = buildOutputDims(o.shape, p, readable, {
      spec,
      errors,
      err,
      exprAttrs,
      lets,
      dataDims,
      ...(member
        ? {
            member: {
              index: member.index,
              guard: (cond: Expr, what: string) => void member.guards.push({ cond, what }),
            },
          }
        : {}),
    });
    shape = built.shape;
    rank = built.rank;
    data = built.data;
  }
  if (data.length && o.differentiable === true)
    err(
      [...p, 'differentiable'],
      `\`differentiable: true\`, but output \`${o.name}\` has a dim the kernel decides (\`${dataDims[data[0]!.dim]!.name}\`): such outputs carry no gradient`,
    );
  if (o.differentiable === true && !anyFloat(type))
    err(
      [...p, 'differentiable'],
      `\`differentiable: true\`, but output \`${o.name}\` is ${dtypesOf(type)}: integer and bool tensors carry no gradient`,
    );
  const present =
    o.present === undefined ? undefined : buildPresence(o, p, raws, { spec, errors, err, lets, exprAttrs });
  if (o.present !== undefined && o.differentiable === true)
    err(
      [...p, 'differentiable'],
      `\`differentiable: true\`, but output \`${o.name}\` is present only where \`${o.present}\` holds: a gradient op reads gradients that always exist`,
    );
  return {
    name: o.name,
    ident: idents(o.name),
    index: i,
    type,
    rank,
    shape,
    differentiable: anyFloat(type) && o.differentiable !== false && o.present === undefined && !data.length,
    ...(present ? { present } : {}),
    dataDims: data,
    description: o.description ?? '',
  };
}

/**
 * A variadic output: `max_count` outputs `<name>_<m>`, each present where the count the
 * attributes give exceeds m, shaped by the spec's shape with `member` = m; and the checks that
 * the count lies within [min_count, max_count] and that what each member's shape reads exists.
 */
function buildVariadicOutput(
  o: RawOutput,
  i: number,
  raws: readonly RawOutput[],
  inputs: readonly InputIR[],
  readable: readonly InputIR[],
  scope: Scope,
  dataDims: readonly DataDimIR[],
  memberChecks: CheckIR[],
): OutputIR[] {
  const { spec, errors, err, claim, exprAttrs, lets } = scope;
  const p: KeyPath = ['outputs', i];
  if (i !== raws.length - 1)
    err(
      [...p, 'variadic'],
      `output \`${o.name}\` is variadic (output ${i} of ${raws.length}), but only the last output may be: a node lists outputs by position`,
    );
  if (o.present !== undefined)
    err(
      [...p, 'present'],
      `a variadic output has no \`present: ${o.present}\`: its count says how many members a node has`,
    );
  if (o.differentiable === true)
    err([...p, 'differentiable'], '`differentiable: true`, but a variadic output carries no gradient');
  const min = o.min_count ?? 1;
  const max = o.max_count ?? DEFAULT_MAX_OUTPUT_MEMBERS;
  if (min > max) err([...p, 'min_count'], `\`min_count: ${min}\` exceeds \`max_count: ${max}\``);
  const count = compileDim(o.variadic!, [...p, 'variadic'], [], exprAttrs, spec, errors, lets, 'int');
  const countSource = o.variadic!;
  claim([...p, 'name'], o.name, 'output');
  if (exprAttrs.has(MEMBER))
    err(
      [...p, 'name'],
      `output \`${o.name}\` is variadic, so its shape reads \`${MEMBER}\` as the member's index: rename attribute \`${MEMBER}\``,
    );
  const outs: OutputIR[] = [];
  for (let m = 0; m < max; m++) {
    const guards: { cond: Expr; what: string }[] = [];
    const from = errors.length;
    const out = buildOutput({ ...o, name: `${o.name}_${m}` }, i, raws, inputs, readable, scope, dataDims, {
      index: m,
      guards,
    });
    // One member's errors stand for all: the rest would repeat them at the same key.
    if (errors.length > from && m > 0) errors.splice(from);
    if (errors.length > from) break;
    if (out.dataDims.length)
      err([...p, 'shape'], `a variadic output's dims cannot name a dim the kernel decides (\`data_dims\`)`);
    const present: Expr = {
      kind: 'cmp',
      op: '>',
      left: count ?? { kind: 'int', value: 0 },
      right: { kind: 'int', value: m },
    };
    outs.push({
      ...out,
      differentiable: false,
      present: { expr: present, source: `${countSource} > ${m}` },
      member: {
        of: o.name,
        ofIdent: idents(o.name),
        index: m,
        count: count ?? { kind: 'int', value: 0 },
        countSource,
        min,
        max,
      },
    });
    const seen = new Set<string>();
    for (const g of guards) {
      const key = formatExpr(g.cond);
      if (seen.has(key)) continue;
      seen.add(key);
      const expr: Expr = { kind: 'logic', op: 'or', left: { kind: 'not', arg: present }, right: g.cond };
      memberChecks.push({
        expr,
        source: `${countSource} <= ${m} or ${key.replace(/^\((.*)\)$/, '$1')}`,
        message: `member ${m} of output ${o.name} ${g.what}`,
        reads: exprLeaves(expr),
        optional: [],
      });
    }
  }
  if (count) {
    const expr: Expr = {
      kind: 'logic',
      op: 'and',
      left: { kind: 'cmp', op: '>=', left: count, right: { kind: 'int', value: min } },
      right: { kind: 'cmp', op: '<=', left: count, right: { kind: 'int', value: max } },
    };
    memberChecks.unshift({
      expr,
      source: `${countSource} >= ${min} and ${countSource} <= ${max}`,
      message: `output ${o.name} has ${min} to ${max} members (its min_count and max_count)`,
      reads: exprLeaves(expr),
      optional: [],
    });
  }
  return outs;
}

/**
 * An output's `present:` condition, over attributes only (every backend knows them when it builds
 * the graph: TensorRT's getNbOutputs, the ONNX node's output count). Outputs with one trail those
 * without: nodes list outputs by position.
 */
function buildPresence(
  o: RawOutput,
  p: KeyPath,
  raws: readonly RawOutput[],
  { spec, errors, err, lets, exprAttrs }: Pick<Scope, 'spec' | 'errors' | 'err' | 'lets' | 'exprAttrs'>,
): OutputIR['present'] {
  const later = raws.findIndex((r, j) => j > (p[1] as number) && r.present === undefined && r.variadic === undefined);
  if (later >= 0)
    err(
      [...p, 'present'],
      `output \`${o.name}\` has \`present: ${o.present}\`, but output \`${raws[later]!.name}\` after it has none; outputs with \`present:\` come last (nodes list outputs by position)`,
    );
  const expr = compileDim(o.present!, [...p, 'present'], [], exprAttrs, spec, errors, lets, 'bool');
  return expr ? { expr, source: o.present! } : undefined;
}

/** Some dtype the tensor may take is a float dtype (gradients are defined in those bindings). */
export function anyFloat(t: TensorType): boolean {
  return (t.kind === 'fixed' ? [t.dtype] : t.dtypes).some((d) => DTYPE_INFO[d].isFloat);
}

export function dtypesOf(t: TensorType): string {
  return (t.kind === 'fixed' ? [t.dtype] : t.dtypes).join(' | ');
}

export type ErrFn = (
  p: KeyPath,
  message: string,
  opts?: { hint?: string | undefined; at?: 'key' | 'value'; colOffset?: number },
) => void;

/** Parses a dim expression's text; a syntax error is reported through `fail`. */
function parseDim(d: string, p: KeyPath, fail: (message: string, pos: number, hint?: string) => undefined) {
  try {
    return parseExpr(d);
  } catch (e) {
    if (!(e instanceof ExprSyntaxError)) throw e;
    // The loader keeps `max(a, b)` whole in a YAML flow list only when the call is on one
    // line; a call broken over lines is split at its commas. Say so where it shows.
    const split = /'\)'/.test(e.message) && typeof p[p.length - 1] === 'number';
    return fail(
      e.message,
      e.pos,
      split ? "in a [flow, list], keep a call on one line or quote it: 'max(a[0], b[0])'" : undefined,
    );
  }
}

export function compileDim(
  d: DimSpec,
  p: KeyPath,
  inputs: readonly InputIR[],
  attrs: ExprAttrs,
  spec: LoadedSpec,
  errors: Diagnostic[],
  lets: LetScope,
  /** What the expression must give: an integer (dims, workspace), a condition (checks), either (lets). */
  want: 'int' | 'bool' | 'any' = 'int',
  /** Where `d` starts within the YAML scalar at `p` (a slice's bound). */
  at = 0,
  /** How `sizeof(X)` reads, where it may (the workspace and lets); undefined elsewhere. */
  sizes?: (name: string) => SizeReading,
  /** In a variadic output's member shape: the member (expr-typing.ts). */
  member?: TypingContext['member'],
  /** Whether numel(x) may be read (a Triton kernel's args and grid). */
  numel = false,
): Expr | undefined {
  if (typeof d === 'number') return { kind: 'int', value: d };
  // Column offset into the YAML scalar: +1 when it is quoted.
  const quoted = quoteOffset(spec, p);
  const fail = (message: string, pos: number, hint?: string): undefined => {
    errors.push(diagAt(spec, p, `${message} in \`${d}\``, { colOffset: at + pos + quoted, hint }));
    return undefined;
  };
  const raw = parseDim(d, p, fail);
  if (!raw) return undefined;
  let ok = true;
  const reading = (read: AttrReading, pos: number, indexPos: number): Expr => {
    if ('expr' in read) return read.expr;
    ok = false;
    fail(read.error, read.atIndex ? indexPos : pos, read.hint);
    return { kind: 'int', value: 0 };
  };
  // A let is inlined: its expression compiled here, where only the inputs readable here may be read.
  const letReading = (def: LetDef, pos: number): Expr => {
    // A let compiles once per place kind: the inputs readable there, and whether sizeof() is.
    const readable = inputs.map((x) => x.name).join(',') + (sizes ? '\0sizeof' : '');
    const read = readLet(def, lets, readable, (scope, errs) =>
      compileDim(def.source, ['let', def.name], inputs, attrs, spec, errs, scope, 'any', 0, sizes),
    );
    const from = errors.length;
    const e = reading(read, pos, pos);
    // Outermost: reported after the lets' own checks, and only for a let that passed its own.
    if ('deferred' in read && read.deferred) lets.pending?.push({ let: def.name, diag: errors.splice(from)[0]! });
    return e;
  };
  const typer = new ExprTyper({
    inputs,
    attrs,
    reading,
    readLet: (name: string, pos: number) => {
      const def = lets.all.get(name);
      return def ? letReading(def, pos) : undefined;
    },
    fail: (message: string, pos: number, hint?: string) => {
      ok = false;
      fail(message, pos, hint);
    },
    slices: want === 'bool',
    sizeOf: sizes,
    numel,
    ...(member ? { member } : {}),
    isStateField: (name) => stateFieldNames(spec).includes(name),
    isDataDim: (name) => Object.hasOwn(dataDimsOf(spec), name),
  });
  const e = typer.top(raw, want);
  // Lets reading lets twice double at every step: refuse what no printer should have to walk.
  if (ok && lets.all.size && inlinedSize(e) > MAX_INLINED_NODES)
    return fail(`the expression has more than ${MAX_INLINED_NODES} operations once its lets are inlined`, 0);
  return ok ? e : undefined;
}

/** The spec's `data_dims:` as written (an output dims list reads them before any expression does). */
function dataDimsOf(spec: LoadedSpec): Record<string, unknown> {
  const d = (spec.value as { data_dims?: unknown } | null)?.data_dims;
  return d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
}

/** The `state` field names the spec declares (read from the raw spec: expressions compile before the IR's state). */
function stateFieldNames(spec: LoadedSpec): string[] {
  const state = (spec.value as { state?: unknown } | null)?.state;
  if (!Array.isArray(state)) return [];
  return state.flatMap((f) =>
    f && typeof (f as { name?: unknown }).name === 'string' ? [(f as { name: string }).name] : [],
  );
}

function checkKernel(rel: string, p: KeyPath, spec: LoadedSpec, ctx: BuildContext, err: ErrFn): string | undefined {
  if (path.isAbsolute(rel) || rel.includes('\\')) {
    err(p, `must be a relative path with forward slashes, got ${shown(rel)}`);
    return undefined;
  }
  const abs = path.resolve(path.dirname(spec.file), rel);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    err(p, `kernel file \`${rel}\` does not exist (looked for ${path.relative(ctx.root, abs) || abs})`);
    return undefined;
  }
  const rootReal = realpathSync(ctx.root);
  const inside = path.relative(rootReal, real);
  if (inside.startsWith('..') || path.isAbsolute(inside)) {
    err(p, `kernel file \`${rel}\` lies outside the project (${rootReal})`);
    return undefined;
  }
  if (real !== abs && path.relative(rootReal, abs) !== inside) {
    err(p, `kernel file \`${rel}\` is reached through a symlink; name the file itself`);
    return undefined;
  }
  if (!statSync(real).isFile()) {
    err(p, `kernel file \`${rel}\` is not a regular file`);
    return undefined;
  }
  return inside.split(path.sep).join('/');
}

function enumerateBindings(typeVars: readonly TypeVarIR[]): TypeBinding[] {
  let acc: TypeBinding[] = [{ vars: {}, suffix: '' }];
  for (const tv of typeVars) {
    const next: TypeBinding[] = [];
    for (const b of acc)
      for (const dt of tv.dtypes) {
        const short = DTYPE_INFO[dt].short;
        next.push({ vars: { ...b.vars, [tv.name]: dt }, suffix: b.suffix ? `${b.suffix}_${short}` : short });
      }
    acc = next;
    if (acc.length > MAX_BINDINGS * 4) break;
  }
  return acc;
}

/** The spec's `checks:`, each a condition over inputs (optional ones: applied when present), attributes and lets. */
function buildChecks(
  raw: readonly (string | { check: string; message?: string })[],
  inputs: readonly InputIR[],
  attrs: ExprAttrs,
  spec: LoadedSpec,
  errors: Diagnostic[],
  lets: LetScope,
): CheckIR[] {
  const out: CheckIR[] = [];
  raw.forEach((c, i) => {
    const source = typeof c === 'string' ? c : c.check;
    const p: KeyPath = typeof c === 'string' ? ['checks', i] : ['checks', i, 'check'];
    const expr = compileDim(source, p, inputs, attrs, spec, errors, lets, 'bool');
    if (!expr) return;
    const reads = exprLeaves(expr);
    const optional = [
      ...new Set(
        reads.flatMap((x) =>
          (x.kind === 'dim' || x.kind === 'rank' || x.kind === 'slice') && inputs[x.inputIndex]!.optional
            ? [x.inputIndex]
            : [],
        ),
      ),
    ].sort((a, b) => a - b);
    out.push({ expr, source, message: typeof c === 'string' ? undefined : c.message, reads, optional });
  });
  return out;
}

/** The dims, ranks and attributes an expression reads, each once, in order of first appearance. */
function exprLeaves(e: Expr): Expr[] {
  const seen = new Map<string, Expr>();
  visitExpr(e, (x) => {
    const attr = exprAttrName(x);
    const key =
      x.kind === 'dim'
        ? `d${x.inputIndex}.${x.member ?? 0}.${x.axis}`
        : x.kind === 'rank'
          ? `r${x.inputIndex}`
          : x.kind === 'count'
            ? `c${x.inputIndex}`
            : x.kind === 'slice'
              ? `s${formatExpr(x)}`
              : attr === undefined
                ? undefined
                : `a${attr}`;
    if (key && !seen.has(key)) seen.set(key, x);
  });
  return [...seen.values()];
}
