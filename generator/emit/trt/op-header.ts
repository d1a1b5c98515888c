// out/trt/<op>/<op>_trt.h: the op as the TensorRT plugin bases see it. The op core's tables give
// the port types, dtype bindings, ranks and attributes (the creator fields); here is only what
// TensorRT adds: the registered names, output dims compiled from the IR's expression trees to
// IExprBuilder calls, the CUDA path, and the creators.

import type { Expr, OpIR } from '../../model/ir.js';
import { cppParam } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { lines } from '../emitter.js';
import { commentText, cppString } from '../lang/literals.js';
import { block, fillTemplate, type SlotValue } from '../lang/template.js';
import { pluginNames } from './names.js';

const DIM_OPS: Record<string, string> = {
  '+': 'kSUM',
  '-': 'kSUB',
  '*': 'kPROD',
  '//': 'kFLOOR_DIV',
  ceil_div: 'kCEIL_DIV',
  max: 'kMAX',
  min: 'kMIN',
};

/** An IR dim expression as IExprBuilder calls; null dims (bad input) propagate as nullptr. */
export function trtDimExpr(e: Expr): string {
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
    case 'binary':
      return `::opforge::trt::dimOp(b, nvinfer1::DimensionOperation::${DIM_OPS[e.op]}, ${trtDimExpr(e.left)}, ${trtDimExpr(e.right)})`;
    case 'call':
      return `::opforge::trt::dimOp(b, nvinfer1::DimensionOperation::${DIM_OPS[e.fn]}, ${trtDimExpr(e.args[0])}, ${trtDimExpr(e.args[1])})`;
  }
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
        if (x.kind === 'attr' || x.kind === 'elem' || x.kind === 'len') usesAttrs = true;
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
