// Runs a spec-space corpus (or any ops dir whose specs have references and tests) through the
// backends this machine has: gen, the Node addon, the PyTorch extension and ONNX Runtime, each
// compared with the spec's reference on every test case; compile-only checks for nvcc, TensorRT,
// Paddle and PopART where their headers are given. Used by test/specspace.test.ts (the fixed
// corpus) and scripts/specspace-long.mjs (any number of seeds).

import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { OpIR } from '../../generator/ir.js';
import { loadProject } from '../../generator/project.js';
import { build, load } from '../../runtime/index.js';
import type { Tensor as OrtTensor } from '../../runtime/ort.js';
import { sh } from '../helpers/cxx.js';
import { root as repoRoot } from '../helpers/paths.js';
import { PYTHON, python } from '../helpers/python.js';
import { compareOutputs, readCase, type DumpedCase } from './cases.js';

export interface Failure { op: string; case: number | null; backend: string; message: string }
export interface BackendReport { backend: string; cases: number; failures: Failure[] }

/** The failures of a report as one message, the first dozen named by op, case and backend; '' when none. */
export function describeFailures(r: BackendReport): string {
  if (!r.failures.length) return '';
  const lines = r.failures.slice(0, 12).map((f) => `${f.op} case ${f.case ?? '-'} [${f.backend}]: ${f.message}`);
  return `${r.failures.length} failures:\n${lines.join('\n')}`;
}

const cli = path.join(repoRoot, 'dist', 'generator', 'cli.js');

export interface Project { root: string; opsDir: string; outDir: string; casesDir: string; ops: OpIR[] }

/** gen into <root>/out, then the reference's outputs for every case into <root>/cases. */
export function prepare(root: string, opsDir = path.join(root, 'ops')): Project {
  const outDir = path.join(root, 'out');
  const casesDir = path.join(root, 'cases');
  sh(process.execPath, [cli, 'gen', '--quiet', '--ops', opsDir, '--out', outDir]);
  rmSync(casesDir, { recursive: true, force: true });
  sh(PYTHON, [path.join(repoRoot, 'test', 'python', 'dump_cases.py'), casesDir], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(outDir, 'python') } });
  return { root, opsDir, outDir, casesDir, ops: loadProject({ opsDir, root }).ops };
}

function cases(p: Project, op: OpIR): DumpedCase[] {
  return op.tests.map((t) => readCase(p.casesDir, op.ident.snake, t.index));
}

type NodeFn = (...args: unknown[]) => Record<string, { dtype: string; dims: readonly number[]; data: unknown }>;

/** The Node addon (built -Werror) on every case, sync and async. */
export async function runNode(p: Project, buildDir = path.join(p.root, 'build', 'node')): Promise<BackendReport> {
  await build({ root: p.root, buildDir });
  const mod = (await import(path.join(p.outDir, 'node', 'index.js'))) as { bind(a: unknown): Record<string, NodeFn>; bindAsync(a: unknown): Record<string, (...args: unknown[]) => Promise<ReturnType<NodeFn>>> };
  const addon = load(buildDir);
  const ops = mod.bind(addon);
  const asyncOps = mod.bindAsync(addon);
  const report: BackendReport = { backend: 'node', cases: 0, failures: [] };
  for (const op of p.ops) {
    for (const c of cases(p, op)) {
      report.cases++;
      const fail = (message: string) => report.failures.push({ op: op.name, case: c.index, backend: 'node', message });
      try {
        const bad = compareOutputs(ops[op.ident.camel]!(...c.inputs, c.given), c);
        if (bad) { fail(bad); continue; }
        const later = compareOutputs(await asyncOps[op.ident.camel]!(...c.inputs, c.attributes), c);
        if (later) fail(`async: ${later}`);
      } catch (e) {
        fail((e as Error).message);
      }
    }
  }
  return report;
}

/** The custom-op library in ONNX Runtime (onnxruntime-node's): one-node models of every case. */
export async function runOrt(p: Project): Promise<BackendReport> {
  // Loaded here: the GPU machine's production-only node_modules has no ONNX protobuf package.
  const { opModel } = await import('../../runtime/op-model.js');
  const { buildOrtLibrary, session } = await import('../../runtime/ort.js');
  const buildDir = path.join(p.root, 'build', 'ort');
  const library = await buildOrtLibrary({ root: p.root, buildDir });
  const models = path.join(buildDir, 'models');
  mkdirSync(models, { recursive: true });
  const report: BackendReport = { backend: 'ort', cases: 0, failures: [] };
  for (const op of p.ops) {
    for (const [k, c] of cases(p, op).entries()) {
      report.cases++;
      const t = op.tests[k]!;
      try {
        const inputShapes = Object.fromEntries(c.inputs.flatMap((x, i) => (x ? [[c.inputNames[i]!, x.dims]] : [])));
        const file = path.join(models, `${op.ident.snake}_${k}.onnx`);
        const omitInputs = c.inputNames.filter((_, i) => !c.inputs[i]);
        writeFileSync(file, opModel(op, { binding: t.binding, attributes: c.given as Record<string, never>, inputShapes, omitInputs }));
        const s = await session(file, { root: p.root, customOpLibraries: [library] });
        try {
          const feeds = Object.fromEntries(c.inputs.flatMap((x, i) => (x ? [[c.inputNames[i]!, x as unknown as OrtTensor]] : [])));
          const bad = compareOutputs(s.run(feeds), c);
          if (bad) report.failures.push({ op: op.name, case: c.index, backend: 'ort', message: bad });
        } finally {
          s.close();
        }
      } catch (e) {
        report.failures.push({ op: op.name, case: c.index, backend: 'ort', message: (e as Error).message.split('\n').slice(0, 4).join(' | ') });
      }
    }
  }
  return report;
}

