// `opforge test`: every `tests:` case of every spec through every backend this machine has, each
// compared with the spec's reference (or, without one, with the CPU kernel through the Node
// addon), within the case's rtol/atol. Also what a user cannot see: the output shapes each
// backend's shape inference gives against the dims the kernels really wrote, and the op core's
// serialization round trip (the bytes TensorRT plugins and Paddle store) of every case's attributes.
//
// Backends: node (the addon, sync with the case's attributes and async with all of them), torch
// (the compiled extension through opforge_ops), ort (a one-node model in ONNX Runtime with the
// generated custom-op library), ort-legacy / ort-dynamo (the models PyTorch's exporters write,
// in the same ONNX Runtime), serialize (the op core's serialize/deserialize). `--device cuda`
// runs node and torch on CUDA instead of the CPU.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpIR } from '../../generator/ir.js';
import { build, load } from '../index.js';
import { makeInputs, readTensor, writeCase, type CaseDoc, type HostTensor, type TensorFile } from './cases.js';
import { compareOutputs, type GotTensor } from './compare.js';
import { buildFailureResults } from './build-failure.js';
import { runPaddle, type PaddleCell } from './paddle.js';
import { summarize, type CaseResult, type TestReport } from './results.js';
import { checkSerialization } from './serialize.js';
import { findPython } from '../python-env.js';
import { gradOpsWithoutCuda, noCudaKernels } from '../../generator/cuda-training.js';
import { buildTorchExtension, probeTorch, runHarness, type PyCase, type PyRun } from './torch-side.js';
import { findNvcc, runTrtLifecycle, trtIncludeDir } from './trt.js';

export const BACKENDS = ['node', 'torch', 'grad', 'ort', 'export', 'paddle', 'serialize', 'trt'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface TestOptions {
  /** Project root (default: the current directory). */
  root?: string;
  /** Specs directory (default: <root>/ops). */
  opsDir?: string;
  /** Generated code (default: <root>/out); regenerated first when stale, as `opforge gen` would. */
  outDir?: string;
  /** Build directory root (default: <root>/build): node/, torch/, ort/ and test/ under it. */
  buildDir?: string;
  /** Only these ops (names as in the specs). */
  only?: readonly string[];
  /** Backends to run (default: all). */
  backends?: readonly Backend[];
  /** 'cpu' (default) or 'cuda': where node and torch run the kernels. */
  device?: 'cpu' | 'cuda';
  /** Python with torch (default: $OPFORGE_PYTHON, else the active venv or conda env, else python3 or python on PATH: runtime/python-env.ts). */
  python?: string;
  /**
   * Op units per unity batch of the PyTorch extension (default: $OPFORGE_UNITY_BATCH, else the
   * CMakeLists' default of 1). Batches of 4 halve a cold build of many ops (docs/benchmarks.md).
   */
  unityBatch?: number;
  /** Progress lines (builds, phases). */
  onProgress?: (line: string) => void;
}

type Outputs = Record<string, GotTensor>;
interface DeviceApi { cudaAvailable(): boolean; builtWithCuda(): boolean; toDevice(t: unknown): unknown; toHost(t: unknown): GotTensor }
/** out/node/index.js, as far as the test uses it (its typings are per project). */
interface NodeModule {
  bind(addon: unknown): Record<string, (...a: unknown[]) => Outputs>;
  bindAsync(addon: unknown): Record<string, (...a: unknown[]) => Promise<Outputs>>;
  device(addon: unknown): DeviceApi;
}
interface NodeBinding { sync: ReturnType<NodeModule['bind']>; async: ReturnType<NodeModule['bindAsync']>; dev: DeviceApi }
interface Case { op: OpIR; doc: CaseDoc; inputs: (HostTensor | undefined)[]; dir: string; baseline?: Record<string, HostTensor>; baselineFrom?: string }

const isFiles = (x: unknown): x is Record<string, TensorFile> => typeof x === 'object' && x !== null && !('error' in x) && !('skip' in x);

function readOutputs(dir: string, files: Record<string, TensorFile>): Record<string, HostTensor> {
  return Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readTensor(dir, f)]));
}

