// Triton kernels (kernels.triton, docs/triton.md): per op, the launcher that implements the kernel
// contract's cuda() overloads by launching the op's Triton kernel, and the job the build's
// ahead-of-time compile reads (opforge_triton_aot.py: one image per dtype binding and CUDA
// architecture, included by the launcher). Every backend links the op's CUDA object as it would a
// .cu kernel's, so they all launch the same compiled code.

import { TRITON_POINTER } from '../../model/type-table.js';
import type { OpIR, ProjectIR, TritonArgIR, TritonIR } from '../../model/ir.js';
import { dtypeUnder, exprReads, ioType } from '../../model/ir-helpers.js';
import { defineEmitter, headerLine, opFile, staticFile, type GeneratedFile } from '../emitter.js';
import { cppExpr, type CppExprEnv } from '../lang/cpp-expr.js';
import { cppString, commentText } from '../lang/literals.js';
import { braced, namespaceBlock } from '../lang/cpp.js';

/** Where the launcher's files go (relative to out/). */
export function tritonPaths(op: OpIR): { launcher: string; job: string } {
  const dir = `triton/${op.ident.snake}`;
  return { launcher: `${dir}/${op.ident.snake}_triton.cpp`, job: `${dir}/${op.ident.snake}_triton.json` };
}

/** The input or output at a port of the op core's order (the inputs, then the outputs). */
function portAt(op: OpIR, port: number): OpIR['inputs'][number] | OpIR['outputs'][number] {
  return port < op.inputs.length ? op.inputs[port]! : op.outputs[port - op.inputs.length]!;
}

/** The job opforge_triton_aot.py compiles: each binding's signature of the non-constexpr parameters. */
function job(op: OpIR, t: TritonIR): string {
  const sig = (a: TritonArgIR, b: OpIR['bindings'][number]): string => {
    switch (a.kind) {
      case 'tensor':
        return TRITON_POINTER[dtypeUnder(portAt(op, a.port).type, b)];
      case 'workspace':
        return '*u8';
      case 'float':
        return 'fp32';
      case 'int':
        return 'i64';
    }
  };
  const data = {
    // JSON has no comments: the do-not-edit line is the first key.
    generated: headerLine(tritonPaths(op).launcher, op.source.relFile).replace(/^\/\/ /, ''),
    op: op.name,
    spec: op.source.relFile,
    kernel: t.kernel,
    args: t.args.map((a) => (a.kind === 'int' ? a.source : a.kind === 'workspace' ? 'workspace' : a.name)),
    configs: t.configs.map((c) => ({
      constexprs: Object.fromEntries(
        c.constexprs.map(([k, v]) => [
          k,
          typeof v !== 'object' ? v : 'attr' in v ? { attr: v.attr } : { dtype_of: v.dtypeOf },
        ]),
      ),
      num_warps: c.numWarps,
      num_stages: c.numStages,
    })),
    // Constexprs from attributes ({"attr": "a"}): compiled per combination of these values.
    variants: t.variants,
    // A constexpr naming a type variable ({"dtype_of": "T"}) takes the binding's dtype of it.
    bindings: op.bindings.map((b, index) => ({ index, signature: t.args.map((a) => sig(a, b)), dtypes: b.vars })),
  };
  // The do-not-edit line first, as every generated file has it.
  return `${JSON.stringify(data, null, 2).replace(/^\{\n {2}/, '{ ')}\n`;
}

/**
 * The kernel variant of the call's attributes (those feeding constexprs): each attribute's index in
 * its value list, the first varying slowest, as opforge_triton_aot.py lays the variants out.
 */
function variantIndex(t: TritonIR): string[] {
  if (!t.variants.length) return [];
  const literal = (v: number | boolean | string): string => (typeof v === 'string' ? cppString(v) : String(v));
  return [
    '  int variant = 0;',
    ...t.variants.flatMap((v) => [
      `  {  // ${commentText(v.attr)}: ${v.values.map(String).join(', ')}`,
      `    int i = -1;`,
      ...v.values.map((x, k) => `    if (attrs.${v.attr} == ${literal(x)}) i = ${k};`),
      `    if (i < 0) return Status::Error(std::string(kName) + ${cppString(`: attribute ${v.attr} has a value the Triton kernel was not compiled for`)});`,
      `    variant = variant * ${v.values.length} + i;`,
      '  }',
    ]),
  ];
}

