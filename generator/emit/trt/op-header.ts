// out/trt/<op>/<op>_trt.h: the op as the TensorRT plugin bases see it. The op core's tables give
// the port types, dtype bindings, ranks and attributes (the creator fields); here is only what
// TensorRT adds: the registered names, output dims compiled from the IR's expression trees to
// IExprBuilder calls, the CUDA path, and the creators.

import type { Expr, OpIR } from '../../model/ir.js';
import { cppParam } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { lines } from '../emitter.js';
import { type Constant, constants, cppUnit, docComment } from '../lang/cpp.js';
import { commentText, cppString } from '../lang/literals.js';
import { instantiations, pluginNames } from './names.js';

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
    case 'binary':
      return `::opforge::trt::dimOp(b, nvinfer1::DimensionOperation::${DIM_OPS[e.op]}, ${trtDimExpr(e.left)}, ${trtDimExpr(e.right)})`;
    case 'call':
      return `::opforge::trt::dimOp(b, nvinfer1::DimensionOperation::${DIM_OPS[e.fn]}, ${trtDimExpr(e.args[0])}, ${trtDimExpr(e.args[1])})`;
  }
}

function emitOutputDims(op: OpIR): string {
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
        if (x.kind === 'attr') usesAttrs = true;
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
  const usesIn = used.size > 0;
  return lines(
    "  /** Output dims from the spec's shape expressions, as IExprBuilder expressions. */",
    `  static bool outputDims(const Attrs& ${cppParam('attrs', usesAttrs)}, int32_t index, const nvinfer1::DimsExprs* ${cppParam('in', usesIn)}, const bool* ${cppParam('present', usesPresent)},`,
    `                         nvinfer1::IExprBuilder& ${cppParam('b', usesBuilder)}, nvinfer1::DimsExprs* out) {`,
    ...guards,
    '    switch (index) {',
    ...cases,
    '      default:',
    '        return false;',
    '    }',
    '    for (int32_t d = 0; d < out->nbDims; ++d) if (out->d[d] == nullptr) return false;',
    '    return true;',
    '  }',
  );
}

/** Declared extern so that no includer instantiates the plugin templates again. */
function emitExternTemplates(op: OpIR): string {
  const { v3, v2 } = instantiations(op);
  const extern = (cs: string[]): string[] => cs.map((c) => `extern template class ${c};`);
  return lines(
    `// Instantiated once, in ${op.ident.snake}_plugin_v3.cpp and _v2.cpp: the plugin library's entry points and`,
    "// the static registration, which include every op's header, only name the creators.",
    ['#if NV_TENSORRT_MAJOR >= 10', ...extern(v3), '#endif'],
    ['OPFORGE_TRT_V2_BEGIN', ...extern(v2), 'OPFORGE_TRT_V2_END'],
  );
}

export function emitOpHeader(op: OpIR, coreInclude: string): string {
  const n = pluginNames(op);
  const names = Object.entries({
    kPluginName: n.name,
    kPluginVersion: n.version,
    kPaddleStaticName: n.paddleStatic,
    kPaddleDynamicName: n.paddleDynamic,
  }).map(([name, value]): Constant => ({ type: 'const char*', name, value: cppString(value) }));
  const header = cppUnit({
    comment: `${op.name} for TensorRT: what the plugin bases in opforge/trt/ need to know about this op.`,
    header: true,
    includes: { project: [coreInclude, ...TRT_BASES] },
    namespace: ['opforge', 'trt', op.ident.snake],
    body: [
      OP_DOC,
      `struct Op : ::opforge::ops::${op.ident.snake}::Core {`,
      constants(names, 'static ', '  '),
      '',
      emitOutputDims(op),
      '};',
    ],
  });
  return lines(header, '', emitExternTemplates(op));
}

const TRT_BASES = ['opforge/trt/common.h', 'opforge/trt/plugin_v2.h', 'opforge/trt/plugin_v3.h'];
const OP_DOC = docComment([
  'The op core (names, counts, port types, dtype bindings, attributes, functions: its tables) plus what',
  'TensorRT needs beyond it: the registered names and the output dims as IExprBuilder expressions.',
]);