function firstLines(e: unknown, n = 4): string {
  return ((e as Error).message ?? String(e)).split('\n').filter(Boolean).slice(0, n).join(' | ');
}

/** Inferred dims that contradict the dims the kernel wrote (unknown or symbolic dims contradict nothing). */
function shapeMismatch(what: string, inferred: readonly ((number | string | null)[] | null)[] | undefined, outs: readonly string[], got: Outputs): string | undefined {
  if (!inferred) return undefined;
  for (const [k, name] of outs.entries()) {
    const i = inferred[k];
    const g = got[name];
    if (!i || !g) continue;
    if (i.length !== g.dims.length || i.some((d, j) => typeof d === 'number' && d !== g.dims[j])) {
      return `${what} gives output ${name} dims [${i.map((d) => d ?? '?').join(', ')}], the kernel wrote [${g.dims.join(', ')}]`;
    }
  }
  return undefined;
}

/** $OPFORGE_UNITY_BATCH as a batch size; a value that is not a positive integer is an error, not ignored. */
function unityBatchFromEnv(): number | undefined {
  const v = process.env.OPFORGE_UNITY_BATCH;
  if (v === undefined || v === '') return undefined;
  if (!/^[1-9]\d*$/.test(v)) throw new Error(`OPFORGE_UNITY_BATCH must be a positive integer, not ${JSON.stringify(v)}`);
  return Number(v);
}

