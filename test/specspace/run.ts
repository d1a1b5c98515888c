// Runs a spec-space corpus (or any ops dir whose specs have references and tests) through
// `opforge test` (the Node addon, the PyTorch extension, ONNX Runtime and the exported models,
// each against the spec's reference on every case, and the serialization round trip), plus
// compile-only checks for nvcc and TensorRT where their headers are given. Used by
// test/specspace.test.ts (the fixed corpus), test/user-ops.test.ts and long.ts (any number of seeds).

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OpIR } from '../../generator/model/ir.js';
import { loadProject } from '../../generator/model/project.js';
import type { TestReport } from '../../runtime/testing/results.js';
import { runTests, type Backend } from '../helpers/run-tests.js';
import { sh } from '../helpers/cxx.js';
import { root as repoRoot } from '../helpers/paths.js';
import { PYTHON } from '../helpers/python.js';

export interface Failure {
  op: string;
  case: number | null;
  backend: string;
  message: string;
}
/** cannot: cells the spec rules out (status `cannot`: an op that cannot train on CUDA), not failures. */
export interface BackendReport {
  backend: string;
  cases: number;
  failures: Failure[];
  cannot?: number;
}

/** The failures of a report as one message, the first dozen named by op, case and backend; '' when none. */
export function describeFailures(r: BackendReport): string {
  if (!r.failures.length) return '';
  const lines = r.failures.slice(0, 12).map((f) => `${f.op} case ${f.case ?? '-'} [${f.backend}]: ${f.message}`);
  return `${r.failures.length} failures:\n${lines.join('\n')}`;
}

const cli = path.join(repoRoot, 'dist', 'cli', 'opforge.js');

export interface Project {
  root: string;
  opsDir: string;
  outDir: string;
  ops: OpIR[];
}

/** gen into <root>/out (`opforge test` would too; the compile-only checks below need it first). */
export function prepare(root: string, opsDir = path.join(root, 'ops')): Project {
  const outDir = path.join(root, 'out');
  sh(process.execPath, [cli, 'gen', '--quiet', '--ops', opsDir, '--out', outDir]);
  return { root, opsDir, outDir, ops: loadProject({ opsDir, root }).ops };
}

/**
 * `opforge test` (runtime/testing/run.ts) on the project, as a user runs it: one report per
 * backend column it ran, and the whole TestReport (what ran, what was skipped and why: callers
 * assert the columns they expect, so a skipped backend cannot pass unnoticed).
 */
export async function runOpforgeTest(
  p: Project,
  opts: { backends?: Backend[]; device?: 'cpu' | 'cuda'; buildDir?: string; unityBatch?: number } = {},
): Promise<{ reports: BackendReport[]; report: TestReport }> {
  const report = await runTests({
    root: p.root,
    opsDir: p.opsDir,
    outDir: p.outDir,
    python: PYTHON,
    ...(opts.buildDir ? { buildDir: opts.buildDir } : {}),
    ...(opts.backends ? { backends: opts.backends } : {}),
    ...(opts.device ? { device: opts.device } : {}),
    ...(opts.unityBatch ? { unityBatch: opts.unityBatch } : {}),
  });
  const reports = report.backends.map((b) => {
    const rs = report.results.filter((r) => r.backend === b);
    return {
      backend: b,
      cases: rs.filter((r) => r.status === 'ok').length,
      cannot: rs.filter((r) => r.status === 'cannot').length,
      failures: rs
        .filter((r) => r.status === 'fail')
        .map((r) => ({ op: r.op, case: r.case, backend: b, message: r.message ?? '' })),
    };
  });
  return { reports, report };
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
  const r = spawnSync(
    'nvcc',
    [
      '-std=c++17',
      '-c',
      unity,
      '-o',
      path.join(dir, 'all_kernels.o'),
      `-I${path.join(p.outDir, 'include')}`,
      '-Xcompiler=-Wall,-Wextra,-Werror',
      '-Werror=all-warnings',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0)
    report.failures.push({ op: '*', case: null, backend: 'nvcc', message: `${r.stdout}${r.stderr}`.slice(0, 4000) });
  return report;
}

/** Compiles every generated TensorRT unit against the headers in `include` with scripts/check-trt.sh (-Werror). */
export function compileTrt(p: Project, include: string, tag: string): BackendReport {
  const r = spawnSync(
    'bash',
    [path.join(repoRoot, 'scripts', 'check-trt.sh'), include, path.join(p.root, 'build', `trt-${tag}`)],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: { ...process.env, OPFORGE_OUT: p.outDir },
    },
  );
  const lines = r.stdout.split('\n');
  const report: BackendReport = {
    backend: `trt-${tag}`,
    cases: lines.filter((l) => /^(ok|FAIL) /.test(l)).length,
    failures: [],
  };
  // Each FAIL line is followed by that unit's compiler output, up to the next ok/FAIL/summary line.
  lines.forEach((l, i) => {
    const m = /^FAIL (\S+)/.exec(l);
    if (!m) return;
    const end = lines.findIndex((x, j) => j > i && /^(ok|FAIL) |^check-trt:/.test(x));
    report.failures.push({
      op: m[1]!.split('/')[1] ?? m[1]!,
      case: null,
      backend: report.backend,
      message: lines
        .slice(i + 1, end < 0 ? undefined : end)
        .join('\n')
        .slice(0, 3000),
    });
  });
  if (r.status !== 0 && !report.failures.length)
    report.failures.push({
      op: '*',
      case: null,
      backend: report.backend,
      message: `${r.stdout}${r.stderr}`.slice(-3000),
    });
  return report;
}
