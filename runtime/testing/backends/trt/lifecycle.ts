// The TensorRT column of `opforge test`: the generated plugins driven the way TensorRT drives them,
// without libnvinfer (trt_lifecycle.h beside this module stubs the expression builder): for each
// spec test case, create from fields (onnx-tensorrt's field types), reject a missing required field
// and a wrong field type, infer output dtypes and dims (checked against the CPU kernel's), formats,
// configure, workspace size, serialize, deserialize (and reject a corrupted buffer), clone, attach,
// shape change, and on a GPU enqueue on device buffers compared with the CPU kernel. IPluginV3 with
// TensorRT 10+ headers, IPluginV2DynamicExt always, the Paddle static IPluginV2Ext's host steps.
// Per op also the dtypes this TensorRT cannot carry (float64; int64 before 10, bfloat16 before 9):
// creation logs the refused bindings or, with none left, fails. Needs TensorRT's headers (found
// like the generated CMake finds them) and nvcc; absent, the column is skipped with the reason.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { cppAttrValue } from '../../../../generator/emit/lang/literals.js';
import type { AttrValue, AttributeIR, OpIR, TestCaseIR, TypeBinding } from '../../../../generator/model/ir.js';
import { PKG_ROOT } from '../../../../generator/pkg-root.js';
import {
  caseDims,
  caseInputDtype,
  caseOutputDtype,
  dtypeUnder,
  evalOutputShape,
  exprAttrValues,
  presentOutputs,
  variadicInput,
} from '../../../../generator/model/ir-helpers.js';
import { DTYPES, DTYPE_INFO, type DType } from '../../../../generator/model/type-table.js';
import { trtPaths } from '../../../../generator/emit/trt/names.js';
import { tritonPaths } from '../../../../generator/emit/triton/index.js';
import { tritonPython } from '../../../python-env.js';
import { cppFloat, cppString } from '../../../../generator/emit/lang/literals.js';
import { lowerIfIdle } from '../../../build-priority.js';
import { compileKey } from '../../compile-key.js';
import type { CaseResult } from '../../results.js';

/** trt_lifecycle.h, beside this module in the package's sources (dist/ holds only the JS). */
const cppDir = path.join(PKG_ROOT, 'runtime', 'testing', 'backends', 'trt');

