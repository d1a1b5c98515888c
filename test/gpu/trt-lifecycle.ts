// TensorRT plugin lifecycle on a GPU without libnvinfer (run by scripts/gpu/trt-lifecycle.sh).
// For every seed op and every `tests:` case of its spec, drive the generated plugins the way
// TensorRT would: create from fields (onnx-tensorrt's field types), reject a missing required
// field and a wrong field type, infer output dtypes and dims (through a stub IExprBuilder that
// folds constants), supportsFormatCombination, configure, workspace size, serialize,
// deserialize (and reject a corrupted buffer), clone, attach, shape change, and enqueue on real
// device buffers; compare with the CPU kernel run through the op core's runCpu.
// IPluginV3 runs when the headers are TensorRT 10+, IPluginV2DynamicExt always; the Paddle
// static IPluginV2Ext gets create/serialize/deserialize/clone/output dims (its enqueue is
// implicit-batch and needs TensorRT to choose the batch).
// Usage: node dist/test/gpu/trt-lifecycle.js <TensorRT include dir> <build dir> [--compile-only]

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { evalExpr } from '../../generator/expr.js';
import type { AttrValue, AttributeIR, OpIR, TestCaseIR } from '../../generator/ir.js';
import { dtypeUnder } from '../../generator/ir-helpers.js';
import { loadProject } from '../../generator/project.js';
import { DTYPE_INFO } from '../../generator/type-table.js';
import { trtPaths } from '../../generator/emit/trt/names.js';
import { cppFloat, cppString } from '../../generator/emit/literals.js';
import { sh } from '../helpers/cxx.js';
import { opsDir, outDir, root } from '../helpers/paths.js';

const project = loadProject({ opsDir });

/** A field as onnx-tensorrt's plugin fallback builds it from the ONNX attribute. */
function fieldCode(a: AttributeIR, v: AttrValue, k: number): string[] {
  const name = cppString(a.name);
  switch (a.type) {
    case 'bool': return [`    static const int32_t f${k}[] = {${v ? 1 : 0}};`, `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kINT32, 1);`];
    case 'int': return [`    static const int32_t f${k}[] = {${v as number}};`, `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kINT32, 1);`];
    case 'float': return [`    static const float f${k}[] = {${cppFloat(v as number)}};`, `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kFLOAT32, 1);`];
    case 'string': return [`    static const char f${k}[] = ${cppString(v as string)};`, `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kCHAR, static_cast<int32_t>(sizeof(f${k})));`];
    case 'ints': { const xs = v as number[]; return [`    static const int32_t f${k}[] = {${xs.length ? xs.join(', ') : '0'}};`, `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kINT32, ${xs.length});`]; }
    case 'floats': { const xs = v as number[]; return [`    static const float f${k}[] = {${xs.length ? xs.map(cppFloat).join(', ') : '0'}};`, `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kFLOAT32, ${xs.length});`]; }
  }
}

function block(op: OpIR, t: TestCaseIR): string {
  // TensorRT has no tensor type for some dtypes (float64): such cases do not apply to a plugin.
  const lacking = [...op.inputs, ...op.outputs].map((x) => dtypeUnder(x.type, t.binding)).filter((d) => DTYPE_INFO[d].trt === null);
  if (lacking.length) return `  // ${op.name} case ${t.index}: skipped, TensorRT has no ${[...new Set(lacking)].join(', ')} tensors`;
  const ns = `::opforge::trt::${op.ident.snake}`;
  const ints = Object.fromEntries(op.attributes.filter((a) => a.type === 'int').map((a) => [a.name, t.attributes[a.name] as number]));
  const dims = op.inputs.map((i) => t.inputs.find((x) => x.name === i.name)?.shape ?? []);
  const outShapes = op.outputs.map((o) => (o.shape.kind === 'like' ? dims[o.shape.inputIndex]! : o.shape.dims.map((e) => evalExpr(e, dims, ints))));
  const L: string[] = [`  {  // ${op.name} case ${t.index} (${t.binding.suffix || 'fixed dtypes'})`, `    using Op = ${ns}::Op;`, `    Case c("${op.name} case ${t.index}", ${t.rtol}, ${t.atol});`];
  L.push('    std::vector<nvinfer1::PluginField> fields;');
  op.attributes.forEach((a, k) => L.push(...fieldCode(a, t.attributes[a.name]!, k)));
  const required = op.attributes.findIndex((a) => a.required);
  L.push(`    c.requiredField = ${required};`);
  op.inputs.forEach((inp, k) => {
    const ti = t.inputs.find((x) => x.name === inp.name)!;
    const dt = DTYPE_INFO[dtypeUnder(inp.type, t.binding)];
    const vals = ti.values ? `{${ti.values.join(', ')}}` : '{}';
    L.push(`    c.input(opforge::DType::${dt.cppEnum}, {${ti.shape.join(', ')}}, std::vector<double>${vals}, ${ti.range[0]}, ${ti.range[1]}, ${t.seed + k});`);
  });
  op.outputs.forEach((o, k) => L.push(`    c.output(opforge::DType::${DTYPE_INFO[dtypeUnder(o.type, t.binding)].cppEnum}, {${outShapes[k]!.join(', ')}});`));
  L.push('    c.fields = fields;', '    c.reference<Op>();');
  L.push('#if NV_TENSORRT_MAJOR >= 10', `    c.runV3<Op>();`, '#endif', `    c.runV2Dynamic<Op>();`, `    c.runV2Static<Op>();`, '  }');
  return L.join('\n');
}

const driver = `// Generated by test/gpu/trt-lifecycle.ts: TensorRT plugin lifecycle without libnvinfer.
${project.ops.map((op) => `#include "${trtPaths(op).include}"`).join('\n')}
#include "trt_lifecycle.h"

int main() {
${project.ops.flatMap((op) => op.tests.map((t) => block(op, t))).join('\n')}
  std::printf("TensorRT %d.%d headers: %d checks, %d failed\\n", NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR, checks, failures);
  return failures ? 1 : 0;
}
`;

const trtInclude = process.argv[2];
if (!trtInclude) throw new Error('usage: node dist/test/gpu/trt-lifecycle.js <TensorRT include dir> <build dir> [--compile-only]');
const build = path.resolve(process.argv[3] ?? path.join(root, 'build', 'trt-lifecycle'));
const compileOnly = process.argv.includes('--compile-only');
mkdirSync(build, { recursive: true });
writeFileSync(path.join(build, 'driver.cu'), driver);
const kernels = project.ops.flatMap((op) => [op.kernels.cpu, ...(op.kernels.cuda ? [op.kernels.cuda] : [])]).map((k) => path.join(root, k));
const arch = process.env.CUDA_ARCH ?? 'sm_90';
const flags = ['-std=c++17', `-arch=${arch}`, '-O2', '-isystem', trtInclude, `-I${path.join(outDir, 'include')}`, `-I${path.join(outDir, 'trt', 'include')}`, `-I${path.join(outDir, 'trt')}`, `-I${path.join(root, 'scripts', 'gpu')}`, '-Xcompiler=-Wall,-Wextra'];
if (compileOnly) {
  sh('nvcc', [...flags, '-c', path.join(build, 'driver.cu'), '-o', path.join(build, 'driver.o')]);
  process.stdout.write('trt-lifecycle: driver compiled (not run)\n');
} else {
  sh('nvcc', [...flags, path.join(build, 'driver.cu'), ...kernels, '-o', path.join(build, 'driver')]);
  process.stdout.write(sh(path.join(build, 'driver'), []));
}
