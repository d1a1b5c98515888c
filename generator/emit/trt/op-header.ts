// out/trt/<op>/<op>_trt.h: the op as the TensorRT plugin bases see it. The op core's tables give
// the port types, dtype bindings, ranks and attributes (the creator fields); here is only what
// TensorRT adds: the registered names, output dims compiled from the IR's expression trees to
// IExprBuilder calls, the CUDA path, and the creators.

import type { CmpOp, Expr, OpIR } from '../../model/ir.js';
import { cppParam, exprReads } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { cppExpr, cppFloatRef, type CppExprEnv } from '../lang/cpp-expr.js';
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
  attr: (name) => `static_cast<int64_t>(attrs.${name})`,
  attrList: (name) => `attrs.${name}`,
  okVar: 'ok',
};

/** A condition C++ can decide from the attributes alone (no dims, nothing that can fail). */
function foldable(e: Expr): boolean {
  const r = exprReads([e]);
  return !r.dims && !r.division;
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
      return `in[${e.inputIndex}].d[${e.axis}]`;
    case 'attr':
      return `::opforge::trt::constant(b, attrs.${e.name})`;
    case 'elem':
      return `::opforge::trt::constant(b, attrs.${e.name}[${e.index}])`;
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

/** outputDims: each output's dims, after the rank and presence guards of the inputs they read. */
function emitOutputDims(op: OpIR): Record<string, SlotValue> {
  let usesAttrs = false;
  let usesBuilder = false;
  const used = new Map<number, number>(); // input index -> highest axis read
  const cases = op.outputs.map((o) => {
    if (o.shape.kind === 'like') {
      used.set(o.shape.inputIndex, Math.max(used.get(o.shape.inputIndex) ?? -1, -1));
      return lines(
        `      case ${o.index}:  // ${o.name}: shaped like ${op.inputs[o.shape.inputIndex]!.name}`,
        `        *out = in[${o.shape.inputIndex}];`,
        '        break;',
      );
    }
    const body = o.shape.dims.map((e, d) => {
      visitExpr(e, (x) => {
        if (['attr', 'elem', 'len', 'flag', 'is', 'round'].includes(x.kind)) usesAttrs = true;
        if (x.kind !== 'dim') usesBuilder = true;
        if (x.kind === 'dim') used.set(x.inputIndex, Math.max(used.get(x.inputIndex) ?? -1, x.axis));
      });
      return `        out->d[${d}] = ${trtDimExpr(e)};  // ${commentText(o.shape.kind === 'dims' ? (o.shape.source[d] ?? '') : '')}`;
    });
    return lines(
      `      case ${o.index}:  // ${o.name}`,
      `        out->nbDims = ${o.shape.dims.length};`,
      ...body,
      '        break;',
    );
  });
  const guards = [...used.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([i, axis]) => {
      const inp = op.inputs[i]!;
      const g: string[] = [];
      if (inp.optional) g.push(`    if (!present[${i}]) return false;  // ${inp.name} is optional and absent`);
      if (inp.rank !== null) g.push(`    if (in[${i}].nbDims != ${inp.rank}) return false;  // ${inp.name}`);
      else if (axis >= 0) g.push(`    if (in[${i}].nbDims <= ${axis}) return false;  // ${inp.name}`);
      return g;
    });
  const usesPresent = guards.some((g) => g.includes('present['));
  // `in` is read only when some output is shaped like an input or reads an input dim: shapes of
  // attributes and constants alone (`[num_segments]`, `[4, 2]`) need only the builder.
  return {
    attrs: cppParam('attrs', usesAttrs),
    in: cppParam('in', used.size > 0),
    present: cppParam('present', usesPresent),
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