export async function runTests(opts: TestOptions = {}): Promise<TestReport> {
  const root = path.resolve(opts.root ?? process.cwd());
  const opsDir = path.resolve(root, opts.opsDir ?? 'ops');
  const outDir = path.resolve(root, opts.outDir ?? 'out');
  const buildRoot = path.resolve(root, opts.buildDir ?? 'build');
  const want = new Set<Backend>(opts.backends ?? BACKENDS);
  const device = opts.device ?? 'cpu';
  const found = opts.python ? { python: opts.python, from: 'option' } : findPython();
  const python = found.python;
  const say = opts.onProgress ?? (() => {});
  const unityBatch = opts.unityBatch ?? unityBatchFromEnv();

  // gen first, as `opforge gen` would (a no-op when out/ is current).
  const { generateIncremental } = await import('../../generator/incremental.js');
  const { loadProject } = await import('../../generator/project.js');
  generateIncremental({ opsDir, outDir, root });
  const project = loadProject({ opsDir, root });
  const unknown = (opts.only ?? []).filter((n) => !project.ops.some((o) => o.name === n));
  if (unknown.length) throw new Error(`--only: no op named ${unknown.join(', ')} (ops: ${project.ops.map((o) => o.name).join(', ')})`);
  const ops = project.ops.filter((o) => !opts.only?.length || opts.only.includes(o.name));

  const casesDir = path.join(buildRoot, 'test', 'cases');
  rmSync(casesDir, { recursive: true, force: true });
  mkdirSync(casesDir, { recursive: true });
  const cases: Case[] = ops.flatMap((op) => op.tests.map((t) => {
    const inputs = makeInputs(op, t);
    return { op, doc: writeCase(casesDir, op, t, inputs), inputs, dir: path.join(casesDir, op.ident.snake) };
  }));

  const results: CaseResult[] = [];
  const skipped: Record<string, string> = {};
  const env: Record<string, unknown> = { device };
  const columns: string[] = [];
  const col = (b: string) => { if (!columns.includes(b)) columns.push(b); return b; };
  const nodeCol = device === 'cuda' ? 'node:cuda' : 'node';
  const torchCol = device === 'cuda' ? 'torch:cuda' : 'torch';
  const gradCol = device === 'cuda' ? 'grad:cuda' : 'grad';

  // ---- PyTorch: the reference, the extension, the exported models, the backward ----
  // The grad column wherever an input can take a gradient: a backward is checked against the
  // reference, an op without one must raise its named error (never a silent zero gradient).
  const wantGrad = want.has('grad') && ops.some((o) => o.inputs.some((i) => i.differentiable));
  if (want.has('grad') && !wantGrad) skipped[gradCol] = 'no op has an input that takes a gradient';
  let py: PyRun | undefined;
  const torch = await probeTorch(python);
  env.python = { path: python, from: found.from, ...(torch.version ? { torch: torch.version } : {}), ...torch.packages };
  say(`python: ${python} (from ${found.from}): ${torch.version ? `torch ${torch.version}` : 'no torch'}${Object.entries(torch.packages).map(([k, v]) => `, ${k} ${v}`).join('')}`);
  if (!torch.version) {
    skipped.reference = torch.why!;
    if (want.has('torch')) skipped[torchCol] = torch.why!;
    if (wantGrad) skipped[gradCol] = torch.why!;
    if (want.has('export')) skipped['ort-legacy'] = skipped['ort-dynamo'] = torch.why!;
  } else {
    env.torch = torch.version;
    let library: string | undefined;
    if ((want.has('torch') || wantGrad) && device === 'cuda' && !torch.cuda) {
      if (want.has('torch')) skipped[torchCol] = `torch ${torch.version} sees no CUDA device`;
      if (wantGrad) skipped[gradCol] = `torch ${torch.version} sees no CUDA device`;
    } else if (want.has('torch') || wantGrad) {
      if (want.has('torch')) col(torchCol);
      if (wantGrad) col(gradCol);
      say(`building the PyTorch extension (torch ${torch.version})`);
      try {
        library = await buildTorchExtension({ root, outDir, buildDir: path.join(buildRoot, 'torch'), prefix: torch.prefix!, python, cuda: device === 'cuda', ...(torch.cudaArchs ? { cudaArchs: torch.cudaArchs } : {}), ...(unityBatch ? { unityBatch } : {}), onLine: progressLine(say) });
      } catch (e) {
        results.push(...buildFailureResults(e, ops, [torchCol, gradCol].filter((b) => (b === torchCol ? want.has('torch') : wantGrad)), root, project.ops));
      }
    }
    say('running the PyTorch side (reference, extension, export, gradients)');
    try {
      py = await runHarness({ python, casesDir, outDir, ...(library ? { library } : {}), devices: [device], exportModels: want.has('export'), grad: wantGrad });
      for (const [b, why] of Object.entries(py.env.skipped)) if (want.has(b.startsWith('torch') ? 'torch' : b.startsWith('grad') ? 'grad' : 'export')) skipped[b] = why;
      Object.assign(env, { onnx: py.env.onnx, extension: py.env.extension, entry: py.env.entry, entryBypassed: py.env.entry_bypassed, cudaInTorch: py.env.cuda });
    } catch (e) {
      // E.g. out/python does not import: every op's reference is unusable, which is a failure.
      for (const op of ops) results.push({ op: op.name, case: null, backend: col('reference'), status: 'fail', message: (e as Error).message.slice(0, 3000) });
    }
  }
  const pyCase = (c: Case): PyCase | undefined => py?.cases.find((x) => x.op === c.op.name && x.case === c.doc.index);

  // Baseline: the reference's outputs (ran on the CPU, all attributes) where there is one.
  for (const c of cases) {
    const p = pyCase(c);
    if (p && isFiles(p.reference)) { c.baseline = readOutputs(c.dir, p.reference); c.baselineFrom = 'reference'; }
    else if (p?.reference && 'error' in p.reference) results.push({ op: c.op.name, case: c.doc.index, backend: col('reference'), status: 'fail', message: `the reference raised ${p.reference.error}` });
  }
  const check = (c: Case, backend: string, got: Outputs, extra?: string): void => {
    if (!c.baseline) {
      results.push({ op: c.op.name, case: c.doc.index, backend, status: 'skip', message: 'no reference and no CPU kernel result to compare with' });
      return;
    }
    const r = compareOutputs(got, c.baseline, c.doc);
    const message = r.mismatch ?? extra;
    const compared = c.baselineFrom === 'reference' ? 'reference' : 'backends';
    results.push({ op: c.op.name, case: c.doc.index, backend, status: message ? 'fail' : 'ok', maxError: r.maxError, compared, ...(message ? { message } : {}) });
  };

  // ---- Node addon ----
  if (want.has('node')) {
    col(nodeCol);
    say(`building the Node addon${device === 'cuda' ? ' with CUDA' : ''}`);
    let bound: NodeBinding | undefined;
    try {
      const buildDir = path.join(buildRoot, 'node');
      await build({ root, outDir, buildDir, cuda: device === 'cuda', onLine: progressLine(say) });
      const mod = (await import(pathToFileURL(path.join(outDir, 'node', 'index.js')).href)) as NodeModule;
      const addon = load(buildDir);
      bound = { sync: mod.bind(addon), async: mod.bindAsync(addon), dev: mod.device(addon) };
    } catch (e) {
      results.push(...buildFailureResults(e, ops, [nodeCol], root, project.ops));
    }
    if (bound && device === 'cuda' && !bound.dev.builtWithCuda()) {
      // We just built it with CUDA: an addon without it is a build problem, not a missing GPU.
      for (const op of ops) results.push({ op: op.name, case: null, backend: nodeCol, status: 'fail', message: 'the addon built with --cuda reports no CUDA kernels (stale build directory?)' });
      bound = undefined;
    }
    if (bound && device === 'cuda' && !bound.dev.cudaAvailable()) { skipped[nodeCol] = 'no CUDA device (the addon has its CUDA kernels)'; bound = undefined; }
    for (const c of bound ? cases : []) {
      const fn = bound!.sync[c.op.ident.camel]!;
      const fail = (message: string) => results.push({ op: c.op.name, case: c.doc.index, backend: nodeCol, status: 'fail', message });
      if (device === 'cuda' && !c.op.kernels.cuda) { results.push({ op: c.op.name, case: c.doc.index, backend: nodeCol, status: 'skip', message: 'the spec names no kernels.cuda' }); continue; }
      try {
        let got: Outputs;
        if (device === 'cuda') {
          const dev = bound!.dev;
          const onDevice = c.inputs.map((t) => (t ? dev.toDevice(t) : undefined));
          const res = fn(...onDevice, c.doc.given) as Record<string, unknown>;
          got = Object.fromEntries(Object.entries(res).map(([k, t]) => [k, dev.toHost(t)]));
        } else {
          got = fn(...c.inputs, c.doc.given);
        }
        if (!c.baseline) {
          // No reference: the CPU kernel is what the other backends are held to.
          if (device === 'cpu') { c.baseline = got as Record<string, HostTensor>; c.baselineFrom = 'node'; }
          results.push({ op: c.op.name, case: c.doc.index, backend: nodeCol, status: c.baseline ? 'base' : 'skip', message: c.baseline ? 'baseline: the other backends are compared with this output (the spec has no reference)' : 'no reference to compare with' });
          continue;
        }
        const later = device === 'cpu' ? await bound!.async[c.op.ident.camel]!(...c.inputs, c.doc.attributes) : undefined;
        const r = compareOutputs(later ?? got, c.baseline, c.doc);
        check(c, nodeCol, got, r.mismatch ? `async, all attributes given: ${r.mismatch}` : undefined);
      } catch (e) {
        fail(firstLines(e));
      }
    }
  }

  // ---- torch extension (outputs the harness wrote) and the Python shape functions ----
  if (py && want.has('torch') && columns.includes(torchCol) && !results.some((r) => r.backend === torchCol && r.case === null)) {
    for (const c of cases) {
      const p = pyCase(c);
      const o = p?.[`torch-${device}`] as PyCase['reference'];
      if (!o) continue;
      if ('skip' in o) results.push({ op: c.op.name, case: c.doc.index, backend: torchCol, status: 'skip', message: (o as { skip: string }).skip });
      else if ('error' in o) results.push({ op: c.op.name, case: c.doc.index, backend: torchCol, status: 'fail', message: (o as { error: string }).error });
      else {
        const got = readOutputs(c.dir, o as Record<string, TensorFile>);
        check(c, torchCol, got, shapeMismatch('opforge_ops output_shapes (fake tensors, export)', p?.['python-shapes'], c.op.outputs.map((x) => x.name), got));
      }
    }
  }

  // ---- the spec's backward: gradcheck and autograd of the reference (the harness ran them) ----
  if (py && wantGrad && columns.includes(gradCol) && !results.some((r) => r.backend === gradCol && r.case === null)) {
    for (const c of cases) {
      const o = pyCase(c)?.[device === 'cuda' ? 'grad-cuda' : 'grad-cpu'] as { skip: string } | { error: string } | { maxError: number; gradcheck?: boolean | string; noBackward?: true } | undefined;
      if (!o) continue;
      const r = { op: c.op.name, case: c.doc.index, backend: gradCol };
      // An op whose gradient op has no CUDA kernel cannot train on CUDA (check/gen warn): its clear
      // error, naming that gradient op, is the expected outcome there, not a failure.
      const noCuda = device === 'cuda' ? gradOpsWithoutCuda(c.op, project.ops) : [];
      if ('skip' in o) results.push({ ...r, status: 'skip', message: o.skip });
      else if ('error' in o && noCuda.some((g) => o.error.includes(`${g} has no CUDA kernel`))) results.push({ ...r, status: 'cannot', message: `cannot train on CUDA: ${noCudaKernels(noCuda)}` });
      else if ('error' in o) results.push({ ...r, status: 'fail', message: o.error });
      else if (o.noBackward) results.push({ ...r, status: 'ok', raised: true, message: 'no backward: asking for a gradient raises the named error' });
      else if (o.gradcheck === false) results.push({ ...r, status: 'fail', maxError: o.maxError, message: 'torch.autograd.gradcheck (float64) failed' });
      // Without a reference, gradcheck holds the backward to the forward's own numerical gradient.
      else results.push({ ...r, status: 'ok', maxError: o.maxError, compared: c.op.kernels.reference ? 'reference' : 'backends', ...(typeof o.gradcheck === 'string' ? { message: `gradcheck ${o.gradcheck}` } : {}) });
    }
  }

  // ---- Paddle: the generated custom ops through Paddle's JIT loader, dygraph, grad, inference ----
  if (want.has('paddle')) {
    const cols = ['paddle', ...(ops.some((o) => o.backward) ? ['paddle-grad'] : []), 'paddle-infer'];
    const why = device === 'cuda' ? 'the Paddle columns run on the CPU (they use the CPU wheel\'s kernels); --device cpu runs them'
      : !torch.packages.paddlepaddle ? `paddle is not importable by ${python} (install: pip install paddlepaddle==3.3.1)`
        : !torch.version ? `${torch.why} (the Paddle side reads the cases and the reference with torch)` : undefined;
    if (why) for (const b of cols) skipped[b] = why;
    else {
      cols.forEach(col);
      say(`building the Paddle custom ops with Paddle's JIT loader (paddle ${torch.packages.paddlepaddle})`);
      try {
        const pd = await runPaddle({ python, root, outDir, buildDir: path.join(buildRoot, 'paddle'), casesDir, ops: project.ops, grad: cols.includes('paddle-grad'), infer: true });
        env.paddle = pd.env.paddle;
        for (const c of cases) {
          const p = pd.cases.find((x) => x.op === c.op.name && x.case === c.doc.index);
          const cell = (b: string, o: PaddleCell | undefined, then: (files: Record<string, TensorFile>) => void): void => {
            if (!o) return;
            const r = { op: c.op.name, case: c.doc.index, backend: b };
            if ('skip' in o) results.push({ ...r, status: 'skip', message: String(o.skip) });
            else if ('error' in o) results.push({ ...r, status: 'fail', message: String(o.error) });
            // paddle-grad says whether its static-graph check ran (and why not, by name).
            else if ('maxError' in o) results.push({ ...r, status: 'ok', maxError: Number(o.maxError), compared: c.op.kernels.reference ? 'reference' : 'backends', ...(typeof o.static === 'string' && o.static.startsWith('skipped') ? { message: `static graph ${o.static}` } : {}) });
            else then(o as Record<string, TensorFile>);
          };
          let dygraph: Record<string, HostTensor> | undefined;
          cell('paddle', p?.paddle, (files) => { dygraph = readOutputs(c.dir, files); check(c, 'paddle', dygraph); });
          if (cols.includes('paddle-grad')) cell('paddle-grad', p?.['paddle-grad'], () => {});
          cell('paddle-infer', p?.['paddle-infer'], (files) => {
            // The predictor against dygraph, bit for bit: the same kernel through a saved static graph.
            const r = dygraph ? compareOutputs(readOutputs(c.dir, files), dygraph, { rtol: 0, atol: 0 }) : { maxError: NaN, mismatch: 'no dygraph output to compare with' };
            results.push({ op: c.op.name, case: c.doc.index, backend: 'paddle-infer', status: r.mismatch ? 'fail' : 'ok', maxError: r.maxError, compared: 'backends', ...(r.mismatch ? { message: `predictor vs dygraph: ${r.mismatch}` } : {}) });
          });
        }
      } catch (e) {
        results.push(...buildFailureResults(e, ops, cols, root, project.ops));
      }
    }
  }

  // ---- ONNX Runtime: one-node models, then the exported ones ----
  if (want.has('ort') || want.has('export')) {
    let ort: { library: string; session: typeof import('../ort.js').session; opModel: typeof import('../op-model.js').opModel } | undefined;
    const ortCols = [...(want.has('ort') ? ['ort'] : []), ...(want.has('export') ? ['ort-legacy', 'ort-dynamo'] : [])];
    const m = await import('../ort.js');
    try {
      // What is not installed is skipped with the reason; what fails to build is a failure.
      m.onnxruntimeNodeLibrary();
      m.ortIncludeDir();
    } catch (e) {
      for (const b of ortCols) skipped[b] ??= firstLines(e, 6);
    }
    if (!ortCols.every((b) => skipped[b])) {
      try {
        say('building the ONNX Runtime custom-op library');
        const library = await m.buildOrtLibrary({ root, outDir, buildDir: path.join(buildRoot, 'ort'), onLine: progressLine(say) });
        ort = { library, session: m.session, opModel: (await import('../op-model.js')).opModel };
        env.onnxruntime = await m.ortVersion();
      } catch (e) {
        results.push(...buildFailureResults(e, ops, ortCols.filter((b) => !skipped[b]).map(col), root, project.ops));
      }
    }
    const runModel = async (c: Case, backend: string, file: string, inferredFrom?: PyCase['python-shapes']): Promise<void> => {
      try {
        const s = await ort!.session(file, { root, outDir, customOpLibraries: [ort!.library] });
        try {
          const names = new Set(s.inputs.map((i) => i.name));
          const feeds = Object.fromEntries(c.op.inputs.flatMap((inp, i) => (c.inputs[i] && names.has(inp.name) ? [[inp.name, c.inputs[i]!]] : [])));
          const got = s.run(feeds as Parameters<typeof s.run>[0]) as Outputs;
          const outs = c.op.outputs.map((o) => o.name);
          // ORT's C API gives no dims both for a rank-0 output and for one it could not infer (ops
          // with optional inputs get no inference, docs/ort.md; rank-0 inputs leave some unknown), so
          // an empty list is no evidence either way.
          const inferred = inferredFrom ?? s.outputs.map((o) => (o.dims.length === 0 ? null : [...o.dims]));
          check(c, backend, got, shapeMismatch(backend === 'ort' ? "ONNX Runtime's shape inference" : 'ONNX shape inference of the exported model', inferred, outs, got));
        } finally {
          s.close();
        }
      } catch (e) {
        results.push({ op: c.op.name, case: c.doc.index, backend, status: 'fail', message: firstLines(e) });
      }
    };
    if (ort && want.has('ort')) {
      col('ort');
      const models = path.join(buildRoot, 'test', 'models');
      mkdirSync(models, { recursive: true });
      for (const c of cases) {
        const t = c.op.tests[c.doc.index]!;
        const inputShapes = Object.fromEntries(c.op.inputs.flatMap((inp, i) => (c.inputs[i] ? [[inp.name, c.inputs[i]!.dims]] : [])));
        const omitInputs = c.op.inputs.filter((_, i) => !c.inputs[i]).map((i) => i.name);
        const file = path.join(models, `${c.op.ident.snake}_${c.doc.index}.onnx`);
        writeFileSync(file, ort.opModel(c.op, { binding: t.binding, attributes: c.doc.given, inputShapes, omitInputs }));
        await runModel(c, 'ort', file);
      }
    }
    if (ort && want.has('export') && py) {
      for (const b of ['ort-legacy', 'ort-dynamo'] as const) {
        if (skipped[b]) continue;
        col(b);
        for (const c of cases) {
          const o = pyCase(c)?.[b] as { model: string; shapes: PyCase['python-shapes'] } | { error: string } | { skip: string } | undefined;
          if (!o) continue;
          if ('skip' in o) results.push({ op: c.op.name, case: c.doc.index, backend: b, status: 'skip', message: o.skip });
          else if ('error' in o) results.push({ op: c.op.name, case: c.doc.index, backend: b, status: 'fail', message: `export: ${o.error}` });
          else await runModel(c, b, path.join(c.dir, o.model), o.shapes);
        }
      }
    }
  }

  // ---- the op core's serialization round trip ----
  if (want.has('serialize')) {
    col('serialize');
    say('compiling the serialization round trip');
    try {
      results.push(...await checkSerialization({ ops, outDir, buildDir: path.join(buildRoot, 'test', 'serialize') }));
    } catch (e) {
      for (const op of ops) results.push({ op: op.name, case: null, backend: 'serialize', status: 'fail', message: (e as Error).message.slice(0, 3000) });
    }
  }

  // ---- TensorRT: the plugins and creators through their lifecycle (enqueue on --device cuda) ----
  if (want.has('trt')) {
    const trtCol = col(device === 'cuda' ? 'trt:cuda' : 'trt');
    const include = trtIncludeDir();
    const nvcc = include ? await findNvcc() : undefined;
    if (!include) skipped[trtCol] = 'no TensorRT headers (set TENSORRT_ROOT or TENSORRT_INCLUDE_DIR)';
    else if (!nvcc) skipped[trtCol] = 'no nvcc (set CUDACXX or put the CUDA toolkit on PATH)';
    else {
      say(`compiling the TensorRT plugin lifecycle against ${include}`);
      try {
        const r = await runTrtLifecycle({ ops, root, outDir, buildDir: path.join(buildRoot, 'test', 'trt'), include, nvcc, enqueue: device === 'cuda', column: trtCol });
        results.push(...r.results);
        env.tensorrt = { include, headers: r.version, log: path.join(buildRoot, 'test', 'trt', 'driver.log') };
        writeFileSync(path.join(buildRoot, 'test', 'trt', 'driver.log'), r.log.endsWith('\n') ? r.log : `${r.log}\n`);
      } catch (e) {
        for (const op of ops) results.push({ op: op.name, case: null, backend: trtCol, status: 'fail', message: (e as Error).message.slice(0, 3000) });
      }
    }
  }

  const backends = columns.filter((b) => !skipped[b] || results.some((r) => r.backend === b));
  // Asked for CUDA and nothing ran there: not a pass (a user would read "all agree" as checked).
  const onCuda = [nodeCol, torchCol, 'trt:cuda', 'grad:cuda'];
  const noCuda = device === 'cuda' && !results.some((r) => onCuda.includes(r.backend) && r.status === 'ok');
  if (noCuda) env.error = `--device cuda: no case ran on CUDA (${onCuda.map((b) => skipped[b]).filter(Boolean).join('; ') || 'see the failures'})`;
  return { ok: !noCuda && !results.some((r) => r.status === 'fail'), backends, results, skipped, env, summary: summarize(results) };
}

/** cmake/ninja/make progress lines only ("[ 12%] Building ...", "[3/40] ..."). */
function progressLine(say: (l: string) => void): (l: string) => void {
  return (l) => { if (/^\[\s*\d+(%|\/\d+)\]/.test(l)) say(`  ${l.trim().slice(0, 110)}`); };
}
