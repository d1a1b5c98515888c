// out/trt/<op>/<op>_trt.h: the op as the TensorRT plugin bases see it. Everything here is what
// differs per op: names, published fields, type constraints, output dims compiled from the IR's
// expression trees to IExprBuilder calls, and one-line forwarders to the op core.

import type { Expr, OpIR, TensorType } from '../../model/ir.js';
import { allowedDtypes, cppParam, dtypeUnder } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { ATTR_INFO, DTYPE_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';
import { commentText, cppString } from '../lang/literals.js';
import { creatorNames, instantiations, pluginNames } from './names.js';

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

function dtypeCheck(t: TensorType): string {
  return allowedDtypes(t)
    .map((d) => `t == DType::${DTYPE_INFO[d].cppEnum}`)
    .join(' || ');
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

/**
 * Every dtype binding (the op core's order) as the dtype of each input then output: what
 * PluginCore checks against the dtypes this TensorRT has (float64 never, int64 from 10, bfloat16
 * from 9; dtype.h), so a combination TensorRT cannot carry is refused, never mis-typed.
 */
function emitBindingTable(op: OpIR, ports: { name: string; type: TensorType }[]): string[] {
  return [
    '  /** Dtype of each input then output under each dtype binding (suffix names; "" without type variables). */',
    `  static constexpr const char* kBindingNames[kNumBindings] = {${op.bindings.map((b) => cppString(b.suffix)).join(', ')}};`,
    '  static constexpr DType kBindingDtypes[kNumBindings][kNumInputs + kNumOutputs] = {',
    ...op.bindings.map(
      (b) =>
        `      {${ports.map((p) => `DType::${DTYPE_INFO[dtypeUnder(p.type, b)].cppEnum}`).join(', ')}},${b.suffix ? `  // ${b.suffix}` : ''}`,
    ),
    '  };',
  ];
}

/**
 * The creator fields (the attributes, typed as onnx-tensorrt gives ONNX attributes) and setField,
 * which stores one into Attrs; an op without attributes still needs a one-element array in C++.
 */
function emitFields(op: OpIR): string[] {
  const fields = op.attributes.map(
    (a) =>
      `    {${cppString(a.name)}, nvinfer1::PluginFieldType::${ATTR_INFO[a.type].trtField}, ${a.required}},  // ${a.type}`,
  );
  const hasFields = fields.length > 0;
  return [
    '  /** Creator fields: the attribute names with the types onnx-tensorrt gives ONNX attributes. */',
    `  static constexpr int kNumFields = ${fields.length};`,
    hasFields
      ? lines('  static constexpr FieldInfo kFields[kNumFields] = {', ...fields, '  };')
      : '  static constexpr FieldInfo kFields[1] = {{"", nvinfer1::PluginFieldType::kUNKNOWN, false}};  // no attributes',
    '',
    `  static FieldResult setField(Attrs& ${hasFields ? 'a' : '/*a*/'}, int index, const nvinfer1::PluginField& ${hasFields ? 'f' : '/*f*/'}, std::string* err) {`,
    hasFields
      ? lines(
          '    switch (index) {',
          ...op.attributes.map((a, k) => `      case ${k}: return readField(f, &a.${a.name}, err);`),
          '      default: break;',
          '    }',
        )
      : '    (void)index;',
    '    *err = "is not an attribute of this op";',
    '    return FieldResult::kError;',
    '  }',
  ];
}

/** Each port's type variable and the dtypes it allows: what the plugin checks a format against. */
function emitPortTypes(op: OpIR, ports: { name: string; type: TensorType }[]): string[] {
  const varIndex = (t: TensorType): number => (t.kind === 'var' ? op.typeVars.findIndex((v) => v.name === t.name) : -1);
  // Ports grouped by the dtypes they allow, so portAllows() has one case label list per set.
  const groups = new Map<string, number[]>();
  ports.forEach((p, k) => {
    const key = dtypeCheck(p.type);
    groups.set(key, [...(groups.get(key) ?? []), k]);
  });
  return [
    '  /** Type variable of each input then output (-1: fixed dtype); ports sharing one must agree. */',
    `  static constexpr int kPortVar[kNumInputs + kNumOutputs] = {${ports.map((p) => String(varIndex(p.type))).join(', ')}};`,
    `  static bool portAllows(int port, DType t) {`,
    '    switch (port) {',
    ...[...groups.entries()].map(
      ([check, ks]) =>
        `      ${ks.map((k) => `case ${k}:`).join(' ')}  // ${ks.map((k) => ports[k]!.name).join(', ')}\n        return ${check};`,
    ),
    '      default: return false;',
    '    }',
    '  }',
  ];
}

/** The plugin classes and creators over Op, by the names the plugin library and the registration use. */
function emitCreators(op: OpIR): string[] {
  const c = creatorNames(op);
  return [
    `// Creators (global aliases ${c.v3}, ${c.v2}, ${c.paddleDynamic}, ${c.paddleStatic} in plugin_library.cpp and register.cpp).`,
    '#if NV_TENSORRT_MAJOR >= 10',
    'using PluginV3 = ::opforge::trt::PluginV3<Op>;',
    'using CreatorV3 = ::opforge::trt::CreatorV3<Op>;',
    '#endif',
    'OPFORGE_TRT_V2_BEGIN',
    'using PluginV2Dynamic = ::opforge::trt::PluginV2Dynamic<Op>;',
    'using PluginV2Static = ::opforge::trt::PluginV2Static<Op>;',
    'using CreatorV2 = ::opforge::trt::CreatorV2<PluginV2Dynamic, Op, V2Name::kOp>;',
    'using PaddleDynamicCreator = ::opforge::trt::CreatorV2<PluginV2Dynamic, Op, V2Name::kPaddleDynamic>;',
    'using PaddleStaticCreator = ::opforge::trt::CreatorV2<PluginV2Static, Op, V2Name::kPaddleStatic>;',
    'OPFORGE_TRT_V2_END',
  ];
}

/** Declared extern so that no includer instantiates the plugin templates again. */
function emitExternTemplates(op: OpIR): string[] {
  return [
    `// Instantiated once, in ${op.ident.snake}_plugin_v3.cpp and _v2.cpp: the plugin library's entry points and`,
    "// the static registration, which include every op's header, only name the creators.",
    '#if NV_TENSORRT_MAJOR >= 10',
    ...instantiations(op).v3.map((c) => `extern template class ${c};`),
    '#endif',
    'OPFORGE_TRT_V2_BEGIN',
    ...instantiations(op).v2.map((c) => `extern template class ${c};`),
    'OPFORGE_TRT_V2_END',
  ];
}

export function emitOpHeader(op: OpIR, coreInclude: string): string {
  const n = pluginNames(op);
  const ports = [
    ...op.inputs.map((i) => ({ name: i.name, type: i.type })),
    ...op.outputs.map((o) => ({ name: o.name, type: o.type })),
  ];
  return lines(
    `// ${op.name} for TensorRT: what the plugin bases in opforge/trt/ need to know about this op.`,
    '#pragma once',
    '',
    '#include <cstdint>',
    '#include <string>',
    '',
    `#include "${coreInclude}"`,
    '#include "opforge/trt/common.h"',
    '#include "opforge/trt/plugin_v2.h"',
    '#include "opforge/trt/plugin_v3.h"',
    '',
    'namespace opforge {',
    'namespace trt {',
    `namespace ${op.ident.snake} {`,
    '',
    `namespace core = ::opforge::ops::${op.ident.snake};`,
    '',
    '/** The op core (names, counts, functions) plus what TensorRT needs beyond it. */',
    'struct Op : core::Core {',
    `  static constexpr const char* kPluginName = ${cppString(n.name)};`,
    `  static constexpr const char* kPluginVersion = ${cppString(n.version)};`,
    `  static constexpr const char* kPaddleStaticName = ${cppString(n.paddleStatic)};`,
    `  static constexpr const char* kPaddleDynamicName = ${cppString(n.paddleDynamic)};`,
    '  /** Rank each input must have; -1 for any. */',
    `  static constexpr int32_t kInputRank[kNumInputs] = {${op.inputs.map((i) => String(i.rank ?? -1)).join(', ')}};`,
    '',
    ...emitFields(op),
    '',
    ...emitPortTypes(op, ports),
    '',
    ...emitBindingTable(op, ports),
    '',
    emitOutputDims(op),
    '',
    '  /** The CUDA path TensorRT enqueues. */',
    op.kernels.cuda
      ? '  static Status run(const Attrs& a, const State& s, const RawTensor* in, const RawTensor* out, const CudaContext& ctx) { return core::runCuda(a, s, in, out, ctx); }'
      : lines(
          '  // No CUDA kernel in the spec: copy to the host and run the CPU kernel.',
          '  static Status run(const Attrs& a, const State& s, const RawTensor* in, const RawTensor* out, const CudaContext& ctx) { return runOnHost<Op>(a, s, in, out, ctx); }',
        ),
    '};',
    '',
    ...emitCreators(op),
    '',
    `}  // namespace ${op.ident.snake}`,
    '}  // namespace trt',
    '}  // namespace opforge',
    '',
    ...emitExternTemplates(op),
  );
}