/** The launcher: one cuda() overload per binding, each passing its tensors, values and grid to launch(). */
function launcher(op: OpIR, t: TritonIR): string {
  const env: CppExprEnv = {
    dim: (i, axis) =>
      axis < 0
        ? `io.${op.inputs[i]!.name}.shape.dims[io.${op.inputs[i]!.name}.shape.rank - ${-axis}]`
        : `io.${op.inputs[i]!.name}.shape.dims[${axis}]`,
    rank: (i) => `int64_t{io.${op.inputs[i]!.name}.shape.rank}`,
    count: () => {
      throw new Error('a Triton op has no variadic input');
    },
    numel: (i) => `io.${op.inputs[i]!.name}.numel()`,
    attr: (name) => `static_cast<int64_t>(attrs.${name})`,
    attrList: (name) => `attrs.${name}`,
    okVar: 'ok',
  };
  const reads = exprReads([
    ...t.args.flatMap((a) => (a.kind === 'int' ? [a.expr] : [])),
    ...t.configs.flatMap((c) => c.grid),
  ]);
  const value = (a: TritonArgIR, k: number): string => {
    switch (a.kind) {
      case 'tensor':
        // Triton's pointer parameters are device addresses passed by value.
        return `  CUdeviceptr a${k} = reinterpret_cast<CUdeviceptr>(io.${portAt(op, a.port).name}.data);`;
      case 'workspace':
        return `  CUdeviceptr a${k} = reinterpret_cast<CUdeviceptr>(ctx.workspace);`;
      case 'float':
        return `  float a${k} = attrs.${a.name};`;
      case 'int':
        return `  int64_t a${k} = ${cppExpr(a.expr, env)};  // ${commentText(a.source)}`;
    }
  };
  // The configurations that are the default on some GPUs: {compute capability, configuration}.
  const archDefaults = t.configs.flatMap((c, k) => c.archs.map((a) => braced([String(a), String(k)])));
  // Each configuration's grid; the context's tactic (TensorRT's) picks one, else the GPU's default.
  const grids = t.configs.map((c) =>
    braced([0, 1, 2].map((d) => (c.grid[d] ? cppExpr(c.grid[d]!, env) : 'int64_t{1}'))),
  );
  const overload = (b: OpIR['bindings'][number], index: number): string[] => [
    `Status cuda(const Attrs& ${reads.attrs || t.variants.length || t.args.some((a) => a.kind === 'float') ? 'attrs' : '/*attrs*/'}, const State& /*state*/, const ${ioType(op, b)}& io, const CudaContext& ctx) {`,
    ...(reads.division ? ['  bool ok = true;'] : []),
    ...t.args.map(value),
    `  const int64_t grids[${grids.length}][3] = ${braced(grids)};`,
    `  const int config = triton::configOf(ctx, ${grids.length}, ${archDefaults.length ? 'kArchDefaults' : 'nullptr'}, ${archDefaults.length});`,
    ...variantIndex(t),
    ...(reads.division
      ? [
          `  if (!ok) return Status::Error(std::string(kName) + ": division by zero in the Triton kernel's arguments or grid");`,
        ]
      : []),
    `  void* args[] = ${braced(t.args.length ? t.args.map((_, k) => `&a${k}`) : ['nullptr'])};`,
    `  return triton::launch(kName, kTriton${index}[${t.variants.length ? `variant * ${grids.length} + config` : 'config'}], grids[config], args, ${t.args.length}, ctx);`,
    '}',
  ];
  return [
    `// ${op.name}'s CUDA kernel: the Triton kernel ${commentText(t.kernel)} of ${commentText(t.source)} (opforge/triton_launch.h).`,
    '',
    `#include "opforge/ops/${op.ident.snake}.h"`,
    '#include "opforge/triton_launch.h"',
    '',
    namespaceBlock(
      ['opforge', 'ops', op.ident.snake],
      [
        'namespace {',
        `#include ${cppString(`${op.ident.snake}_triton_images.inc`)}`,
        archDefaults.length ? `const int kArchDefaults[][2] = ${braced(archDefaults)};` : null,
        '}  // namespace',
        '',
      ],
      op.bindings.flatMap((b, k) => [...overload(b, k), '']).slice(0, -1),
    ),
  ].join('\n');
}

export const tritonEmitter = defineEmitter({
  name: 'triton',
  project(project: ProjectIR): GeneratedFile[] {
    if (!project.ops.some((o) => o.kernels.triton)) return [];
    return [
      staticFile('include/opforge/triton_launch.h', 'generator/static/cpp/triton/triton_launch.h'),
      staticFile('triton/opforge_triton_aot.py', 'generator/static/python/triton/opforge_triton_aot.py'),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    const t = op.kernels.triton;
    if (!t) return [];
    const p = tritonPaths(op);
    return [opFile(op, p.launcher, launcher(op, t)), { path: p.job, op: op.name, content: job(op, t) }];
  },
});