interface TorchSummary { ok: number; failed: number; checks: Record<string, number> }

/** The PyTorch extension (built -Werror against the installed torch): parity with the reference and the legacy export. */
export function runTorch(p: Project, opts: { cuda?: boolean } = {}): BackendReport & { summary: TorchSummary; log: string } {
  const buildDir = path.join(p.root, 'build', 'torch');
  const prefix = python('import torch.utils; print(torch.utils.cmake_prefix_path)').trim();
  sh('cmake', ['-S', path.join(p.outDir, 'torch'), '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', `-DCMAKE_PREFIX_PATH=${prefix}`, `-DOPFORGE_PROJECT_ROOT=${p.root}`, `-DWITH_CUDA=${opts.cuda ? 'ON' : 'OFF'}`]);
  sh('cmake', ['--build', buildDir, `-j${availableParallelism()}`]);
  const r = spawnSync(PYTHON, [path.join(repoRoot, 'test', 'python', 'torch_ops_check.py'), '--library', path.join(buildDir, 'libopforge_torch.so'), ...(opts.cuda ? ['--device', 'cuda'] : [])], {
    encoding: 'utf8', maxBuffer: 256 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(p.outDir, 'python') },
  });
  const lines = r.stdout.trim().split('\n');
  const summary = JSON.parse(lines[lines.length - 1] ?? '{}') as TorchSummary;
  const failures: Failure[] = lines.filter((l) => l.startsWith('FAIL')).map((l) => {
    const m = /^FAIL (\S+) (?:\S+ )?([A-Za-z0-9_]+)#(\d+)/.exec(l);
    return { op: m?.[2] ?? '?', case: m ? Number(m[3]) : null, backend: 'torch', message: l };
  });
  if (r.status !== 0 && !failures.length) failures.push({ op: '?', case: null, backend: 'torch', message: `${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}` });
  return { backend: 'torch', cases: p.ops.reduce((n, o) => n + o.tests.length, 0), failures, summary, log: `${r.stdout}\n${r.stderr}` };
}

/** Compiles every CUDA kernel with nvcc (one unity translation unit; there is no GPU to run them). */
export function compileCuda(p: Project): BackendReport {
  const units = p.ops.filter((o) => o.kernels.cuda).map((o) => path.join(p.root, o.kernels.cuda!));
  const report: BackendReport = { backend: 'nvcc', cases: units.length, failures: [] };
  if (!units.length) return report;
  const dir = path.join(p.root, 'build', 'nvcc');
  mkdirSync(dir, { recursive: true });
  const unity = path.join(dir, 'all_kernels.cu');
  writeFileSync(unity, units.map((u) => `#include "${u}"\n`).join(''));
  const r = spawnSync('nvcc', ['-std=c++17', '-c', unity, '-o', path.join(dir, 'all_kernels.o'), `-I${path.join(p.outDir, 'include')}`, '-Xcompiler=-Wall,-Wextra,-Werror', '-Werror=all-warnings'], { encoding: 'utf8' });
  if (r.status !== 0) report.failures.push({ op: '*', case: null, backend: 'nvcc', message: `${r.stdout}${r.stderr}`.slice(0, 4000) });
  return report;
}

/** Compiles every generated TensorRT unit against the headers in `include` with scripts/check-trt.sh (-Werror). */
export function compileTrt(p: Project, include: string, tag: string): BackendReport {
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'check-trt.sh'), include, path.join(p.root, 'build', `trt-${tag}`)], {
    encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, OPFORGE_OUT: p.outDir },
  });
  const lines = r.stdout.split('\n');
  const report: BackendReport = { backend: `trt-${tag}`, cases: lines.filter((l) => /^(ok|FAIL) /.test(l)).length, failures: [] };
  // Each FAIL line is followed by that unit's compiler output, up to the next ok/FAIL/summary line.
  lines.forEach((l, i) => {
    const m = /^FAIL (\S+)/.exec(l);
    if (!m) return;
    const end = lines.findIndex((x, j) => j > i && /^(ok|FAIL) |^check-trt:/.test(x));
    report.failures.push({ op: m[1]!.split('/')[1] ?? m[1]!, case: null, backend: report.backend, message: lines.slice(i + 1, end < 0 ? undefined : end).join('\n').slice(0, 3000) });
  });
  if (r.status !== 0 && !report.failures.length) report.failures.push({ op: '*', case: null, backend: report.backend, message: `${r.stdout}${r.stderr}`.slice(-3000) });
  return report;
}
