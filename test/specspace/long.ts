// The long spec-space run: any number of seeds, in batches (one generated project each), through
// the same backends as test/specspace.test.ts. Prints one line per batch and backend, every
// failure with its seed, and a JSON summary last; exits 1 on any failure.
//   node dist/test/specspace/long.js [--from 1000] [--count 2000] [--batch 200]
//        [--backends node,ort,torch,jax,paddle,nvcc] [--dir build/specspace-long] [--cuda]
// A backend asked for that cannot run (no torch, jax or paddle in the Python: OPFORGE_PYTHON, the
// active venv, python3) fails the run with the reason: a long run that checked nothing must not pass.
// --cuda runs `opforge test --device cuda`: the Node addon and the PyTorch extension on the GPU.
// TENSORRT_INCLUDE_DIR (':'-separated) adds a TensorRT compile per header set.

import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { root } from '../helpers/paths.js';
import { writeCorpus } from './corpus.js';
import {
  compileCuda,
  compileTrt,
  prepare,
  runOpforgeTest,
  type BackendReport,
  type Failure,
  type Project,
} from './run.js';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: '1000' },
    count: { type: 'string', default: '2000' },
    batch: { type: 'string', default: '200' },
    backends: { type: 'string', default: 'node,ort,torch,nvcc' },
    dir: { type: 'string', default: path.join(root, 'build', 'specspace-long') },
    keep: { type: 'boolean', default: false },
    cuda: { type: 'boolean', default: false },
  },
});
const from = Number(values.from),
  count = Number(values.count),
  batch = Number(values.batch);
const backends = new Set(values.backends.split(','));
const trt = (process.env.TENSORRT_INCLUDE_DIR ?? '').split(':').filter(Boolean);

const failures: (Failure & { batch: number })[] = [];
const totals: Record<string, number> = {};
const cannot: Record<string, number> = {};
let specs = 0;
const t0 = performance.now();
for (let b = 0; b * batch < count; b++) {
  const seeds = Array.from({ length: Math.min(batch, count - b * batch) }, (_, i) => from + b * batch + i);
  const dir = path.resolve(values.dir, `b${b}`);
  mkdirSync(dir, { recursive: true });
  const corpus = writeCorpus(dir, seeds);
  let project: Project;
  try {
    project = prepare(dir);
  } catch (e) {
    failures.push({ batch: b, op: '*', case: null, backend: 'gen', message: (e as Error).message.slice(0, 4000) });
    console.log(`batch ${b} (seeds ${seeds[0]}..${seeds.at(-1)}): gen FAILED\n${(e as Error).message.slice(0, 4000)}`);
    continue;
  }
  specs += corpus.plans.length;
  const reports: BackendReport[] = [];
  const attempt = async (name: string, fn: () => Promise<BackendReport> | BackendReport) => {
    const t = performance.now();
    try {
      reports.push(await fn());
    } catch (e) {
      reports.push({
        backend: name,
        cases: 0,
        failures: [{ op: '*', case: null, backend: name, message: (e as Error).message.slice(0, 4000) }],
      });
    }
    const r = reports.at(-1)!;
    totals[r.backend] = (totals[r.backend] ?? 0) + r.cases;
    if (r.cannot) cannot[r.backend] = (cannot[r.backend] ?? 0) + r.cannot;
    console.log(
      `batch ${b} (seeds ${seeds[0]}..${seeds.at(-1)}) ${r.backend}: ${r.cases} checked, ${r.failures.length} failed${r.cannot ? `, ${r.cannot} cannot (ruled out by the spec)` : ''} (${((performance.now() - t) / 1000).toFixed(0)} s)`,
    );
    for (const f of r.failures) {
      failures.push({ ...f, batch: b });
      console.log(
        `  FAIL ${f.op} case ${f.case ?? '-'}: ${f.message.length > 600 ? `${f.message.slice(0, 300)} ... ${f.message.slice(-2500)}` : f.message}`,
      );
    }
  };
  // `opforge test` with the asked backends (torch adds the exported models; ort alone the one-node ones).
  const asked = (['node', 'torch', 'ort', 'jax', 'paddle'] as const).filter((b) => backends.has(b));
  if (asked.length) {
    const t = performance.now();
    try {
      const { reports: rs, report } = await runOpforgeTest(project, {
        backends: [
          ...asked,
          ...(backends.has('torch') ? ['grad' as const] : []),
          ...(backends.has('torch') && backends.has('ort') ? ['export' as const] : []),
          'serialize',
        ],
        device: values.cuda ? 'cuda' : 'cpu',
      });
      for (const r of rs) await attempt(r.backend, () => r);
      for (const [column, why] of Object.entries(report.skipped))
        await attempt(column, () => ({
          backend: column,
          cases: 0,
          failures: [{ op: '*', case: null, backend: column, message: `asked for, but skipped: ${why}` }],
        }));
    } catch (e) {
      await attempt('opforge-test', () => {
        throw e;
      });
    }
    console.log(`batch ${b}: opforge test ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  if (backends.has('nvcc')) await attempt('nvcc', () => compileCuda(project));
  for (const [k, inc] of trt.entries()) await attempt(`trt-${k}`, () => compileTrt(project, inc, String(k)));
  if (!values.keep) rmSync(path.join(dir, 'build'), { recursive: true, force: true });
}
console.log(
  JSON.stringify({
    seeds: `${from}..${from + count - 1}`,
    specs,
    checked: totals,
    cannot,
    failed: failures.length,
    seconds: Math.round((performance.now() - t0) / 1000),
  }),
);
process.exitCode = failures.length ? 1 : 0;
