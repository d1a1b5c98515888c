// out/ort/<op>/<op>_ort.h: the op as the ONNX Runtime kernel base (opforge/ort/custom_op.h) sees
// it. The op core's tables give names, port dtypes per binding, ranks and attributes; here is only
// what ONNX Runtime adds: where each computed output dim comes from, and the op's kernel units.

import type { OpIR, OutputIR } from '../../model/ir.js';
import { visitExpr } from '../../model/expr.js';
import { lines, paragraphs } from '../emitter.js';
import { braced, cppUnit, docComment, table } from '../lang/cpp.js';

/** Per output dim: the input dim it copies, or whether its expression reads any input dim. */
function outputDims(o: OutputIR): { value: string; comment: string } {
  if (o.shape.kind === 'like') return { value: '{}', comment: `${o.name}: shaped like input ${o.shape.input}` };
  const dims = o.shape.dims.map((e) => {
    if (e.kind === 'dim') return braced([e.inputIndex, e.axis, true].map(String));
    let reads = false;
    visitExpr(e, (x) => {
      reads ||= x.kind === 'dim';
    });
    return braced(['-1', '0', String(reads)]);
  });
  return { value: braced(dims), comment: `${o.name}: ${o.shape.source.join(', ')}` };
}

const unit = (op: OpIR, comment: string, include: string, body: string[]): string =>
  cppUnit({ comment, includes: { project: [include] }, namespace: ['opforge', 'ort', op.ident.snake], body });

export function emitOpHeader(op: OpIR, coreInclude: string): string {
  const rows = op.outputs.map(outputDims);
  const dims = table({ prefix: 'static ', indent: '  ', type: DIM, name: 'kOutputDims', size: OUT, inner: RANK, rows });
  return cppUnit({
    comment: `${op.name} for ONNX Runtime: what the kernel base in opforge/ort/ needs to know about this op.`,
    header: true,
    includes: { project: [coreInclude, 'opforge/ort/custom_op.h'] },
    namespace: ['opforge', 'ort', op.ident.snake],
    body: paragraphs(
      `namespace core = ::opforge::ops::${op.ident.snake};`,
      [OP_DOC, 'struct Op : core::Core {', DIMS_DOC, dims, '};'],
      ADD,
    ),
  });
}

const [DIM, OUT, RANK] = ['DimSource', 'kNumOutputs', 'kMaxRank'];
const OP_DOC = docComment(
  'The op core (names, port dtypes per binding, ranks, attributes, functions) plus what ORT adds.',
);
const DIMS_DOC = docComment(
  "Graph-level shape inference of outputs not shaped like an input (kOutputLike): each dim's source.",
  '  ',
);
const ADD = lines(
  docComment("Adds this op's kernels (one per dtype binding and execution provider) to the registry."),
  'void addKernels(Registry& r);',
);

/** out/ort/<op>/<op>_ort.cpp: the op's OrtCustomOp instances. */
export function emitOpUnit(op: OpIR, include: string): string {
  const inst = (ep: string): string => braced(op.bindings.map((_, b) => `CustomOp<Op, ${ep}>(${b})`));
  const eps = op.kernels.cuda ? ' and, built with CUDA, the CUDA EP' : '';
  const add = (ep: string, name: string): string[] => [
    `  static const CustomOp<Op, ${ep}> ${name}[] = ${inst(ep)};`,
    `  for (const auto& op : ${name}) r.add(Op::kDomain, &op);`,
  ];
  return unit(op, `${op.name}'s ONNX Runtime kernels: one per dtype binding on the CPU EP${eps}.`, include, [
    'void addKernels(Registry& r) {',
    ...add('CpuEp', 'kCpu'),
    ...(op.kernels.cuda ? ['#if defined(OPFORGE_ORT_WITH_CUDA)', ...add('CudaEp', 'kCuda'), '#endif'] : []),
    '}',
  ]);
}
