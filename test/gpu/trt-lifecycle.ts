// TensorRT plugin lifecycle on a GPU without libnvinfer (run by scripts/gpu/trt-lifecycle.sh).
// For every op and every `tests:` case of its spec, drive the generated plugins the way
// TensorRT would: create from fields (onnx-tensorrt's field types), reject a missing required
// field and a wrong field type, infer output dtypes and dims (through a stub IExprBuilder that
// folds constants), supportsFormatCombination, configure, workspace size, serialize,
// deserialize (and reject a corrupted buffer), clone, attach, shape change, and enqueue on real
// device buffers; compare with the CPU kernel run through the op core's runCpu.
// IPluginV3 runs when the headers are TensorRT 10+, IPluginV2DynamicExt always; the Paddle
// static IPluginV2Ext gets create/serialize/deserialize/clone/output dims (its enqueue is
// implicit-batch and needs TensorRT to choose the batch).
// Per op, also the dtypes this TensorRT cannot carry (float64; int64 before 10, bfloat16 before
// 9; generator/type-table.ts): creation logs the refused bindings or, with none left, fails, and
// supportsFormatCombination offers exactly the carried dtypes. Cases that need such a dtype, or
// leave out an optional input before a present one, are skipped with a `skip` line each.
// Usage: node dist/test/gpu/trt-lifecycle.js <TensorRT include dir> <build dir> [--compile-only]
//          [--ops DIR] [--out DIR]
// Default: the seed ops and out/; another ops dir is generated into <build dir>/out (or --out).

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { evalExpr } from '../../generator/expr.js';
import type { AttrValue, AttributeIR, OpIR, TestCaseIR, TypeBinding } from '../../generator/ir.js';
import { dtypeUnder } from '../../generator/ir-helpers.js';
import { DTYPES, DTYPE_INFO, type DType } from '../../generator/type-table.js';
import { trtPaths } from '../../generator/emit/trt/names.js';
import { cppFloat, cppString } from '../../generator/emit/literals.js';
import { sh } from '../helpers/cxx.js';
import { root as repoRoot } from '../helpers/paths.js';
import { opsArgs } from './ops-args.js';

const args = process.argv.slice(2);
const positional = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--ops' && args[i - 1] !== '--out');
const trtInclude = positional[0];
if (!trtInclude) throw new Error('usage: node dist/test/gpu/trt-lifecycle.js <TensorRT include dir> <build dir> [--compile-only] [--ops DIR] [--out DIR]');
const build = path.resolve(positional[1] ?? path.join(repoRoot, 'build', 'trt-lifecycle'));
const compileOnly = args.includes('--compile-only');
const { project, outDir } = opsArgs(args, path.join(build, 'out'));
const root = project.root;

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


/** A counted `skip` line: the case cannot run on this TensorRT. */
const skip = (what: string, why: string): string => `  skipCase(${cppString(what)}, ${cppString(why)});`;

/** The TensorRT major a dtype arrived in; null: none has it. */
const trtSince = (d: DType): number | null => DTYPE_INFO[d].trt?.since ?? null;

/** The majors where what TensorRT carries changes (beyond the oldest, 8), newest first. */
const TRT_STEPS = [...new Set(DTYPES.map((d) => trtSince(d) ?? 8))].filter((v) => v > 8).sort((a, b) => b - a);

/** `code` for TensorRT >= since (8: always), a skip line below that. */
function fromTrtMajor(since: number, code: string, what: string, why: string): string {
  return since <= 8 ? code : [`#if NV_TENSORRT_MAJOR >= ${since}`, code, '#else', skip(what, why), '#endif'].join('\n');
}

function block(op: OpIR, t: TestCaseIR): string {
  const what = `${op.name} case ${t.index}`;
  // TensorRT passes the connected inputs only, so a case may leave out trailing optional inputs.
  const present = op.inputs.map((i) => t.inputs.some((x) => x.name === i.name));
  if (present.some((p, k) => !p && present.slice(k + 1).some(Boolean))) return skip(what, 'an optional input left out before a given one cannot be expressed to TensorRT');
  // No float64 tensors in TensorRT, no int64 before 10, no bfloat16 before 9.
  const used = [...new Set([...op.inputs.filter((_, k) => present[k]), ...op.outputs].map((x) => dtypeUnder(x.type, t.binding)))];
  const none = used.filter((d) => trtSince(d) === null);
  if (none.length) return skip(what, `TensorRT has no ${none.join(', ')} tensors`);
  const since = Math.max(8, ...used.map((d) => trtSince(d)!));
  return fromTrtMajor(since, caseBlock(op, t, present), what, `TensorRT < ${since} has no ${used.filter((d) => trtSince(d)! > 8).join(', ')} tensors`);
}