/** A field as onnx-tensorrt's plugin fallback builds it from the ONNX attribute. */
function fieldCode(a: AttributeIR, v: AttrValue, k: number): string[] {
  const name = cppString(a.name);
  switch (a.type) {
    case 'bool':
      return [
        `    static const int32_t f${k}[] = {${v ? 1 : 0}};`,
        `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kINT32, 1);`,
      ];
    case 'int':
      return [
        `    static const int32_t f${k}[] = {${v as number}};`,
        `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kINT32, 1);`,
      ];
    case 'float':
      return [
        `    static const float f${k}[] = {${cppFloat(v as number)}};`,
        `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kFLOAT32, 1);`,
      ];
    case 'string':
      return [
        `    static const char f${k}[] = ${cppString(v as string)};`,
        `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kCHAR, static_cast<int32_t>(sizeof(f${k})));`,
      ];
    case 'ints': {
      const xs = v as number[];
      return [
        `    static const int32_t f${k}[] = {${xs.length ? xs.join(', ') : '0'}};`,
        `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kINT32, ${xs.length});`,
      ];
    }
    case 'floats': {
      const xs = v as number[];
      return [
        `    static const float f${k}[] = {${xs.length ? xs.map(cppFloat).join(', ') : '0'}};`,
        `    fields.emplace_back(${name}, f${k}, nvinfer1::PluginFieldType::kFLOAT32, ${xs.length});`,
      ];
    }
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
  if (present.some((p, k) => !p && present.slice(k + 1).some(Boolean)))
    return skip(what, 'an optional input left out before a given one cannot be expressed to TensorRT');
  // No float64 tensors in TensorRT, no int64 before 10, no bfloat16 before 9.
  const used = [
    ...new Set([
      ...t.inputs.map((x) => caseInputDtype(op, t, x)),
      ...presentOutputs(op, t.attributes).map((x) => caseOutputDtype(op, t, x)),
    ]),
  ];
  const none = used.filter((d) => trtSince(d) === null);
  if (none.length) return skip(what, `TensorRT has no ${none.join(', ')} tensors`);
  const since = Math.max(8, ...used.map((d) => trtSince(d)!));
  return fromTrtMajor(
    since,
    caseBlock(op, t, present),
    what,
    `TensorRT < ${since} has no ${used.filter((d) => trtSince(d)! > 8).join(', ')} tensors`,
  );
}

function caseBlock(op: OpIR, t: TestCaseIR, present: boolean[]): string {
  const ns = `::opforge::trt::${op.ident.snake}`;
  const ints = exprAttrValues(op, t.attributes);
  const dims = caseDims(op, t);
  // The outputs the case's attributes ask for (`present:`): they come first.
  const outputs = presentOutputs(op, t.attributes);
  const outShapes = outputs.map((o) => evalOutputShape(o.shape, dims, ints));
  const L: string[] = [
    `  {  // ${op.name} case ${t.index} (${t.binding.suffix || 'fixed dtypes'})`,
    `    using Op = ${ns}::Op;`,
    `    Case c("${op.name} case ${t.index}", ${t.rtol}, ${t.atol});`,
  ];
  L.push('    std::vector<nvinfer1::PluginField> fields;');
  op.attributes.forEach((a, k) => L.push(...fieldCode(a, t.attributes[a.name]!, k)));
  const required = op.attributes.findIndex((a) => a.required);
  L.push(`    c.requiredField = ${required};`);
  let tensor = 0; // a variadic input's members are inputs of their own, after the others
  op.inputs.forEach((inp, k) => {
    if (!present[k]) {
      L.push(`    // ${inp.name}: optional, left out (TensorRT connects ${present.filter(Boolean).length} inputs)`);
      return;
    }
    for (const ti of t.inputs.filter((x) => x.name === inp.name)) {
      const dt = DTYPE_INFO[caseInputDtype(op, t, ti)];
      const vals = ti.values ? `{${ti.values.join(', ')}}` : '{}';
      L.push(
        `    c.input(opforge::DType::${dt.cppEnum}, {${ti.shape.join(', ')}}, std::vector<double>${vals}, ${ti.range[0]}, ${ti.range[1]}, ${t.seed + tensor++});`,
      );
    }
  });
  outputs.forEach((o, k) =>
    L.push(
      `    c.output(opforge::DType::${DTYPE_INFO[caseOutputDtype(op, t, o)].cppEnum}, {${outShapes[k]!.join(', ')}});`,
    ),
  );
  L.push('    c.fields = fields;', '    c.reference<Op>();');
  // The fields must read as the case's values: reference() and every plugin share fromFields, so a
  // field read into the wrong attribute would otherwise agree with itself.
  if (op.attributes.length) {
    L.push('    {', '      const char* name = c.name;', '      Op::Attrs want;');
    for (const a of op.attributes) L.push(`      want.${a.name} = ${cppAttrValue(a, t.attributes[a.name]!)};`);
    L.push(
      '      Op::Attrs got;',
      '      const nvinfer1::PluginFieldCollection f = c.fc();',
      '      if (::opforge::trt::PluginCore<Op>::fromFields(&f, name, &got)) {',
    );
    for (const a of op.attributes)
      L.push(
        `        EXPECT(got.${a.name} == want.${a.name}, ${cppString(`field ${a.name} reads as the case's ${a.name}`)});`,
      );
    L.push('      }', '    }');
  }
  // Implicit batch drops dim 0 of every tensor: a rank-0 tensor has no dims to pass (TensorRT
  // never configures nbDims < 0), so Paddle's static plugin cannot carry such a case.
  const scalar = [
    ...op.inputs.map((i, k) => (present[k] ? ([i.name, dims[k]!.length] as const) : null)),
    ...dims.slice(op.inputs.length).map((d) => [variadicInput(op)!.name, d.length] as const),
    ...outputs.map((o, k) => [o.name, outShapes[k]!.length] as const),
  ].find((x) => x !== null && x[1] === 0);
  const v2static = scalar
    ? `    skipCase(${cppString(`${op.name} case ${t.index} V2Static`)}, ${cppString(`implicit batch cannot carry the rank-0 tensor ${scalar[0]}`)});`
    : '    c.runV2Static<Op>();';
  L.push('#if NV_TENSORRT_MAJOR >= 10', `    c.runV3<Op>();`, '#endif', `    c.runV2Dynamic<Op>();`, v2static, '  }');
  return L.join('\n');
}

/** Files beside the ops' kernels other than CPU sources (headers a CUDA kernel may include). */
function kernelHeaders(ops: readonly OpIR[], root: string): string[] {
  const dirs = [...new Set(ops.map((op) => path.dirname(path.resolve(root, op.kernels.cpu))))];
  return dirs.flatMap((d) =>
    readdirSync(d)
      .filter((f) => !/\.(cpp|cc|cxx|cu|py|yaml|yml)$/.test(f))
      .map((f) => path.join(d, f)),
  );
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
    // Optional inputs and outputs with `present:` may be left out: they do not refuse a binding.
    const p = ports.findIndex(
      (x, k) =>
        !(k < op.inputs.length && op.inputs[k]!.optional) &&
        !(k >= op.inputs.length && op.outputs[k - op.inputs.length]!.present) &&
        !(x.type.kind === 'each' ? x.type.dtypes.some(has) : has(dtypeUnder(x.type, b))),
    );
    if (p < 0) {
      const t0 = op.inputs[0]!.type;
      for (const d of t0.kind === 'each' ? t0.dtypes.filter(has) : [dtypeUnder(t0, b)])
        input0.add(DTYPE_INFO[d].trt!.name);
      return;
    }
    const d = dtypeUnder(ports[p]!.type, b);
    refused.push(
      op.typeVars.length === 0 ? `${d} (${portName(op, p)})` : `binding ${b.suffix} (${d} ${portName(op, p)})`,
    );
  });
  // Bindings that need an optional input's missing dtype still run without it; input 0 is required.
  return {
    refused,
    input0: DTYPES.map((d) => DTYPE_INFO[d].trt?.name).filter((n): n is string => n !== undefined && input0.has(n)),
  };
}

