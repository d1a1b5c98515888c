// out/ort/<op>/<op>_ort.h: the op as the ONNX Runtime kernel base (opforge/ort/custom_op.h) sees
// it. Only what differs per op: names, the element type of every port under each dtype binding,
// attribute reading by name and type, where output dims come from, and forwarders to the op core.

import type { AttributeIR, OpIR, OutputIR } from '../../model/ir.js';
import { dtypeUnder } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { DTYPE_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';
import { commentText, cppString } from '../lang/literals.js';

function portTypes(op: OpIR): string[] {
  const ports = [...op.inputs, ...op.outputs];
  return op.bindings.map((b) => {
    const types = ports.map((p) => DTYPE_INFO[dtypeUnder(p.type, b)].ort);
    return `      {${types.join(', ')}},  // ${b.suffix || 'fixed dtypes'}`;
  });
}

/** Per output dim: the input dim it copies, or whether its expression reads any input dim. */
function outputDims(o: OutputIR): string {
  if (o.shape.kind === 'like') return `{},  // ${o.name}: shaped like input ${o.shape.input}`;
  const dims = o.shape.dims.map((e) => {
    if (e.kind === 'dim') return `{${e.inputIndex}, ${e.axis}, true}`;
    let reads = false;
    visitExpr(e, (x) => {
      if (x.kind === 'dim') reads = true;
    });
    return `{-1, 0, ${reads}}`;
  });
  return `{${dims.join(', ')}},  // ${o.name}: ${commentText(o.shape.source.join(', '))}`;
}

function attrRead(a: AttributeIR): string {
  return `r.read(${cppString(a.name)}, ${a.required}, &a->${a.name})`;
}

export function emitOpHeader(op: OpIR, coreInclude: string): string {
  const tv = op.typeVars.map((v) => `${v.name} in ${v.dtypes.join(' | ')}`).join('; ');
  const reads = op.attributes.map(attrRead);
  return lines(
    `// ${op.name} for ONNX Runtime: what the kernel base in opforge/ort/ needs to know about this op.`,
    '#pragma once',
    '',
    '#include <cstdint>',
    '',
    `#include "${coreInclude}"`,
    '#include "opforge/ort/custom_op.h"',
    '',
    'namespace opforge {',
    'namespace ort {',
    `namespace ${op.ident.snake} {`,
    '',
    `namespace core = ::opforge::ops::${op.ident.snake};`,
    '',
    '/** The op core (names, counts, functions) plus what ORT needs beyond it. */',
    'struct Op : core::Core {',
    '  /** Rank each input must have; -1 for any. */',
    `  static constexpr int32_t kInputRank[kNumInputs] = {${op.inputs.map((i) => String(i.rank ?? -1)).join(', ')}};`,
    '',
    `  /** Element type of each input, then each output, under each dtype binding${tv ? ` (${commentText(tv)})` : ''}. */`,
    '  static constexpr ONNXTensorElementDataType kPortTypes[kNumBindings][kNumInputs + kNumOutputs] = {',
    ...portTypes(op),
    '  };',
    '',
    '  /** Graph-level shape inference: the input each output is shaped like, or -1 (then kOutputDims). */',
    `  static constexpr int kOutputLike[kNumOutputs] = {${op.outputs.map((o) => String(o.shape.kind === 'like' ? o.shape.inputIndex : -1)).join(', ')}};`,
    '  static constexpr DimSource kOutputDims[kNumOutputs][kMaxRank] = {',
    ...op.outputs.map((o) => `      ${outputDims(o)}`),
    '  };',
    '',
    '  /** Attributes by name and ONNX type; an absent optional one keeps the spec default. */',
    '  template <class Reader>',
    reads.length
      ? lines(`  static bool readAttrs(Reader& r, Attrs* a) {`, `    return ${reads.join(' &&\n           ')};`, '  }')
      : lines('  static bool readAttrs(Reader& /*r*/, Attrs* /*a*/) { return true; }'),
    '};',
    '',
    "/** Adds this op's kernels (one per dtype binding and execution provider) to the registry. */",
    'void addKernels(Registry& r);',
    '',
    `}  // namespace ${op.ident.snake}`,
    '}  // namespace ort',
    '}  // namespace opforge',
  );
}

/** out/ort/<op>/<op>_ort.cpp: the op's OrtCustomOp instances. */
export function emitOpUnit(op: OpIR, include: string): string {
  const n = op.bindings.length;
  const inst = (ep: string): string => Array.from({ length: n }, (_, b) => `CustomOp<Op, ${ep}>(${b})`).join(', ');
  return lines(
    `// ${op.name}'s ONNX Runtime kernels: one per dtype binding on the CPU EP${op.kernels.cuda ? ' and, built with CUDA, the CUDA EP' : ''}.`,
    `#include "${include}"`,
    '',
    'namespace opforge {',
    'namespace ort {',
    `namespace ${op.ident.snake} {`,
    '',
    'void addKernels(Registry& r) {',
    `  static const CustomOp<Op, CpuEp> kCpu[] = {${inst('CpuEp')}};`,
    '  for (const auto& op : kCpu) r.add(Op::kDomain, &op);',
    op.kernels.cuda
      ? lines(
          '#if defined(OPFORGE_ORT_WITH_CUDA)',
          `  static const CustomOp<Op, CudaEp> kCuda[] = {${inst('CudaEp')}};`,
          '  for (const auto& op : kCuda) r.add(Op::kDomain, &op);',
          '#endif',
        )
      : null,
    '}',
    '',
    `}  // namespace ${op.ident.snake}`,
    '}  // namespace ort',
    '}  // namespace opforge',
  );
}
