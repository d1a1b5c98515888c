// out/trt/<op>/<op>_trt.h: the op as the TensorRT plugin bases see it. The op core's tables give
// the port types, dtype bindings, ranks and attributes (the creator fields); here is only what
// TensorRT adds: the registered names, output dims compiled from the IR's expression trees to
// IExprBuilder calls, the CUDA path, and the creators.

import type { CmpOp, Expr, OpIR, ShapePart } from '../../model/ir.js';
import { cppParam, exprReads, shapeExprs } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { cppElement, cppExpr, cppFloatRef, type CppExprEnv } from '../lang/cpp-expr.js';
import { lines } from '../emitter.js';
import { commentText, cppString } from '../lang/literals.js';
import { block, fillTemplate, type SlotValue } from '../lang/template.js';
import { pluginNames } from './names.js';

const DIM_OPS: Record<string, string | undefined> = {
  '+': 'kSUM',
  '-': 'kSUB',
  '*': 'kPROD',
  '//': 'kFLOOR_DIV',
  ceil_div: 'kCEIL_DIV',
  max: 'kMAX',
  min: 'kMIN',
};

/** Attribute reads as C++ (conditions over attributes alone fold to a C++ bool). */
const ATTRS: CppExprEnv = {
  dim: () => {
    throw new Error('a folded condition reads no dims');
  },
  rank: (i) => `int64_t{in[${i}].nbDims}`,
  count: () => {
    throw new Error('a folded condition reads no dims');
  },
  attr: (name) => `static_cast<int64_t>(attrs.${name})`,
  attrList: (name) => `attrs.${name}`,
  okVar: 'ok',
};

/** A condition C++ can decide from the attributes alone (no dims, nothing that can fail). */
function foldable(e: Expr): boolean {
  const r = exprReads([e]);
  return !r.dims && !r.counts && !r.division;
}

/** Comparisons from IExprBuilder's two: the operation, whether its operands swap, whether it is negated. */
const TRT_CMP: Record<CmpOp, [string, boolean, boolean]> = {
  '==': ['kEQUAL', false, false],
  '!=': ['kEQUAL', false, true],
  '<': ['kLESS', false, false],
  '>': ['kLESS', true, false],
  '<=': ['kLESS', true, true],
  '>=': ['kLESS', false, true],
};

const notOf = (x: string): string => `::opforge::trt::notOf(b, ${x})`;

const op2 = (o: string, x: string, y: string): string =>
  `::opforge::trt::dimOp(b, nvinfer1::DimensionOperation::${o}, ${x}, ${y})`;

/**
 * An IR dim expression as IExprBuilder calls; null dims (bad input) propagate as nullptr.
 * Conditions are dims of value 1 or 0; one over attributes alone is decided in C++, so only the
 * branch it picks is built.
 */
export function trtDimExpr(e: Expr): string {
  const t = trtDimExpr;
  switch (e.kind) {
    case 'int':
      return `::opforge::trt::constant(b, int64_t{${e.value}})`;
    case 'dim':
      if (e.member)
        return `(numIn - ${e.inputIndex} > ${e.member} ? ${trtDimExpr({ ...e, inputIndex: e.inputIndex + e.member, member: 0 })} : ::opforge::trt::constant(b, int64_t{0}))`;
      return e.axis < 0
        ? `in[${e.inputIndex}].d[in[${e.inputIndex}].nbDims - ${-e.axis}]`
        : `in[${e.inputIndex}].d[${e.axis}]`;
    case 'rank':
      return `::opforge::trt::constant(b, int64_t{in[${e.inputIndex}].nbDims})`;
    case 'count':
      return `::opforge::trt::constant(b, int64_t{numIn - ${e.inputIndex}})`;
    case 'attr':
      return `::opforge::trt::constant(b, attrs.${e.name})`;
    case 'elem':
      if (e.guarded) return `::opforge::trt::constant(b, ::opforge::elementOr0(attrs.${e.name}, ${e.index}))`;
      return `::opforge::trt::constant(b, ${cppElement(`attrs.${e.name}`, e.index)})`;
    case 'len':
      return `::opforge::trt::constant(b, static_cast<int64_t>(attrs.${e.name}.size()))`;
    case 'flag':
    case 'is':
      return `::opforge::trt::constant(b, ${cppExpr(e, ATTRS)} ? 1 : 0)`;
    case 'round':
      return `::opforge::trt::scaled(b, ${t(e.scale)}, ${cppFloatRef(e.factor, ATTRS)}, ${e.fn === 'ceil'})`;
    case 'binary':
      if (e.op === '%') return `::opforge::trt::floorMod(b, ${t(e.left)}, ${t(e.right)})`;
      return op2(DIM_OPS[e.op]!, t(e.left), t(e.right));
    case 'call':
      return op2(DIM_OPS[e.fn]!, t(e.args[0]), t(e.args[1]));
    case 'cmp': {
      const [o, swap, negate] = TRT_CMP[e.op];
      const d = swap ? op2(o, t(e.right), t(e.left)) : op2(o, t(e.left), t(e.right));
      return negate ? notOf(d) : d;
    }
    case 'logic':
      return op2(e.op === 'and' ? 'kPROD' : 'kMAX', t(e.left), t(e.right));
    case 'not':
      return notOf(t(e.arg));
    case 'cond':
      if (foldable(e.cond)) return `(${cppExpr(e.cond, ATTRS)} ? ${t(e.yes)} : ${t(e.no)})`;
      return `::opforge::trt::select(b, ${t(e.cond)}, ${t(e.yes)}, ${t(e.no)})`;
  }
  throw new Error('unreachable');
}

