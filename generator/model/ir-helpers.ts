// Small derived facts about the IR that several emitters need.

import path from 'node:path';
import type {
  AttrValue,
  DtypeChoice,
  Expr,
  InputConstraint,
  OpIR,
  ProjectIR,
  ProjectNames,
  ShapeIR,
  TensorType,
  TestCaseIR,
  TestInputIR,
  TypeBinding,
} from './ir.js';
import { ATTR_INFO, DTYPE_INFO, type AttrType, type DType } from './type-table.js';
import { evalExpr, exprChildren, formatExpr, sliceRange, visitExpr } from './expr.js';

/** The dtype a tensor has under a binding. */
export function dtypeUnder(t: TensorType, b: TypeBinding): DType {
  if (t.kind === 'each')
    throw new Error(
      `the members of a heterogeneous variadic input have dtypes of their own (${t.typeVar}), not a binding's`,
    );
  return t.kind === 'fixed' ? t.dtype : b.vars[t.name]!;
}

/**
 * The dtype an output has in a test case: a member following a heterogeneous input's member has
 * that member's (the first allowed where the case has no such member), else the binding's.
 */
export function caseOutputDtype(op: Pick<OpIR, 'inputs'>, t: TestCaseIR, o: OpIR['outputs'][number]): DType {
  if (o.type.kind !== 'each') return dtypeUnder(o.type, t.binding);
  const of = op.inputs[o.member!.follows!]!.name;
  return t.inputs.filter((x) => x.name === of)[o.member!.index]?.dtype ?? o.type.dtypes[0]!;
}

/** The dtype a test case's input tensor has: a heterogeneous member's own, else its binding's. */
export function caseInputDtype(op: Pick<OpIR, 'inputs'>, t: TestCaseIR, x: TestInputIR): DType {
  const inp = op.inputs.find((i) => i.name === x.name)!;
  return inp.type.kind === 'each' ? x.dtype! : dtypeUnder(inp.type, t.binding);
}

/** Whether a tensor takes (input) or carries (output) a gradient when the op runs with binding `b`. */
export function differentiableUnder(t: { type: TensorType; differentiable: boolean }, b: TypeBinding): boolean {
  return t.differentiable && DTYPE_INFO[dtypeUnder(t.type, b)].isFloat;
}

/** The bindings in which some input takes a gradient: those a backward must serve. */
export function trainingBindings(op: OpIR): TypeBinding[] {
  return op.bindings.filter((b) => op.inputs.some((x) => differentiableUnder(x, b)));
}

/** Every dtype a tensor may have. */
export function allowedDtypes(t: TensorType): DType[] {
  return t.kind === 'fixed' ? [t.dtype] : t.dtypes;
}

/** The op's kernel files (relative to the project root): cpu, then cuda, reference and the Triton source when given. */
export function kernelFiles(op: OpIR): string[] {
  return [op.kernels.cpu, op.kernels.cuda, op.kernels.reference, op.kernels.triton?.source].filter(
    (k): k is string => k !== undefined,
  );
}

/** Whether the op runs on CUDA: a CUDA C++ kernel (`kernels.cuda`) or a Triton one (`kernels.triton`). */
export function hasCudaKernel(op: Pick<OpIR, 'kernels'>): boolean {
  return op.kernels.cuda !== undefined || op.kernels.triton !== undefined;
}

/** The compiled PyTorch extension's file: libopforge_torch.so, or lib<prefix>_torch.so. */
export function torchLibraryFile(names: ProjectNames): string {
  return `lib${torchLibraryTarget(names)}.so`;
}

/** The extension's CMake target (and library name without lib/.so). */
export function torchLibraryTarget(names: ProjectNames): string {
  return `${names.libraryPrefix}_torch`;
}

/** The environment variable naming the extension to load: OPFORGE_TORCH_LIBRARY, or <PREFIX>_TORCH_LIBRARY. */
export function torchLibraryEnv(names: ProjectNames): string {
  return `${names.libraryPrefix.toUpperCase()}_TORCH_LIBRARY`;
}

