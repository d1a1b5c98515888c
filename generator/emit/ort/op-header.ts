// out/ort/<op>/<op>_ort.h: the op as the ONNX Runtime kernel base (opforge/ort/custom_op.h) sees
// it. The op core's tables give names, port dtypes per binding, ranks and attributes; here is only
// what ONNX Runtime adds: where each computed output dim comes from, and the op's kernel units;
// also custom_ops.cpp, the library's entry point over every op's units.

import type { OpIR, OutputIR, ProjectIR } from '../../model/ir.js';
import { visitExpr } from '../../model/expr.js';
import { lines } from '../emitter.js';
import { braced, includeLines, table } from '../lang/cpp.js';
import { fillTemplate } from '../lang/template.js';
import { ortPaths } from './names.js';
import { MAX_RANK } from '../../model/limits.js';
import { hasCudaKernel } from '../../model/ir-helpers.js';

/** Per output dim: the input dim it copies, or whether its expression reads any input dim. */
function outputDims(o: OutputIR): { value: string; comment: string } {
  if (o.shape.kind === 'like') return { value: '{}', comment: `${o.name}: shaped like input ${o.shape.input}` };
  // Where a spliced output's dims land depends on ranks and attributes: each counts as computed
  // from the inputs, so ONNX Runtime sets its shape where every input's dims are known.
  if (o.shape.kind === 'splice')
    return { value: braced(Array.from({ length: MAX_RANK }, () => '{-1, 0, true}')), comment: `${o.name}: spliced` };
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

/** The op's header (op.h.tmpl): the op core plus where each computed output dim comes from. */
export function emitOpHeader(op: OpIR): string {
  const rows = op.outputs.map(outputDims);
  return fillTemplate(`${TEMPLATES}/op.h.tmpl`, {
    name: op.name,
    snake: op.ident.snake,
    outputDims: table({
      prefix: 'static ',
      indent: '  ',
      type: 'DimSource',
      name: 'kOutputDims',
      size: 'kNumOutputs',
      inner: 'kMaxRank',
      rows,
    }),
  });
}

const TEMPLATES = 'generator/static/cpp/opforge/ort';

/** out/ort/<op>/<op>_ort.cpp (op.cpp.tmpl): the op's OrtCustomOp instances, per dtype binding and EP. */
export function emitOpUnit(op: OpIR): string {
  // One kernel per binding of the variables the inputs bind: ORT matches kernels by input types, and
  // an output dtype the attributes choose is declared undefined (its kernel's type inference sets it).
  const inputSide = (b: OpIR['bindings'][number]): string =>
    op.typeVars
      .filter((v) => !v.choice)
      .map((v) => b.vars[v.name])
      .join(',');
  const kept = op.bindings.flatMap((b, k) =>
    op.bindings.findIndex((c) => inputSide(c) === inputSide(b)) === k ? [k] : [],
  );
  const add = (ep: string, name: string): string[] => [
    `  static const CustomOp<Op, ${ep}> ${name}[] = ${braced(kept.map((b) => `CustomOp<Op, ${ep}>(${b})`))};`,
    `  for (const auto& op : ${name}) r.add(Op::kDomain, &op);`,
  ];
  const cuda = hasCudaKernel(op);
  return fillTemplate(`${TEMPLATES}/op.cpp.tmpl`, {
    name: op.name,
    snake: op.ident.snake,
    cudaNote: cuda ? ' and, built with CUDA, the CUDA EP' : '',
    cpu: lines(add('CpuEp', 'kCpu')),
    cuda: cuda ? lines('#if defined(OPFORGE_ORT_WITH_CUDA)', add('CudaEp', 'kCuda'), '#endif') : null,
  });
}

/** out/ort/custom_ops.cpp (custom_ops.cpp.tmpl): RegisterCustomOps adds every op's kernels. */
export function emitLibrary(project: ProjectIR): string {
  return fillTemplate(`${TEMPLATES}/custom_ops.cpp.tmpl`, {
    includes: lines(
      includeLines({ project: ['opforge/ort/custom_op.h', ...project.ops.map((op) => ortPaths(op).include)] }),
    ),
    adds: lines(project.ops.map((op) => `  ::opforge::ort::${op.ident.snake}::addKernels(r);`)),
  });
}