/** One case of outputDims' switch: its statements, then `break` (in braces where one declares a variable). */
function switchCase(index: number, comment: string, body: readonly string[]): string {
  const scoped = body.length > 1;
  const inner = [...body, 'break;'].map((l) => `${scoped ? '  ' : ''}        ${l}`);
  return lines(`      case ${index}:${scoped ? ' {' : ''}  // ${comment}`, ...inner, ...(scoped ? ['      }'] : []));
}

/** outputDims: each output's dims, after the rank and presence guards of the inputs they read. */
function emitOutputDims(op: OpIR): Record<string, SlotValue> {
  let usesAttrs = false;
  let usesBuilder = false;
  const used = new Map<number, number>(); // input index -> the rank its reads need
  const need = (i: number, rank: number): void => void used.set(i, Math.max(used.get(i) ?? 0, rank));
  // `plain`: a slice bound, compiled to plain C++ rather than IExprBuilder calls.
  const reads = (e: Expr, plain = false): void =>
    visitExpr(e, (x) => {
      if (['attr', 'elem', 'len', 'flag', 'is', 'round'].includes(x.kind)) usesAttrs = true;
      if (x.kind !== 'dim' && !plain) usesBuilder = true;
      // A later member's dim is guarded by the member count, with a constant 0 past it (cpp-expr).
      if (x.kind === 'dim' && x.member) usesBuilder = true;
      if (x.kind === 'dim') need(x.inputIndex, x.axis < 0 ? -x.axis : x.axis + 1);
      if (x.kind === 'rank') need(x.inputIndex, 0);
    });
  const cases = op.outputs.map((o) => {
    if (o.shape.kind === 'like') {
      need(o.shape.inputIndex, 0);
      return switchCase(o.index, `${o.name}: shaped like ${o.shape.input}`, [`*out = in[${o.shape.inputIndex}];`]);
    }
    // Dims lists and spliced shapes alike: one spliced() call; a slice's bounds read attributes and
    // ranks only, so they are plain C++ (IExprBuilder needs none of them).
    const parts =
      o.shape.kind === 'dims' ? o.shape.dims.map((expr): ShapePart => ({ kind: 'dim', expr })) : o.shape.parts;
    const bounds = parts
      .flatMap((x) => (x.kind === 'slice' ? [x.start, x.end] : []))
      .filter((e): e is Expr => e !== null);
    const divides = exprReads(bounds).division;
    const bound = (e: Expr | null): string => (e === null ? '::opforge::kNoBound' : cppExpr(e, ATTRS));
    const printed = parts.map((x) => {
      if (x.kind === 'dim') reads(x.expr);
      else for (const e of [x.start, x.end]) if (e) reads(e, true);
      if (x.kind === 'slice') need(x.inputIndex, 0);
      return x.kind === 'dim'
        ? `::opforge::trt::dimPart(${trtDimExpr(x.expr)})`
        : `::opforge::trt::slicePart(in[${x.inputIndex}], ${bound(x.start)}, ${bound(x.end)})`;
    });
    const call = `if (!::opforge::trt::spliced(*out, {${printed.join(', ')}})${divides ? ' || !ok' : ''}) return false;`;
    return switchCase(
      o.index,
      `${o.name}: ${commentText(o.shape.source.join(', '))}`,
      divides ? ['bool ok = true;', call] : [call],
    );
  });
  const guards = [...used.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([i, rank]) => {
      const inp = op.inputs[i]!;
      const g: string[] = [];
      if (inp.optional) g.push(`    if (!present[${i}]) return false;  // ${inp.name} is optional and absent`);
      if (inp.rank !== null) g.push(`    if (in[${i}].nbDims != ${inp.rank}) return false;  // ${inp.name}`);
      else if (rank > 0) g.push(`    if (in[${i}].nbDims < ${rank}) return false;  // ${inp.name}`);
      return g;
    });
  const usesPresent = guards.some((g) => g.includes('present['));
  // `in` is read only when some output is shaped like an input or reads an input dim: shapes of
  // attributes and constants alone (`[num_segments]`, `[4, 2]`) need only the builder.
  return {
    attrs: cppParam('attrs', usesAttrs),
    in: cppParam('in', used.size > 0),
    present: cppParam('present', usesPresent),
    numIn: cppParam(
      'numIn',
      op.outputs.some((o) => shapeExprs(o.shape).some((e) => exprReads([e]).counts)),
    ),
    b: cppParam('b', usesBuilder),
    guards: block(guards),
    cases: lines(...cases),
  };
}

/** The op's header (op.h.tmpl): the op core plus its plugin names and output dims; its instantiations extern. */
export function emitOpHeader(op: OpIR): string {
  const n = pluginNames(op);
  return fillTemplate('generator/static/cpp/opforge/trt/op.h.tmpl', {
    name: op.name,
    snake: op.ident.snake,
    pluginName: cppString(n.name),
    pluginVersion: cppString(n.version),
    paddleStaticName: cppString(n.paddleStatic),
    paddleDynamicName: cppString(n.paddleDynamic),
    ...emitOutputDims(op),
  });
}