/** The extension's Python entry module, beside the library: opforge_torch_py, or <prefix>_torch_py. */
export function torchEntryModule(names: ProjectNames): string {
  return `${names.libraryPrefix}_torch_py`;
}

/** Fully qualified namespace of an op's core. */
export function cppNamespace(op: OpIR): string {
  return `opforge::ops::${op.ident.snake}`;
}

/** Path of the op core header under out/, and its include spelling. */
export function coreHeaderPath(op: OpIR): { path: string; include: string } {
  return { path: `include/opforge/ops/${op.ident.snake}.h`, include: `opforge/ops/${op.ident.snake}.h` };
}

/** FNV-1a of "domain::name": the op identity stored in serialized data. */
export function opHash(op: OpIR): number {
  let h = 2166136261;
  for (const b of Buffer.from(`${op.domain}::${op.name}`, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

/** The C++ Io type of the kernel contract under a binding (`Io<float>`, or `Io` without type variables). */
export function ioType(op: OpIR, b: TypeBinding): string {
  if (op.typeVars.length === 0) return 'Io';
  return `Io<${op.typeVars.map((tv) => DTYPE_INFO[b.vars[tv.name]!].cpp).join(', ')}>`;
}

/** An attribute value as JSON-compatible data (bool stays bool). */
export function attrValueJson(v: AttrValue): unknown {
  return v;
}

export function isListAttr(t: AttrType): boolean {
  return ATTR_INFO[t].isList;
}

/** Index of the type variable's binding among op.bindings for given per-variable dtypes. */
export function bindingIndex(op: OpIR, vars: Record<string, DType>): number {
  return op.bindings.findIndex((b) => op.typeVars.every((tv) => b.vars[tv.name] === vars[tv.name]));
}

/**
 * The op type a Paddle custom op registers (PD_BUILD_OP) and that Paddle Inference's TensorRT
 * converter derives plugin names from (`<type>_paddle_trt_plugin`): the snake_case op name, with
 * each `_grad` written `_bwd`. Paddle reserves `_grad` in op types for grad ops: it names an op's
 * PD_BUILD_GRAD_OP `<type>_grad` (CustomReluGrad as `custom_relu_grad` collides with CustomRelu's
 * own), its Python API generator refuses other types containing it, and PIR runs the grad-op shape
 * rule on them. So the gradient op CustomReluGrad is `custom_relu_bwd` in Paddle.
 */
export function paddleOpType(op: OpIR): string {
  return op.ident.snake.replace(/_grad/g, '_bwd');
}

/**
 * What compiled dim expressions read: whether any input dim, any attribute, or division occurs.
 * Emitters name a generated function's `inputs`/`attrs` parameters from this (and comment them
 * out otherwise), so an op whose shapes read only attributes or constants compiles with -Werror.
 */
export interface ExprReads {
  dims: boolean;
  attrs: boolean;
  division: boolean;
  /** An input's dtype (sizeof(T), in the workspace). */
  types: boolean;
  /** A variadic input's member count (count(x)): the number of tensors, not their dims. */
  counts: boolean;
}

export function exprReads(exprs: Iterable<Expr>): ExprReads {
  const r: ExprReads = { dims: false, attrs: false, division: false, types: false, counts: false };
  const walk = (e: Expr): void => {
    switch (e.kind) {
      case 'dim':
        r.dims = true;
        // A later member is read where the count says it exists.
        if (e.member) r.counts = true;
        break;
      case 'rank':
      case 'slice':
        r.dims = true;
        break;
      case 'count':
        r.counts = true;
        break;
      case 'attr':
      case 'elem':
      case 'len':
      case 'flag':
      case 'is':
        r.attrs = true;
        break;
      case 'round':
        // Rounding a float can fail like a division (a result outside int64): it needs `ok` too.
        r.attrs = true;
        r.division = true;
        break;
      case 'sizeof':
        r.types = true;
        break;
      case 'numel':
        r.dims = true;
        break;
      case 'binary':
        if (e.op === '//' || e.op === '%') r.division = true;
        break;
      case 'call':
        if (e.fn === 'ceil_div') r.division = true;
        break;
      default:
        break;
    }
    for (const c of exprChildren(e)) walk(c);
  };
  for (const e of exprs) walk(e);
  return r;
}

/** What output shapes read: `like` shapes and slices read the input's dims. */
export function shapeReads(shapes: Iterable<ShapeIR>): ExprReads {
  const list = [...shapes];
  const r = exprReads(list.flatMap(shapeExprs));
  if (list.some((s) => s.kind !== 'dims')) r.dims = true;
  return r;
}

/** Every expression an output shape holds: its dims, and its slices' bounds. */
export function shapeExprs(s: ShapeIR): Expr[] {
  if (s.kind === 'dims') return s.dims;
  if (s.kind === 'like') return [];
  return s.parts.flatMap((x) => (x.kind === 'dim' ? [x.expr] : [x.start, x.end].filter((e): e is Expr => e !== null)));
}

/**
 * An output's dims for concrete input dims and attributes (tests and the TS side's expectations);
 * a RangeError where a slice falls outside its input, as every backend refuses it.
 */
export function evalOutputShape(
  s: ShapeIR,
  dims: readonly (readonly number[])[],
  attrs: Parameters<typeof evalExpr>[2],
): number[] {
  if (s.kind === 'like') return [...dims[s.inputIndex]!];
  if (s.kind === 'dims') return s.dims.map((e) => evalExpr(e, dims, attrs));
  return s.parts.flatMap((x) => {
    if (x.kind === 'dim') return [evalExpr(x.expr, dims, attrs)];
    const from = dims[x.inputIndex]!;
    const bound = (e: Expr | null): number | null => (e === null ? null : evalExpr(e, dims, attrs));
    const span = sliceRange(bound(x.start), bound(x.end), from.length);
    if (span === 'out') throw new RangeError(`slice of ${x.input} is outside its ${from.length} dims`);
    return from.slice(span[0], span[1]);
  });
}

/** What input shape constraints read (`like` constraints read the other input's dims). */
export function constraintReads(constraints: Iterable<InputConstraint>): ExprReads {
  const list = [...constraints];
  const r = exprReads(
    list.flatMap((c) => (c.kind === 'dims' ? c.dims.flatMap((d) => (d.kind === 'expr' ? [d.expr] : [])) : [])),
  );
  if (list.some((c) => c.kind === 'like')) r.dims = true;
  return r;
}

/** A C++ parameter name, or the name commented out when the body does not read it. */
export function cppParam(name: string, used: boolean): string {
  return used ? name : `/*${name}*/`;
}

/**
 * The project root as seen from the output directory, with forward slashes: `..` for the usual
 * `<root>/out`, `../..` for `<root>/specs/out`, `../p` for out/ beside the project. '' when they
 * are one directory.
 */
export function rootFromOut(project: ProjectIR): string {
  const out = project.outDir ?? path.join(project.root, 'out');
  return path.relative(path.resolve(out), project.root).split(path.sep).join('/');
}

/** The op as its ONNX node is named in messages: `domain::Name`, `onnx::Name` in the default domain (as torch writes it). */
export function onnxOpName(op: OpIR): string {
  return `${op.domain || 'onnx'}::${op.name}`;
}

/**
 * The error of a gradient asked of an op whose spec declares no backward, as the compiled backends
 * raise it (the Python packages' no_backward_message says the same).
 */
export function noBackwardMessage(op: OpIR): string {
  return `${op.name}: a gradient was requested through ${onnxOpName(op)}, but its spec (${op.source.relFile}) declares no \`backward\`: add one (docs/spec.md, "backward"), or mark the inputs \`differentiable: false\` if the op is constant in them`;
}

/** The inputs an input's constraint reads. */
export function constraintInputs(c: InputConstraint): number[] {
  if (c.kind === 'like') return [c.inputIndex];
  if (c.kind === 'none') return [];
  const read = new Set<number>();
  for (const d of c.dims)
    if (d.kind === 'expr')
      visitExpr(d.expr, (e) => {
        if (e.kind === 'dim' || e.kind === 'rank' || e.kind === 'slice') read.add(e.inputIndex);
      });
  return [...read].sort((a, b) => a - b);
}

/**
 * The attribute values a dim expression reads (`evalExpr`'s third argument), from `values` or
 * else the attribute's default.
 */
export function exprAttrValues(
  op: OpIR,
  values: Readonly<Record<string, AttrValue | undefined>>,
): Record<string, number | boolean | string | number[]> {
  const out: Record<string, number | boolean | string | number[]> = {};
  for (const a of op.attributes) {
    const v = values[a.name] ?? a.default;
    if (v !== undefined) out[a.name] = v;
  }
  return out;
}

/** The attribute an expression node reads itself (not through its children), if any. */
export function exprAttrName(e: Expr): string | undefined {
  if (e.kind === 'round') return e.factor.name;
  return 'name' in e ? e.name : undefined;
}

/** How a check's message names a value it read: `x[1]`, or the attribute's name. */
export function readLabel(op: OpIR, e: Expr): string {
  if (e.kind === 'dim') return `${op.inputs[e.inputIndex]!.name}[${e.axis}]`;
  if (e.kind === 'rank' || e.kind === 'slice' || e.kind === 'count') return formatExpr(e);
  return exprAttrName(e) ?? '';
}

/** sizeof(T) outside the workspace, which the spec model refuses: a printer reaching one is a bug. */
export function workspaceOnly(e: Extract<Expr, { kind: 'sizeof' }>): never {
  throw new Error(`sizeof(${e.typeVar}) is read in the workspace size only, which the C++ op core computes`);
}

/**
 * The input that binds type variable `typeVar`: its first input (always a required one: optional
 * inputs come last, and every variable an input binds has a required input). Undefined for a
 * variable the attributes choose.
 */
export function binderOf(op: OpIR, typeVar: string): OpIR['inputs'][number] | undefined {
  return op.inputs.find((x) => x.type.kind === 'var' && x.type.name === typeVar);
}

/** The conditions of a dtype choice (a type variable the attributes choose). */
export function choiceConds(c: DtypeChoice): Expr[] {
  return c.kind === 'dtype' ? [] : [c.cond, ...choiceConds(c.yes), ...choiceConds(c.no)];
}

/** Outputs every node has: those before the first with a `present:` condition (they trail). */
export function minOutputs(op: OpIR): number {
  const k = op.outputs.findIndex((o) => o.present);
  return k < 0 ? op.outputs.length : k;
}

/** The outputs a node with these attribute values has (`present:`; unset attributes: their defaults), in order. */
export function presentOutputs(
  op: OpIR,
  values: Readonly<Record<string, AttrValue | undefined>>,
): OpIR['outputs'][number][] {
  const attrs = exprAttrValues(op, values);
  return op.outputs.filter((o) => !o.present || evalExpr(o.present.expr, [], attrs) !== 0);
}

/** The op's variadic input (always its last), if it has one. */
export function variadicInput(op: Pick<OpIR, 'inputs'>): OpIR['inputs'][number] | undefined {
  const last = op.inputs[op.inputs.length - 1];
  return last?.variadic ? last : undefined;
}

/** Whether an expression holds a node of `kind` anywhere. */
export function exprHas(e: Expr, kind: Expr['kind']): boolean {
  let found = false;
  visitExpr(e, (x) => {
    if (x.kind === kind) found = true;
  });
  return found;
}

/**
 * A case's input dims in tensor order (what evalExpr and evalOutputShape read): each input's ([]
 * for an absent optional one), a variadic input's members from its index on.
 */
export function caseDims(op: OpIR, t: TestCaseIR): number[][] {
  return op.inputs.flatMap((i) => {
    const given = t.inputs.filter((x) => x.name === i.name).map((x) => [...x.shape]);
    return i.variadic ? given : [given[0] ?? []];
  });
}
