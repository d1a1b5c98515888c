// The Paddle columns: the generated custom ops in the library CMake builds from out/paddle against
// the wheel (linking the shared kernel build's objects), loaded with opforge_paddle.load.
// paddle: dygraph outputs against the baseline; paddle-grad: paddle.grad against autograd of the
// reference (and the static graph's gradients against dygraph's); paddle-infer: the op in a
// jit.save'd model run by paddle.inference, bit for bit equal to dygraph. A run kept by content
// (kept-run.ts: the cases, the packages, the library's bytes) skips the harness.

import path from 'node:path';
import { type Case, oncePerRun, type TestBackend, type TestContext } from '../../backend.js';
import { buildFailureResults } from '../../build-failure.js';
import type { HostTensor, TensorFile } from '../../cases.js';
import { compareOutputs } from '../../compare.js';
import { readOutputs } from '../../outputs.js';
import { buildPaddleLibrary, runPaddle, type PaddleCell, type PaddleRun } from './build.js';
import { compileKey } from '../../compile-key.js';
import { keptRun } from '../../kept-run.js';
import { caseInputFiles } from '../../case-files.js';
import { PKG_ROOT } from '../../../../generator/pkg-root.js';

/** Why the Paddle columns do not run here; undefined: they run. */
function skipReason(ctx: TestContext): string | undefined {
  const { probe } = ctx;
  return ctx.device === 'cuda'
    ? "the Paddle columns run on the CPU (they use the CPU wheel's kernels); --device cpu runs them"
    : !probe.packages.paddlepaddle
      ? `paddle is not importable by ${ctx.python} (install: pip install paddlepaddle==3.3.1)`
      : !probe.version
        ? `${probe.why} (the Paddle side reads the cases and the reference with torch)`
        : undefined;
}

const wantGrad = (ctx: TestContext): boolean => ctx.ops.some((o) => o.backward);

/** The library's build and the harness run, started by prepare beside the other backends (its own interpreter), or the error. */
const work = oncePerRun(async (ctx): Promise<PaddleRun | { error: unknown }> => {
  try {
    const library = await ctx.compile(() => {
      ctx.say(`building the Paddle op library against paddle ${ctx.probe.packages.paddlepaddle}`);
      return buildPaddleLibrary({
        root: ctx.root,
        outDir: ctx.outDir,
        buildDir: path.join(ctx.buildRoot, 'paddle'),
        python: ctx.python,
        // The CPU kernel objects every other backend links (the columns skip CUDA); without them
        // (that build failed) the library compiles the kernels itself and reports the error.
        ...(ctx.kernels ? { kernels: ctx.kernels.defs } : {}),
        names: ctx.project.names,
        onLine: ctx.progress,
      });
    });
    return await keptRun({
      cacheDir: path.join(ctx.buildRoot, 'test', 'paddle-side'),
      key: paddleKey(ctx, wantGrad(ctx), library),
      casesDir: ctx.casesDir,
      owner: 'paddle',
      run: () =>
        runPaddle({
          python: ctx.python,
          outDir: ctx.outDir,
          library,
          casesDir: ctx.casesDir,
          ops: ctx.project.ops,
          grad: wantGrad(ctx),
          infer: true,
          names: ctx.project.names,
          session: ctx.harnessSession('paddle'),
        }),
    });
  } catch (error) {
    return { error };
  }
});

export const paddleBackend: TestBackend = {
  name: 'paddle',
  wanted: (ctx) => ctx.want.has('paddle'),
  async prepare(ctx) {
    if (!skipReason(ctx)) await work(ctx);
  },
  async run(ctx) {
    const cols = ['paddle', ...(wantGrad(ctx) ? ['paddle-grad'] : []), 'paddle-infer'];
    const why = skipReason(ctx);
    if (why) {
      for (const b of cols) ctx.skipped[b] = why;
      return;
    }
    cols.forEach((b) => ctx.col(b));
    const pd = await work(ctx);
    if ('error' in pd) {
      ctx.results.push(...buildFailureResults(pd.error, ctx.ops, cols, ctx.root, ctx.project.ops));
      return;
    }
    ctx.env.paddle = pd.env.paddle;
    for (const c of ctx.cases)
      recordCase(
        ctx,
        c,
        pd.cases.find((x) => x.op === c.op.name && x.case === c.doc.index),
        cols.includes('paddle-grad'),
      );
  },
};

/**
 * What the Paddle harness reads, as one hash: the cases, the harness, out/paddle and out/python,
 * the Python and its packages, and the library's bytes (the kernels and op units it was built from).
 */
function paddleKey(ctx: TestContext, grad: boolean, library: string): string {
  return compileKey(
    [
      JSON.stringify({ grad, ops: ctx.ops.map((o) => o.name), all: ctx.project.ops.map((o) => o.name) }),
      JSON.stringify(ctx.probe),
      ctx.python,
    ],
    [path.join(PKG_ROOT, 'runtime', 'python'), ...['paddle', 'python'].map((d) => path.join(ctx.outDir, d))],
    [...caseInputFiles(ctx.casesDir), library],
  );
}

function recordCase(ctx: TestContext, c: Case, p: PaddleRun['cases'][number] | undefined, grad: boolean): void {
  const cell = (b: string, o: PaddleCell | undefined, then: (files: Record<string, TensorFile>) => void): void => {
    if (!o) return;
    const r = { op: c.op.name, case: c.doc.index, backend: b };
    if ('skip' in o) ctx.results.push({ ...r, status: 'skip', message: String(o.skip) });
    else if ('error' in o) ctx.results.push({ ...r, status: 'fail', message: String(o.error) });
    else if ('noBackward' in o && o.noBackward)
      ctx.results.push({
        ...r,
        status: 'ok',
        raised: true,
        message: `no backward: asking for a gradient raises the named error (${o.noBackward})`,
      });
    // paddle-grad says whether its static-graph check ran (and why not, by name).
    else if ('maxError' in o)
      ctx.results.push({
        ...r,
        status: 'ok',
        maxError: Number(o.maxError),
        compared: c.op.kernels.reference ? 'reference' : 'backends',
        ...(typeof o.static === 'string' && o.static.startsWith('skipped')
          ? { message: `static graph ${o.static}` }
          : {}),
      });
    else then(o as Record<string, TensorFile>);
  };
  let dygraph: Record<string, HostTensor> | undefined;
  cell('paddle', p?.paddle, (files) => {
    dygraph = readOutputs(c.dir, files);
    ctx.check(c, 'paddle', dygraph);
  });
  if (grad) cell('paddle-grad', p?.['paddle-grad'], () => {});
  cell('paddle-infer', p?.['paddle-infer'], (files) => {
    // The predictor against dygraph, bit for bit: the same kernel through a saved static graph.
    const r = dygraph
      ? compareOutputs(readOutputs(c.dir, files), dygraph, { rtol: 0, atol: 0 })
      : { maxError: NaN, mismatch: 'no dygraph output to compare with' };
    ctx.results.push({
      op: c.op.name,
      case: c.doc.index,
      backend: 'paddle-infer',
      status: r.mismatch ? 'fail' : 'ok',
      maxError: r.maxError,
      compared: 'backends',
      ...(r.mismatch ? { message: `predictor vs dygraph: ${r.mismatch}` } : {}),
    });
  });
}