function caseBlock(op: OpIR, t: TestCaseIR, present: boolean[]): string {
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
    if (!present[k]) { L.push(`    // ${inp.name}: optional, left out (TensorRT connects ${present.filter(Boolean).length} inputs)`); return; }
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

/** "input x" / "output y", as the plugins name ports in messages. */
function portName(op: OpIR, p: number): string {
  return p < op.inputs.length ? `input ${op.inputs[p]!.name}` : `output ${op.outputs[p - op.inputs.length]!.name}`;
}

/**
 * What TensorRT `major` can carry of an op: per binding, the first port (optional inputs aside)
 * whose dtype it lacks, as the plugin words it; and the TensorRT types input 0 may take.
 */
function carried(op: OpIR, major: number): { refused: string[]; input0: string[] } {
  const ports = [...op.inputs, ...op.outputs];
  const has = (d: DType): boolean => (trtSince(d) ?? Infinity) <= major;
  const refused: string[] = [];
  const input0 = new Set<string>();
  op.bindings.forEach((b: TypeBinding) => {
    const p = ports.findIndex((x, k) => !(k < op.inputs.length && op.inputs[k]!.optional) && !has(dtypeUnder(x.type, b)));
    if (p < 0) { input0.add(DTYPE_INFO[dtypeUnder(op.inputs[0]!.type, b)].trt!.name); return; }
    const d = dtypeUnder(ports[p]!.type, b);
    refused.push(op.typeVars.length === 0 ? `${d} (${portName(op, p)})` : `binding ${b.suffix} (${d} ${portName(op, p)})`);
  });
  // Bindings that need an optional input's missing dtype still run without it; input 0 is required.
  return { refused, input0: DTYPES.map((d) => DTYPE_INFO[d].trt?.name).filter((n): n is string => n !== undefined && input0.has(n)) };
}

/** Per op: the dtypes this TensorRT cannot carry are refused (creation, supportsFormatCombination). */
function refusalBlock(op: OpIR): string {
  const t = op.tests[0];
  const values = (a: AttributeIR): AttrValue | undefined => t?.attributes[a.name] ?? a.default;
  if (op.attributes.some((a) => values(a) === undefined)) return skip(`${op.name} dtypes`, 'a required attribute and no test case to take it from');
  const L = [`  {  // ${op.name}: dtypes TensorRT cannot carry`, `    using Op = ::opforge::trt::${op.ident.snake}::Op;`, '    std::vector<nvinfer1::PluginField> fields;'];
  op.attributes.forEach((a, k) => L.push(...fieldCode(a, values(a)!, k)));
  const call = (major: number): string => {
    const c = carried(op, major);
    const creatable = c.input0.length > 0;
    const logged = [...c.refused, ...(creatable ? [] : ['the op cannot run on this TensorRT'])];
    return `    dtypeRefusal<Op>(${cppString(op.name)}, fields, ${creatable}, {${logged.map(cppString).join(', ')}}, {${c.input0.map((n) => `nvinfer1::DataType::${n}`).join(', ')}});`;
  };
  TRT_STEPS.forEach((major, k) => L.push(`${k === 0 ? '#if' : '#elif'} NV_TENSORRT_MAJOR >= ${major}`, call(major)));
  L.push('#else', call(8), '#endif', '  }');
  return L.join('\n');
}

const driver = `// Generated by test/gpu/trt-lifecycle.ts: TensorRT plugin lifecycle without libnvinfer.
${project.ops.map((op) => `#include "${trtPaths(op).include}"`).join('\n')}
#include "trt_lifecycle.h"

int main() {
${project.ops.map(refusalBlock).join('\n')}
${project.ops.flatMap((op) => op.tests.map((t) => block(op, t))).join('\n')}
  std::printf("TensorRT %d.%d headers: %d checks, %d failed, %d cases skipped\\n", NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR, checks, failures, skipped);
  return failures ? 1 : 0;
}
`;

mkdirSync(build, { recursive: true });
writeFileSync(path.join(build, 'driver.cu'), driver);
const kernels = project.ops.flatMap((op) => [op.kernels.cpu, ...(op.kernels.cuda ? [op.kernels.cuda] : [])]).map((k) => path.join(root, k));
const arch = process.env.CUDA_ARCH ?? 'sm_90';
const flags = ['-std=c++17', `-arch=${arch}`, '-O2', '-isystem', trtInclude, `-I${path.join(outDir, 'include')}`, `-I${path.join(outDir, 'trt', 'include')}`, `-I${path.join(outDir, 'trt')}`, `-I${path.join(repoRoot, 'scripts', 'gpu')}`, '-Xcompiler=-Wall,-Wextra'];
if (compileOnly) {
  sh('nvcc', [...flags, '-c', path.join(build, 'driver.cu'), '-o', path.join(build, 'driver.o')]);
  process.stdout.write('trt-lifecycle: driver compiled (not run)\n');
} else {
  sh('nvcc', [...flags, path.join(build, 'driver.cu'), ...kernels, '-o', path.join(build, 'driver')]);
  const r = spawnSync(path.join(build, 'driver'), [], { encoding: 'utf8', maxBuffer: 64 << 20 });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.status === 0 ? 0 : 1;
}