/** Per op: the dtypes this TensorRT cannot carry are refused (creation, supportsFormatCombination). */
function refusalBlock(op: OpIR): string {
  const t = op.tests[0];
  const values = (a: AttributeIR): AttrValue | undefined => t?.attributes[a.name] ?? a.default;
  if (op.attributes.some((a) => values(a) === undefined))
    return skip(`${op.name} dtypes`, 'a required attribute and no test case to take it from');
  const L = [
    `  {  // ${op.name}: dtypes TensorRT cannot carry`,
    `    using Op = ::opforge::trt::${op.ident.snake}::Op;`,
    '    std::vector<nvinfer1::PluginField> fields;',
  ];
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

/** The driver: one block per op (dtype refusal) and per test case. */
export function driverSource(ops: readonly OpIR[]): string {
  return `// Generated by opforge test (runtime/testing/backends/trt/lifecycle.ts): TensorRT plugin lifecycle without libnvinfer.
${ops.map((op) => `#include "${trtPaths(op).include}"`).join('\n')}
#include "trt_lifecycle.h"

int main() {
${ops.map(refusalBlock).join('\n')}
${ops.flatMap((op) => op.tests.map((t) => block(op, t))).join('\n')}
  std::printf("TensorRT %d.%d headers: %d checks, %d failed, %d cases skipped\\n", NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR, checks, failures, skipped);
  return failures ? 1 : 0;
}
`;
}

const hasHeaders = (d: string): boolean => existsSync(path.join(d, 'NvInferRuntime.h'));

/**
 * TensorRT's include directory: TENSORRT_INCLUDE_DIR, TENSORRT_ROOT/include (a tarball install),
 * then where NVIDIA's Debian/RPM packages and containers put it. undefined when none has it.
 */
export function trtIncludeDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.TENSORRT_INCLUDE_DIR,
    env.TENSORRT_ROOT && path.join(env.TENSORRT_ROOT, 'include'),
    `/usr/include/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`,
    '/usr/local/tensorrt/include',
    '/usr/include',
  ];
  return candidates.find((d): d is string => !!d && hasHeaders(d));
}

/** nvcc: CUDACXX, then PATH, then CUDA_HOME / the usual install. undefined when none runs. */
export async function findNvcc(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const c of [
    env.CUDACXX,
    'nvcc',
    env.CUDA_HOME && path.join(env.CUDA_HOME, 'bin', 'nvcc'),
    '/usr/local/cuda/bin/nvcc',
  ]) {
    if (!c) continue;
    const r = await execa(c, ['--version'], { reject: false });
    if (r.exitCode === 0) return c;
  }
  return undefined;
}

export interface TrtRun {
  results: CaseResult[];
  log: string;
  version?: string;
}

/**
 * Builds and runs the driver for `ops` against `include`. `enqueue`: run the plugins on the GPU
 * (else every host step, and enqueue is a skip line). Results per op and case, as the table shows them.
 */
export async function runTrtLifecycle(o: {
  ops: readonly OpIR[];
  root: string;
  outDir: string;
  buildDir: string;
  include: string;
  nvcc: string;
  enqueue: boolean;
  column: string;
  kernelObjects?: ReadonlyMap<string, readonly string[]>;
  /** The run's Python: it compiles the Triton kernels the kernel build gave no object for. */
  python?: string;
  /** Parallel nvcc invocations at most (default: the cores). */
  jobs?: number;
}): Promise<TrtRun> {
  mkdirSync(o.buildDir, { recursive: true });
  // Host code only (the CUDA runtime API, no kernels of its own): compiled as C++, without nvcc's
  // device pass over TensorRT's headers (2.7 s instead of 4.9 s for six ops).
  const driver = path.join(o.buildDir, 'driver.cpp');
  const source = driverSource(o.ops);
  // The kernels as the CMake kernel build compiled them (the objects every backend links), where
  // given; else (and for CUDA kernels a CPU kernel build has not) their sources.
  const objects = o.ops.flatMap((op) => o.kernelObjects?.get(op.ident.snake) ?? []);
  const cpuKernels = o.ops
    .filter((op) => !o.kernelObjects?.has(op.ident.snake))
    .map((op) => path.resolve(o.root, op.kernels.cpu));
  const cudaKernels = o.ops
    .filter((op) => op.kernels.cuda && !o.kernelObjects?.get(op.ident.snake)?.some((f) => /\.cu\.o$/.test(f)))
    .map((op) => path.resolve(o.root, op.kernels.cuda!));
  // A Triton kernel without the kernel build's object: compiled ahead of time here (tritonKernels).
  const { launchers, images, imagesDir } = await tritonKernels(o);
  const kernels = [...cpuKernels, ...cudaKernels, ...launchers];
  // The ops' own plugin units, as the CMake build links them: they hold the one instantiation of
  // each plugin and creator class (the op headers declare them extern). Compiled as one unit that
  // includes them all: each is only explicit instantiations of the shared bases, whose inline code
  // is then compiled once, not per unit (six ops: 7.6 s instead of 24 s).
  const units = o.ops.flatMap((op) => [trtPaths(op).v3, trtPaths(op).v2]).map((u) => path.join(o.outDir, u));
  const plugins = path.join(o.buildDir, 'plugins.cpp');
  const pluginsSource = `// The ops' TensorRT plugin units as one unit.\n${units
    .map((u) => `#include "${path.relative(path.join(o.outDir, 'trt'), u).split(path.sep).join('/')}"\n`)
    .join('')}`;
  // Without a GPU any architecture compiles the host steps; on one, nvcc asks the GPU.
  const arch = process.env.CUDA_ARCH ?? (o.enqueue ? 'native' : 'sm_80');
  const exe = path.join(o.buildDir, 'driver');
  const flags = (opt: string): string[] => [
    '-std=c++17',
    `-arch=${arch}`,
    opt,
    '-isystem',
    o.include,
    `-I${path.join(o.outDir, 'include')}`,
    `-I${path.join(o.outDir, 'trt', 'include')}`,
    `-I${path.join(o.outDir, 'trt')}`,
    `-I${cppDir}`,
    ...(launchers.length ? [`-I${imagesDir}`] : []),
    '-Xcompiler=-Wall,-Wextra',
  ];
  // Compiled once per content: the driver, the plugin units and the kernel sources it compiles
  // itself are recompiled only when what they read changed (the hash below); a CPU kernel edit
  // only relinks with the kernel build's new object.
  const objDir = path.join(o.buildDir, 'obj');
  // One nvcc invocation per group, the groups side by side (nvcc compiles one source at a time),
  // the longest first.
  // nvcc -c -odir names each object after its source's stem: a CPU kernel and its CUDA kernel
  // (my_op.cpp, my_op.cu) go to folders of their own. The driver is test scaffolding, generated
  // per case (most of its compile time at -O2): -O0; the plugins and kernels as users build them.
  // Each CUDA kernel a group of its own (nvcc's device passes make them the slowest sources), after
  // the plugin unit and the driver: the lanes then end close together.
  const groups = [
    { dir: objDir, sources: [plugins], opt: '-O2' },
    { dir: path.join(objDir, 'driver'), sources: [driver], opt: '-O0' },
    ...cudaKernels.map((k) => ({ dir: path.join(objDir, 'cuda'), sources: [k], opt: '-O2' })),
    { dir: path.join(objDir, 'triton'), sources: launchers, opt: '-O2' },
    { dir: path.join(objDir, 'cpu'), sources: cpuKernels, opt: '-O2' },
  ].filter((g) => g.sources.length);
  const sources = groups.flatMap((g) => g.sources);
  const key = compileKey(
    [o.nvcc, ...flags('-O2'), source, pluginsSource],
    [path.join(o.outDir, 'include'), path.join(o.outDir, 'trt'), cppDir],
    [...kernels, ...images, ...kernelHeaders(o.ops, o.root)],
  );
  const keyFile = path.join(objDir, 'key');
  const objFor = (s: string): string =>
    path.join(groups.find((g) => g.sources.includes(s))!.dir, `${path.basename(s).replace(/\.[^.]+$/, '')}.o`);
  const inputs = [...sources.map(objFor), ...objects];
  let relink = !existsSync(exe);
  if (!existsSync(keyFile) || readFileSync(keyFile, 'utf8') !== key || !sources.every((s) => existsSync(objFor(s)))) {
    relink = true;
    rmSync(objDir, { recursive: true, force: true });
    writeFileSync(driver, source);
    writeFileSync(plugins, pluginsSource);
    const compileGroup = async (g: (typeof groups)[number]): Promise<void> => {
      mkdirSync(g.dir, { recursive: true });
      const c = await lowerIfIdle(
        execa(o.nvcc, [...flags(g.opt), '-c', '-odir', g.dir, ...g.sources], { reject: false, all: true }),
      );
      if (c.exitCode !== 0)
        throw new Error(
          `compiling the TensorRT lifecycle driver failed (nvcc exit ${c.exitCode}):\n${
            String(c.all)
              .split('\n')
              .filter((l) => /error/.test(l))
              .slice(0, 20)
              .join('\n') || String(c.all).slice(-3000)
          }`,
        );
    };
    await inLanes(groups, o.jobs ?? availableParallelism(), compileGroup);
    writeFileSync(keyFile, key);
  }
  // Relinked when an object is newer than the driver (a kernel edit), or the set of ops changed.
  const listFile = path.join(objDir, 'linked');
  const list = inputs.join('\n');
  relink ||=
    !existsSync(listFile) ||
    readFileSync(listFile, 'utf8') !== list ||
    inputs.some((f) => statSync(f).mtimeMs > statSync(exe).mtimeMs);
  if (relink) {
    const link = await lowerIfIdle(
      execa(o.nvcc, [`-arch=${arch}`, ...inputs, '-o', exe], { reject: false, all: true }),
    );
    if (link.exitCode !== 0)
      throw new Error(
        `linking the TensorRT lifecycle driver failed (nvcc exit ${link.exitCode}):\n${String(link.all).slice(-3000)}`,
      );
    writeFileSync(listFile, list);
  }
  const r = await execa(exe, [], { reject: false, all: true, env: o.enqueue ? {} : { OPFORGE_TRT_SKIP_ENQUEUE: '1' } });
  const log = String(r.all ?? '');
  const results = parseLifecycle(o.ops, log, o.column);
  if (r.exitCode !== 0 && !results.some((x) => x.status === 'fail')) {
    // Crashed (or failed) without a FAIL line: every op fails, with the end of its output.
    results.push(
      ...o.ops.map((op) => ({
        op: op.name,
        case: null,
        backend: o.column,
        status: 'fail' as const,
        message: `the driver exited ${r.exitCode ?? r.signal}: ${log.slice(-1500)}`,
      })),
    );
  }
  const version = /TensorRT (\d+\.\d+) headers/.exec(log)?.[1];
  return { results, log, ...(version ? { version } : {}) };
}

/** The driver's lines as results: per case ok / fail (its FAIL lines) / skip (a whole-case skip line). */
export function parseLifecycle(ops: readonly OpIR[], log: string, column: string): CaseResult[] {
  const lines = log.split('\n');
  const results: CaseResult[] = [];
  for (const op of ops) {
    // Per-op lines: "FAIL <Op>: ..." and "FAIL <Op> dtypes on TensorRT ...".
    const opFails = lines.filter((l) => l.startsWith(`FAIL ${op.name}: `) || l.startsWith(`FAIL ${op.name} dtypes `));
    for (const l of opFails)
      results.push({ op: op.name, case: null, backend: column, status: 'fail', message: l.slice(5) });
    for (const t of op.tests) {
      const name = `${op.name} case ${t.index}`;
      const mine = lines.filter((l) => l.slice(5).startsWith(`${name}:`) || l.slice(5).startsWith(`${name} `));
      const fails = mine.filter((l) => l.startsWith('FAIL '));
      const whole = mine.find((l) => l.startsWith(`skip ${name}:`));
      const errs = mine
        .map((l) => /max \|plugin - cpu\| = (\S+)/.exec(l)?.[1])
        .filter((x): x is string => x !== undefined)
        .map(Number);
      const maxError = errs.length ? Math.max(...errs) : 0;
      if (fails.length)
        results.push({
          op: op.name,
          case: t.index,
          backend: column,
          status: 'fail',
          maxError,
          message: fails
            .map((l) => l.slice(5 + name.length).replace(/^:?\s*/, ''))
            .slice(0, 6)
            .join('; '),
        });
      else if (whole)
        results.push({
          op: op.name,
          case: t.index,
          backend: column,
          status: 'skip',
          message: whole.slice(5 + name.length + 2),
        });
      else results.push({ op: op.name, case: t.index, backend: column, status: 'ok', maxError });
    }
  }
  return results;
}

/** Runs `step` over `items`, at most `lanes` at a time; the first failure is thrown once all settle. */
async function inLanes<T>(items: readonly T[], lanes: number, step: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await step(items[next++]!);
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * The images of each op's Triton kernel for the driver's architecture ($CUDA_ARCH's number, else
 * sm_80, which every host step takes), written by the project's opforge_triton_aot.py as the kernel
 * build would; returns the files.
 */
async function tritonKernels(o: {
  ops: readonly OpIR[];
  outDir: string;
  root: string;
  buildDir: string;
  kernelObjects?: ReadonlyMap<string, readonly string[]>;
  python?: string;
}): Promise<{ launchers: string[]; images: string[]; imagesDir: string }> {
  const ops = o.ops.filter(
    (op) => op.kernels.triton && !o.kernelObjects?.get(op.ident.snake)?.some((f) => /_triton\.cpp\.o$/.test(f)),
  );
  const imagesDir = path.join(o.buildDir, 'triton-images');
  const launchers = ops.map((op) => path.join(o.outDir, tritonPaths(op).launcher));
  return { launchers, images: await compileTritonImages(ops, o, imagesDir), imagesDir };
}

async function compileTritonImages(
  ops: readonly OpIR[],
  { outDir, root, python }: { outDir: string; root: string; python?: string },
  dir: string,
): Promise<string[]> {
  if (!ops.length) return [];
  mkdirSync(dir, { recursive: true });
  const arch = /\d+/.exec(process.env.CUDA_ARCH ?? '')?.[0] ?? '80';
  return Promise.all(
    ops.map(async (op) => {
      const file = path.join(dir, `${op.ident.snake}_triton_images.inc`);
      const { job } = tritonPaths(op);
      const aot = [
        path.join(outDir, 'triton', 'opforge_triton_aot.py'),
        path.join(outDir, job),
        path.resolve(root, op.kernels.triton!.source),
        arch,
        file,
      ];
      const r = await execa(tritonPython(python), aot, { reject: false, all: true });
      if (r.exitCode !== 0)
        throw new Error(`compiling ${op.name}'s Triton kernel failed:\n${String(r.all).slice(-3000)}`);
      return file;
    }),
  );
}
